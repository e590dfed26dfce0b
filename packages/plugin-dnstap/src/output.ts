/**
 * Where a sink's batches of frames go: a collector Foghorn dials and redials (`dnstap SOCKET`),
 * or the collectors that connect to Foghorn's listener (`dnstap listen SOCKET`).
 *
 * Neither ever holds up a query. The dialler keeps batches while the collector is away or slow,
 * up to the queue's size in messages, and the sink drops (and counts) what does not fit; the
 * listener has no queue, as in CoreDNS: a collector that falls behind is disconnected.
 */
import net from 'node:net';
import tls from 'node:tls';
import { readFileSync } from 'node:fs';
import type { Logger } from '@foghorn/core';
import { FstrmWriter } from './fstrm.js';
import type { FstrmEvents } from './fstrm.js';

/** The first wait before redialling a collector that went away; it doubles up to {@link MAX_REDIAL_MS}. */
export const MIN_REDIAL_MS = 250;
/** The longest wait between dials: CoreDNS redials every 10 s (`errorCheckInterval`). */
export const MAX_REDIAL_MS = 10_000;

/** Where a sink hands its batches. */
export interface TapOutput {
  /** Whether `batched` messages more than those already waiting fit the queue. */
  hasRoom(batched: number): boolean;
  /** Takes a batch of `count` frames. */
  deliver(chunk: Buffer, count: number): void;
  start(): void;
  /** Sends what waits (briefly), says goodbye and closes. */
  close(): Promise<void>;
}

/** A collector's address: a unix socket path, or `host:port` over TCP or TLS. */
export interface Endpoint {
  readonly proto: 'unix' | 'tcp' | 'tls';
  /** The socket path, or `host:port` (IPv6 in brackets). */
  readonly address: string;
}

/** Go's text for the usual dial failures, so the log reads like CoreDNS's. */
export function dialError(endpoint: Endpoint, error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  const reason =
    code === 'ENOENT'
      ? 'no such file or directory'
      : code === 'ECONNREFUSED'
        ? 'connection refused'
        : code === 'EACCES'
          ? 'permission denied'
          : code === 'ETIMEDOUT'
            ? 'i/o timeout'
            : error.message;
  return `dial ${endpoint.proto === 'tls' ? 'tcp' : endpoint.proto} ${endpoint.address}: connect: ${reason}`;
}

function hostPort(address: string): { host: string; port: number } {
  const colon = address.lastIndexOf(':');
  const host = address.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  return { host, port: Number(address.slice(colon + 1)) };
}

/** Options of the dialler. */
export interface DialerOptions {
  readonly endpoint: Endpoint;
  /** Messages that may wait (CoreDNS's queue: 10,000 × the `queue` multiple). */
  readonly maxQueued: number;
  /** Bytes handed to the socket and not yet sent, past which batches wait in the queue instead. */
  readonly writeBufferBytes: number;
  /** TLS: accept any certificate (`skipverify`). */
  readonly skipVerify: boolean;
  readonly log: Logger;
}

/**
 * A collector Foghorn connects to. Batches wait in order while it is connecting, away or slow;
 * when the connection breaks, it redials after {@link MIN_REDIAL_MS}, doubling up to
 * {@link MAX_REDIAL_MS}, and sends what waited once the handshake is done again.
 */
export class Dialer implements TapOutput, FstrmEvents {
  private readonly waiting: Buffer[] = [];
  private readonly waitingCounts: number[] = [];
  private queued = 0;
  private conn: FstrmWriter | undefined;
  private redialMs = MIN_REDIAL_MS;
  private redialTimer: NodeJS.Timeout | undefined;
  private running = false;
  /** The connection broke (or never came up) since it was last open: log the next success. */
  private lost = false;
  private attempts = 0;

  constructor(private readonly options: DialerOptions) {}

  hasRoom(batched: number): boolean {
    return this.queued + batched < this.options.maxQueued;
  }

  deliver(chunk: Buffer, count: number): void {
    this.waiting.push(chunk);
    this.waitingCounts.push(count);
    this.queued += count;
    this.pump();
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.dial();
  }

  async close(): Promise<void> {
    this.running = false;
    clearTimeout(this.redialTimer);
    this.redialTimer = undefined;
    const conn = this.conn;
    if (conn === undefined) return;
    if (conn.isOpen) this.pump(true);
    await conn.stop();
  }

  opened(conn: FstrmWriter): void {
    if (conn !== this.conn) return;
    this.redialMs = MIN_REDIAL_MS;
    if (this.lost) this.options.log.info(`Connected to dnstap endpoint ${this.options.endpoint.address}`);
    this.lost = false;
    conn.socket.on('drain', () => this.pump());
    this.pump();
  }

  closed(conn: FstrmWriter, error: Error | undefined): void {
    if (conn !== this.conn) return;
    this.conn = undefined;
    if (!this.running) return;
    const message = error === undefined ? 'connection closed' : conn.hasOpened || this.lost ? error.message : dialError(this.options.endpoint, error);
    // CoreDNS logs a failed first dial as an error; later losses are warnings, once per outage.
    if (this.attempts === 1 && !conn.hasOpened) this.options.log.error(`No connection to dnstap endpoint: ${message}`);
    else if (!this.lost) this.options.log.warning(`Lost the dnstap endpoint ${this.options.endpoint.address}: ${message}; redialling`);
    this.lost = true;
    this.redialTimer = setTimeout(() => {
      this.redialTimer = undefined;
      this.dial();
    }, this.redialMs);
    this.redialTimer.unref();
    this.redialMs = Math.min(this.redialMs * 2, MAX_REDIAL_MS);
  }

  /** Hands waiting batches to an open connection while its socket is under the write buffer (all of them when `all`). */
  private pump(all = false): void {
    const conn = this.conn;
    if (conn === undefined || !conn.isOpen) return;
    while (this.waiting.length > 0 && (all || conn.buffered < this.options.writeBufferBytes)) {
      conn.write(this.waiting.shift()!);
      this.queued -= this.waitingCounts.shift()!;
    }
  }

  private dial(): void {
    if (!this.running) return;
    this.attempts++;
    const { endpoint, skipVerify } = this.options;
    let socket: net.Socket;
    let connectEvent = 'connect';
    if (endpoint.proto === 'unix') socket = net.connect({ path: endpoint.address });
    else if (endpoint.proto === 'tcp') socket = net.connect(hostPort(endpoint.address));
    else {
      const { host, port } = hostPort(endpoint.address);
      socket = tls.connect({ host, port, rejectUnauthorized: !skipVerify, ...(net.isIP(host) === 0 ? { servername: host } : {}) });
      connectEvent = 'secureConnect';
    }
    // Never what keeps the process alive: the DNS listeners are.
    socket.unref();
    const conn = new FstrmWriter(socket, this, false);
    this.conn = conn;
    socket.once(connectEvent, () => conn.ready());
  }
}

/** Options of the listener. */
export interface ListenerOptions {
  readonly endpoint: Endpoint;
  /** Bytes a collector may fall behind by before it is disconnected. */
  readonly writeBufferBytes: number;
  /** `tls CERT KEY [CA]`. */
  readonly tls?: { readonly cert: string; readonly key: string; readonly ca?: string | undefined } | undefined;
  /** With a CA: accept collectors without a certificate (CoreDNS's `VerifyClientCertIfGiven`). */
  readonly skipVerify: boolean;
  readonly log: Logger;
  /** Counts frames a collector lost because it was disconnected for falling behind. */
  readonly onDropped: (count: number) => void;
}

/**
 * Collectors that connect to Foghorn (`dnstap listen`): each gets the frames sent while it is
 * connected, from its handshake on; a collector that falls {@link ListenerOptions.writeBufferBytes}
 * behind loses its connection (CoreDNS closes a sink whose write fails).
 */
export class Listener implements TapOutput, FstrmEvents {
  private server: net.Server | undefined;
  private readonly conns = new Set<FstrmWriter>();

  constructor(private readonly options: ListenerOptions) {}

  hasRoom(): boolean {
    return true;
  }

  deliver(chunk: Buffer, count: number): void {
    for (const conn of this.conns) {
      if (!conn.isOpen) continue;
      if (conn.buffered > this.options.writeBufferBytes) {
        this.options.onDropped(count);
        conn.socket.destroy(new Error('the collector fell behind'));
        continue;
      }
      conn.write(chunk);
    }
  }

  start(): void {
    if (this.server) return;
    const { endpoint, log } = this.options;
    const accept = (socket: net.Socket): void => {
      this.conns.add(new FstrmWriter(socket, this, true));
    };
    let server: net.Server;
    if (endpoint.proto === 'tls') {
      const files = this.options.tls;
      if (files === undefined) {
        log.warning('TLS listener requires cert and key files');
        return;
      }
      const ca = files.ca === undefined ? undefined : readFileSync(files.ca);
      server = tls.createServer(
        {
          cert: readFileSync(files.cert),
          key: readFileSync(files.key),
          ...(ca === undefined ? {} : { ca, requestCert: true, rejectUnauthorized: !this.options.skipVerify }),
        },
        accept,
      );
    } else {
      server = net.createServer(accept);
    }
    server.on('error', (error) => log.error(`Failed to start dnstap listener: ${error.message}`));
    if (endpoint.proto === 'unix') server.listen(endpoint.address);
    else server.listen(hostPort(endpoint.address));
    server.unref();
    this.server = server;
  }

  /** The TCP port the listener bound (tests listen on port 0). */
  get port(): number {
    const address = this.server?.address();
    return typeof address === 'object' && address !== null ? address.port : 0;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    server?.close();
    await Promise.all([...this.conns].map((conn) => conn.stop()));
  }

  opened(): void {}

  closed(conn: FstrmWriter, error: Error | undefined): void {
    this.conns.delete(conn);
    if (error !== undefined && conn.hasOpened) this.options.log.warning(`dnstap collector disconnected: ${error.message}`);
  }
}
