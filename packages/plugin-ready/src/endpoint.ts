/**
 * The /ready HTTP endpoint: 200 `OK` when every plugin that reports readiness is ready, else 503
 * with the sorted, comma-joined names of those that are not (CoreDNS `plugin/ready/ready.go`).
 * Listening, sharing and closing are core's {@link HttpEndpoint}.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpEndpoint, notFound } from '@foghorn/core';
import type { Logger } from '@foghorn/core';
import type { ReadinessList } from './readiness.js';

/** Options for {@link ReadyEndpoint}. */
export interface ReadyEndpointOptions {
  /** `host:port` as written in the Corefile (`:8181`, `127.0.0.1:0`). */
  readonly address: string;
  readonly list: ReadinessList;
  /** The `plugin/ready: ` logger. */
  readonly log: Logger;
}

export class ReadyEndpoint extends HttpEndpoint {
  constructor(private readonly ready: ReadyEndpointOptions) {
    super({
      address: ready.address,
      handler: (req, res) => this.serve(req, res),
      onError: (error) => ready.log.error(`ready handler on ${ready.address}: ${error.message}`),
    });
  }

  private serve(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '').split('?', 1)[0];
    if (path !== '/ready') return notFound(req, res);
    // Closing: a request still arriving on an open connection gets 503.
    if (!this.isOpen) {
      res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' });
      res.end('Shutting down');
      return;
    }
    const notReady = this.ready.list.notReady();
    if (notReady.length === 0) {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('OK');
      return;
    }
    const names = notReady.join(',');
    this.ready.log.info(`Plugins not ready: ${JSON.stringify(names)}`);
    res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end(names);
  }
}
