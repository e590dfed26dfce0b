/**
 * The `/metrics` HTTP listener of one address. Every server block naming the address shares one
 * endpoint (kept in the controller's process-wide `shared` map), and every endpoint exports the
 * same registry (spec 3.6).
 *
 * Lifecycle (spec 2.8): opened in OnStartup, closed in OnRestart so the new configuration can
 * bind the port, reopened in OnRestartFailed, closed in OnFinalShutdown. A listen failure is
 * logged and is not fatal, as in CoreDNS.
 *
 * Blocks *own* the open listener while their configuration runs: the last owner's OnShutdown
 * closes it too. CoreDNS never needs that because a failed start ends its process; here a
 * failed `Server.start()` runs only OnShutdown, and the HTTP socket must not outlive it.
 */
import http from 'node:http';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { gzip } from 'node:zlib';
import { promisify } from 'node:util';
import type { Logger } from '@foghorn/core';
import type { Registry } from 'prom-client';

const gzipAsync = promisify(gzip);

/** How long a closing listener lets in-flight scrapes finish (CoreDNS's shutdownTimeout, 5 s). */
const shutdownGraceMs = 5_000;

/** The only path served, as in CoreDNS. */
const metricsPath = '/metrics';

/** A listen address split as Go's `net.SplitHostPort` does. */
export interface ListenAddress {
  /** As written in the Corefile: `localhost:9153`, `:9153`, `[::1]:9153`. */
  readonly text: string;
  /** Host without brackets; '' means every address. */
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
}

/** What tests and embedding programs can see of an endpoint. */
export interface MetricsListenerInfo {
  /** The address as configured (`127.0.0.1:0`). */
  readonly address: string;
  readonly host: string;
  /** The port actually bound, 0 while closed. */
  readonly port: number;
}

/** Endpoints by registry, so {@link metricsListeners} can find them without reaching into a Server. */
const endpointsByRegistry = new WeakMap<Registry, Map<string, MetricsEndpoint>>();

/**
 * The metrics listeners serving `registry` (a Server's `registry`), with their bound ports:
 * how a test that configured `prometheus 127.0.0.1:0` learns where to scrape.
 */
export function metricsListeners(registry: Registry): MetricsListenerInfo[] {
  const endpoints = endpointsByRegistry.get(registry);
  if (!endpoints) return [];
  return [...endpoints.values()].map((e) => ({ address: e.address.text, host: e.address.host, port: e.port }));
}

/** One shared `/metrics` listener. */
export class MetricsEndpoint {
  private server: http.Server | undefined;
  private readonly owners = new Set<object>();
  /** The last port bound; a port-0 address asks for it again so reloads keep the port. */
  private lastPort = 0;
  private pending: Promise<void> = Promise.resolve();

  constructor(
    readonly address: ListenAddress,
    private readonly registry: Registry,
    private readonly log: Logger,
  ) {
    let endpoints = endpointsByRegistry.get(registry);
    if (!endpoints) {
      endpoints = new Map();
      endpointsByRegistry.set(registry, endpoints);
    }
    endpoints.set(address.text, this);
  }

  /** The bound port, 0 while closed. */
  get port(): number {
    const bound = this.server?.address();
    return bound !== null && typeof bound === 'object' ? bound.port : 0;
  }

  /** Opens the listener unless it is open, and records `owner` as using it. Never throws. */
  acquire(owner: object): Promise<void> {
    this.owners.add(owner);
    return this.serialize(() => this.open());
  }

  /** `owner` stops using the listener; the last one out closes it. */
  release(owner: object): Promise<void> {
    if (!this.owners.delete(owner) || this.owners.size > 0) return this.pending;
    return this.serialize(() => this.stop());
  }

  /** Closes the listener whoever uses it (OnRestart, OnFinalShutdown). */
  close(): Promise<void> {
    this.owners.clear();
    return this.serialize(() => this.stop());
  }

  /** Hooks may overlap (two blocks, one address): run open/close one at a time. */
  private serialize(step: () => Promise<void>): Promise<void> {
    this.pending = this.pending.then(step);
    return this.pending;
  }

  private async open(): Promise<void> {
    if (this.server) return;
    try {
      const host = await resolveHost(this.address.host);
      const server = http.createServer((req, res) => void this.serve(req, res));
      const ports = this.address.port === 0 && this.lastPort !== 0 ? [this.lastPort, 0] : [this.address.port];
      for (let i = 0; ; i++) {
        try {
          await listen(server, host, ports[i]!);
          break;
        } catch (error) {
          if (i + 1 >= ports.length || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
        }
      }
      // After listening, a socket error (EMFILE on accept) must be logged, not crash the process.
      server.on('error', (error) => this.log.error(`metrics handler on ${this.address.text}: ${error.message}`));
      this.server = server;
      this.lastPort = this.port;
    } catch (error) {
      this.log.error(`Failed to start metrics handler: ${describeListenError(this.address, error)}`);
    }
  }

  private async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const timer = setTimeout(() => server.closeAllConnections(), shutdownGraceMs);
    await closed;
    clearTimeout(timer);
  }

  private async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?', 1)[0];
    if (path !== metricsPath) {
      // Go's http.NotFound, which CoreDNS's mux answers for every other path.
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' });
      res.end('404 page not found\n');
      return;
    }
    try {
      let body = Buffer.from(await this.registry.metrics());
      const headers: http.OutgoingHttpHeaders = { 'content-type': this.registry.contentType };
      if (/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
        body = await gzipAsync(body);
        headers['content-encoding'] = 'gzip';
      }
      headers['content-length'] = body.length;
      res.writeHead(200, headers);
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch (error) {
      // promhttp's HTTPErrorOnError.
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`An error has occurred while serving metrics:\n\n${error instanceof Error ? error.message : String(error)}\n`);
    }
  }
}

/**
 * A host name listens on one of its addresses, IPv4 first, as Go's `net.Listen` does
 * (`localhost:9153` is 127.0.0.1 even where `localhost` resolves to ::1 first).
 */
async function resolveHost(host: string): Promise<string | undefined> {
  if (host === '') return undefined;
  if (isIP(host) !== 0) return host;
  const addresses = await lookup(host, { all: true });
  const chosen = addresses.find((a) => a.family === 4) ?? addresses[0];
  if (!chosen) throw Object.assign(new Error(`lookup ${host}: no such host`), { code: 'ENOTFOUND' });
  return chosen.address;
}

function listen(server: http.Server, host: string | undefined, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port, exclusive: true }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Go's wording (`listen tcp :9153: bind: address already in use`), which operators search for. */
function describeListenError(address: ListenAddress, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const where = `listen tcp ${address.text}`;
  switch (code) {
    case 'EADDRINUSE':
      return `${where}: bind: address already in use`;
    case 'EACCES':
      return `${where}: bind: permission denied`;
    case 'EADDRNOTAVAIL':
      return `${where}: bind: cannot assign requested address`;
    case 'ENOTFOUND':
      return `${where}: lookup ${address.host}: no such host`;
    default:
      return `${where}: ${error instanceof Error ? error.message : String(error)}`;
  }
}
