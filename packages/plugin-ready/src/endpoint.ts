/**
 * The /ready HTTP endpoint: 200 `OK` when every plugin that reports readiness is ready, else 503
 * with the sorted, comma-joined names of those that are not (CoreDNS `plugin/ready/ready.go`).
 */
import http from 'node:http';
import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@foghorn/core';
import { listenError, listenPort, splitHostPort } from '@foghorn/core';
import type { ReadinessList } from './readiness.js';

/** CoreDNS's read, write and idle timeouts, and its shutdown timeout. */
const httpTimeoutMs = 5_000;

/** Options for {@link ReadyEndpoint}. */
export interface ReadyEndpointOptions {
  /** `host:port` as written in the Corefile (`:8181`, `127.0.0.1:0`). */
  readonly address: string;
  readonly list: ReadinessList;
  /** The `plugin/ready: ` logger. */
  readonly log: Logger;
}

export class ReadyEndpoint {
  readonly address: string;
  private server: HttpServer | undefined;
  /** Set while closing: a request still arriving on an open connection gets 503. */
  private closing = false;
  private boundPort = 0;
  private readonly host: string;
  private readonly portWanted: number;

  constructor(private readonly options: ReadyEndpointOptions) {
    this.address = options.address;
    const { host, port } = splitHostPort(options.address);
    this.host = host;
    this.portWanted = listenPort(options.address, port);
  }

  /** The port actually bound (useful with port 0); 0 when closed. */
  get port(): number {
    return this.server ? this.boundPort : 0;
  }

  /** Listens; rejects with Go's wording when the address can't be bound. */
  async open(): Promise<void> {
    if (this.server) return;
    const server = http.createServer((req, res) => this.serve(req, res));
    server.requestTimeout = httpTimeoutMs;
    server.headersTimeout = httpTimeoutMs;
    server.keepAliveTimeout = httpTimeoutMs;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error) => reject(listenError(this.address, error)));
      server.listen({ port: this.portWanted, ...(this.host === '' ? {} : { host: this.host }) }, () => resolve());
    });
    this.closing = false;
    this.server = server;
    this.boundPort = (server.address() as AddressInfo).port;
  }

  /** Refuses new connections at once; busy ones get up to 5s (CoreDNS's shutdown timeout). */
  close(): Promise<void> {
    const server = this.server;
    if (!server) return Promise.resolve();
    this.server = undefined;
    this.closing = true;
    return new Promise((resolve) => {
      const force = setTimeout(() => server.closeAllConnections(), httpTimeoutMs);
      force.unref();
      server.close(() => {
        clearTimeout(force);
        resolve();
      });
      server.closeIdleConnections();
    });
  }

  private serve(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '').split('?', 1)[0];
    if (path !== '/ready') {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
      res.end('404 page not found\n');
      return;
    }
    if (this.closing) {
      res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' });
      res.end('Shutting down');
      return;
    }
    const notReady = this.options.list.notReady();
    if (notReady.length === 0) {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('OK');
      return;
    }
    const names = notReady.join(',');
    this.options.log.info(`Plugins not ready: ${JSON.stringify(names)}`);
    res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end(names);
  }
}
