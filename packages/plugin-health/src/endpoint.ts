/**
 * The /health HTTP endpoint: one listener per configured address, answering `200 OK` for as long
 * as the process runs (it never reports unhealthy, by design: CoreDNS issues #1474, #3290), plus
 * the once-a-second self-probe whose duration tells how loaded the process is.
 */
import http from 'node:http';
import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { formatDuration } from '@foghorn/core';
import type { Logger } from '@foghorn/core';
import { listenError, listenPort, splitHostPort } from '@foghorn/core';
import type { HealthMetrics } from './metrics.js';

/** CoreDNS's read, write and idle timeouts, and its shutdown timeout. */
const httpTimeoutMs = 5_000;
/** The self-probe's HTTP client timeout. */
const probeTimeoutMs = 3_000;
/** A local probe slower than this is worth a warning (CoreDNS: "1s is pretty random"). */
const slowProbeMs = 1_000;
/** How often the process probes its own /health. */
export const defaultProbeIntervalMs = 1_000;

/** Options for {@link HealthEndpoint}. */
export interface HealthEndpointOptions {
  /** `host:port` as written in the Corefile (`:8080`, `127.0.0.1:0`). */
  readonly address: string;
  readonly metrics: HealthMetrics;
  /** The `plugin/health: ` logger. */
  readonly log: Logger;
  /** Self-probe period in ms (default 1s); 0 disables the probe. */
  readonly probeIntervalMs?: number;
}

/** An open-able, close-able /health listener. */
export class HealthEndpoint {
  readonly address: string;
  private server: HttpServer | undefined;
  private probeTimer: NodeJS.Timeout | undefined;
  private probeInFlight: http.ClientRequest | undefined;
  private readonly host: string;
  private readonly portWanted: number;
  /** The port bound by the last open(); the probe keeps using it. */
  private boundPort = 0;

  constructor(private readonly options: HealthEndpointOptions) {
    this.address = options.address;
    const { host, port } = splitHostPort(options.address);
    this.host = host;
    this.portWanted = listenPort(options.address, port);
  }

  /** True while the listener is open. */
  get isOpen(): boolean {
    return this.server !== undefined;
  }

  /** The port actually bound (useful with port 0); 0 when closed. */
  get port(): number {
    return this.server ? this.boundPort : 0;
  }

  /** The URL the self-probe requests; CoreDNS polls `localhost` when the host is empty. */
  get url(): string {
    const host = this.host === '' ? 'localhost' : this.host.includes(':') ? `[${this.host}]` : this.host;
    return `http://${host}:${this.boundPort}/health`;
  }

  /** Listens; rejects with Go's wording when the address can't be bound. */
  async open(): Promise<void> {
    if (this.server) return;
    const server = http.createServer((req, res) => serveHealth(req, res));
    server.requestTimeout = httpTimeoutMs;
    server.headersTimeout = httpTimeoutMs;
    server.keepAliveTimeout = httpTimeoutMs;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error) => reject(listenError(this.address, error)));
      server.listen({ port: this.portWanted, ...(this.host === '' ? {} : { host: this.host }) }, () => resolve());
    });
    this.server = server;
    this.boundPort = (server.address() as AddressInfo).port;
    const interval = this.options.probeIntervalMs ?? defaultProbeIntervalMs;
    if (interval > 0) {
      // Unref'd: the probe must never be what keeps the process alive.
      this.probeTimer = setInterval(() => this.probe(), interval);
      this.probeTimer.unref();
    }
  }

  /**
   * Stops the probe and the listener: new connections are refused at once, idle keep-alive
   * connections are closed, busy ones get up to 5s (CoreDNS's shutdown timeout).
   */
  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    clearInterval(this.probeTimer);
    this.probeTimer = undefined;
    this.probeInFlight?.destroy();
    this.probeInFlight = undefined;
    await closeHttpServer(server);
  }

  /** One self-probe: GET our own /health and record how long the answer took. */
  private probe(): void {
    // Go's ticker drops ticks while a request is pending; so do we.
    if (this.probeInFlight || !this.server) return;
    const url = this.url;
    const started = performance.now();
    const { metrics, log } = this.options;
    const request = http.get(url, { agent: false, timeout: probeTimeoutMs }, (response) => {
      this.probeInFlight = undefined;
      response.resume();
      const elapsedMs = performance.now() - started;
      metrics.duration.observe(elapsedMs / 1000);
      if (elapsedMs > slowProbeMs) log.warning(`Local health request to ${JSON.stringify(url)} took more than 1s: ${formatDuration(elapsedMs)}`);
    });
    this.probeInFlight = request;
    request.on('timeout', () => request.destroy(new Error('context deadline exceeded (Client.Timeout exceeded while awaiting headers)')));
    request.on('error', (error) => {
      // Destroyed by close(): the probe was cancelled, not failed.
      if (this.probeInFlight !== request) return;
      this.probeInFlight = undefined;
      metrics.duration.observe((performance.now() - started) / 1000);
      metrics.failures.inc();
      log.warning(`Local health request to ${JSON.stringify(url)} failed: Get ${JSON.stringify(url)}: ${error.message}`);
    });
  }
}

/** Exact path `/health`, any method: 200 `OK`; anything else Go's default 404. */
function serveHealth(req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? '').split('?', 1)[0];
  if (path === '/health') {
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('OK');
    return;
  }
  res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  res.end('404 page not found\n');
}

/** `server.close()` that also ends keep-alive connections, forcing busy ones after 5s. */
export function closeHttpServer(server: HttpServer): Promise<void> {
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
