/**
 * The HTTP listener behind *health*, *ready* and *prometheus*: a Corefile `host:port`, opened and
 * closed by the lifecycle hooks, shared by every block that names the same address and kept
 * across reloads (docs/compatibility.md, "Lifecycle"). Each plugin brings only its request handler.
 *
 * CoreDNS binds the port again per block with SO_REUSEPORT; Node cannot for TCP, so one listener
 * per address is shared by *owners* (a block's claim while its configuration runs): the first
 * {@link HttpEndpoint.acquire} opens it, the last {@link HttpEndpoint.release} closes it.
 */
import { errorMessage } from './errors.js';
import http from 'node:http';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Dispenser } from '@foghorn/corefile';
import { listenError, listenPort, splitHostPort } from './address.js';
import { sharedHandles } from './workers.js';

/** CoreDNS's read, write and idle timeouts of its HTTP servers. */
export const defaultHttpTimeoutMs = 5_000;
/** CoreDNS's shutdown timeout: how long a closing listener lets busy requests finish. */
export const defaultHttpShutdownGraceMs = 5_000;

/** Options for {@link HttpEndpoint}. */
export interface HttpEndpointOptions {
  /** `host:port` as written in the Corefile (`:8080`, `127.0.0.1:0`, `[::1]:9153`). */
  readonly address: string;
  /** Serves every request; see {@link notFound} for Go's 404. */
  readonly handler: RequestListener;
  /**
   * A socket error after listening (EMFILE on accept). Without a listener Node would throw it
   * and end the process; the plugins log it instead.
   */
  readonly onError: (error: Error) => void;
  /**
   * Turns a host name into the address to bind (prometheus picks IPv4 first, as Go does). By
   * default Node's `listen` resolves it. A thrown error with code ENOTFOUND reads as Go's lookup error.
   */
  readonly resolveHost?: (host: string) => Promise<string>;
  /**
   * Request, headers and keep-alive timeout; default {@link defaultHttpTimeoutMs}. 0 keeps Node's
   * own defaults (CoreDNS's metrics server sets no timeouts).
   */
  readonly timeoutMs?: number;
  /** How long {@link HttpEndpoint.close} waits for busy requests; default {@link defaultHttpShutdownGraceMs}. */
  readonly shutdownGraceMs?: number;
}

/** One HTTP listener on a Corefile address, opened and closed as often as the lifecycle asks. */
export class HttpEndpoint {
  /** The address as written in the Corefile. */
  readonly address: string;
  /** The host without brackets; '' means every address. */
  readonly host: string;
  private readonly portText: string;
  private current: http.Server | undefined;
  /** The port of the last open; a port-0 address asks for it again so reloads keep the port. */
  private lastPort = 0;
  private readonly owners = new Set<object>();
  /** Hooks of several blocks may overlap: open and close run one at a time. */
  private pending: Promise<void> = Promise.resolve();

  /** Throws Go's `address X: missing port in address` when `options.address` is not `host:port`. */
  constructor(private readonly options: HttpEndpointOptions) {
    this.address = options.address;
    const { host, port } = splitHostPort(options.address);
    this.host = host;
    this.portText = port;
  }

  /** True while the listener is open. */
  get isOpen(): boolean {
    return this.current !== undefined;
  }

  /** The port bound (the real one for port 0); 0 while closed. */
  get port(): number {
    return this.current ? this.lastPort : 0;
  }

  /** The Node server while open: for tests and for what this class does not cover. */
  get server(): http.Server | undefined {
    return this.current;
  }

  /**
   * Listens unless open. Rejects with Go's wording (`listen tcp :8080: bind: address already in
   * use`); a non-numeric port is refused here, when CoreDNS would fail too, not at parse time.
   */
  open(): Promise<void> {
    return this.serialize(() => this.listen());
  }

  /**
   * Closes whoever holds the listener: new connections are refused at once, idle keep-alive ones
   * are closed, busy ones get the shutdown grace period and are then cut.
   */
  close(): Promise<void> {
    this.owners.clear();
    return this.serialize(() => this.shut());
  }

  /** Opens the listener unless open, then records `owner` as holding it; rejects as {@link open}. */
  async acquire(owner: object): Promise<void> {
    if (this.owners.has(owner)) return;
    await this.open();
    this.owners.add(owner);
  }

  /** `owner` lets go of the listener; the last one out closes it. */
  release(owner: object): Promise<void> {
    if (!this.owners.delete(owner) || this.owners.size > 0) return this.pending;
    return this.serialize(() => this.shut());
  }

  /** Whether `owner` holds the listener. */
  holds(owner: object): boolean {
    return this.owners.has(owner);
  }

  /** Called once the listener is open (health starts its self-probe here). */
  protected opened(): void {}

  /** Called as the listener starts closing, before connections are ended. */
  protected closing(): void {}

  private serialize(step: () => Promise<void>): Promise<void> {
    const run = this.pending.then(step);
    // A failed open must not poison the steps queued behind it.
    this.pending = run.catch(() => {});
    return run;
  }

  private async listen(): Promise<void> {
    if (this.current) return;
    const wanted = listenPort(this.address, this.portText);
    let host: string | undefined;
    try {
      host = this.host === '' ? undefined : this.options.resolveHost ? await this.options.resolveHost(this.host) : this.host;
    } catch (error) {
      throw this.listenError(error);
    }
    const server = http.createServer(this.options.handler);
    const timeoutMs = this.options.timeoutMs ?? defaultHttpTimeoutMs;
    if (timeoutMs > 0) {
      server.requestTimeout = timeoutMs;
      server.headersTimeout = timeoutMs;
      server.keepAliveTimeout = timeoutMs;
    }
    const ports = wanted === 0 && this.lastPort !== 0 ? [this.lastPort, 0] : [wanted];
    for (let i = 0; ; i++) {
      try {
        await listenOnce(server, host, ports[i]!);
        break;
      } catch (error) {
        // The old port-0 port was taken meanwhile: any free port will do.
        if (i + 1 < ports.length && (error as NodeJS.ErrnoException).code === 'EADDRINUSE') continue;
        throw this.listenError(error);
      }
    }
    server.on('error', (error) => this.options.onError(error));
    this.current = server;
    this.lastPort = (server.address() as AddressInfo).port;
    this.opened();
  }

  private async shut(): Promise<void> {
    const server = this.current;
    if (!server) return;
    this.current = undefined;
    this.closing();
    await new Promise<void>((resolve) => {
      // Unref'd: a slow client must never be what keeps the process alive.
      const force = setTimeout(() => server.closeAllConnections(), this.options.shutdownGraceMs ?? defaultHttpShutdownGraceMs);
      force.unref();
      server.close(() => {
        clearTimeout(force);
        resolve();
      });
      server.closeIdleConnections();
    });
  }

  /** Go's words; a failed name lookup reads `lookup HOST: no such host`, as Go's does. */
  private listenError(error: unknown): Error {
    if ((error as NodeJS.ErrnoException | undefined)?.code === 'ENOTFOUND') {
      return new Error(`listen tcp ${this.address}: lookup ${this.host}: no such host`, { cause: error });
    }
    return listenError(this.address, error);
  }
}

function listenOnce(server: http.Server, host: string | undefined, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    // One process, one listener; the workers of `foghorn -workers N` share the primary's (workers.ts).
    server.listen({ port, exclusive: !sharedHandles, ...(host === undefined ? {} : { host }) }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/**
 * Endpoints by address, created on first use and kept (closed or open) so a port-0 address keeps
 * its port. Keep one in `c.shared(...)`: it then serves every block and survives reloads.
 */
export class HttpEndpoints<E extends HttpEndpoint = HttpEndpoint> implements Iterable<E> {
  private readonly byAddress = new Map<string, E>();

  /** The endpoint for `address`, made (closed) by `create` the first time it is asked for. */
  get(address: string, create: (address: string) => E): E {
    let endpoint = this.byAddress.get(address);
    if (!endpoint) {
      endpoint = create(address);
      this.byAddress.set(address, endpoint);
    }
    return endpoint;
  }

  /** The endpoints now open. */
  open(): E[] {
    return [...this.byAddress.values()].filter((endpoint) => endpoint.isOpen);
  }

  [Symbol.iterator](): Iterator<E> {
    return this.byAddress.values();
  }
}

/**
 * Reads an HTTP directive's optional ADDRESS (`health [ADDRESS]`) from the current line: at most
 * one argument, checked as Go's `net.SplitHostPort` does, errors at the offending token. Returns
 * `fallback` when there is none.
 */
export function parseHttpAddress(c: Dispenser, fallback: string): string {
  const args = c.remainingArgs();
  if (args.length > 1) throw c.argError();
  const address = args[0] ?? fallback;
  try {
    splitHostPort(address);
  } catch (error) {
    throw c.error(errorMessage(error));
  }
  return address;
}

/** Go's `http.NotFound`: what CoreDNS's muxes answer on every other path. */
export function notFound(_req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  res.end('404 page not found\n');
}
