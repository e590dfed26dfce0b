/**
 * What TCP, DoT and DoH clients may hold: connections, their memory and descriptors, buffered
 * bytes, and how long a message may take to arrive. Without these a slow client is never cut
 * off: Node's socket timeout restarts on every byte, so 3,000 connections trickling a byte every
 * 2 s into a 60 KB frame stayed open and pinned 227 MB.
 *
 * - Each frame has a deadline from its first byte: the read timeout (CoreDNS: 3 s, miekg/dns's
 *   ReadTimeout, also for the first query of a connection). Bytes arriving do not extend it.
 * - Between frames a connection waits at most the idle timeout (CoreDNS: 10 s); a partial
 *   frame is under the read deadline, so trickling extends neither.
 * - A new connection always gets in. Per listener at most `maxConnections` are open; in the whole
 *   process ({@link ConnectionBudget}) at most half the open-file limit, and connection state of
 *   at most {@link DEFAULT_MAX_CONNECTION_BYTES} (each connection counts what it costs, measured:
 *   {@link TCP_CONNECTION_BYTES}, {@link TLS_HANDSHAKE_BYTES}, {@link TLS_CONNECTION_BYTES}).
 *   Past any of them the connection idle the longest is closed (one that never sent anything is
 *   idle from its accept), or, when every one has a query in progress, the oldest one. Refusing
 *   the new connection instead let 1,000 silent clients shut DoT out for as long as they stayed.
 *   The caps are high because each connection closed for a new one is, from an attacker that
 *   reconnects at once, a new connection too: 5,000 such clients held against a cap of 1,000 kept
 *   the accept queue full, and a new client waited for a SYN retransmission (1 s, then 3 s).
 * - Descriptors can run out for other reasons (forward's upstream sockets, files). libuv then
 *   handles accept's EMFILE by itself: it closes a spare descriptor it keeps, accepts every
 *   pending connection and closes it at once, and tells Node nothing (src/unix/stream.c
 *   `uv__emfile_trick`), so new clients are reset while the old ones stay. The kernel hands out
 *   the lowest free descriptor, so a connection whose descriptor is within
 *   {@link ConnectionBudget.reserve} of the limit shows that nearly none are left: idle
 *   connections are closed then, before an accept can fail.
 * - Per listener at most `maxBufferedBytes` are held in partial frames; the connection whose
 *   frame would go past it is closed.
 *
 * {@link TcpGuard} is one listener's bookkeeping, {@link FrameReader} one connection's framing
 * (RFC 1035 §4.2.2, RFC 7858 §3.3).
 */
import type net from 'node:net';
import { defaultMaxConnections, descriptorLimit } from './limits.js';

/** Per-listener caps; the defaults are in docs/reliability.md ("Limits and their defaults"). */
export interface TcpLimits {
  /** Concurrent connections per listener (default 10,000, at most half the descriptor limit). */
  readonly maxConnections: number;
  /** Bytes of partial frames held per listener (default 16 MiB: 256 frames of 64 KiB). */
  readonly maxBufferedBytes: number;
}

export const DEFAULT_MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

/**
 * Memory the connections of all listeners may hold together, as counted by their costs below:
 * 8,192 idle TCP connections, 5,461 TLS ones in their handshake or 2,048 after it. With the
 * server's own 60 to 80 MiB this stays inside the 170 MiB kubeadm gives CoreDNS.
 */
export const DEFAULT_MAX_CONNECTION_BYTES = 64 * 1024 * 1024;
/**
 * What an idle TCP connection costs: 5.1 to 5.6 KiB of RSS measured with 5,000 of them (Node's
 * socket, libuv's handle, the framing state), plus the kernel's socket, which the cgroup counts.
 */
export const TCP_CONNECTION_BYTES = 8 * 1024;
/** A TLS connection (DoT, DoH) still in its handshake: 11 KiB of RSS measured with 3,000. */
export const TLS_HANDSHAKE_BYTES = 12 * 1024;
/** A TLS connection after its handshake (OpenSSL's session and buffers): 26 KiB measured with 2,000. */
export const TLS_CONNECTION_BYTES = 32 * 1024;

/** The defaults, the connection cap derived from this process's descriptor limit. */
export function defaultTcpLimits(): TcpLimits {
  return { maxConnections: defaultMaxConnections(), maxBufferedBytes: DEFAULT_MAX_BUFFERED_BYTES };
}

/** Read and idle timeouts (the `timeouts` directive sets them per server block). */
export interface FrameTimeouts {
  readonly readTimeoutMs: number;
  readonly idleTimeoutMs: number;
}

/** Why connections were closed to make room, for the listener's one log line each. */
export type EvictionReason = 'listener' | 'connections' | 'memory' | 'descriptors';

/**
 * One accepted connection as the caps see it: in its guard's and the budget's idle or busy list,
 * each in the order connections entered it, so the first idle one is the one idle the longest.
 */
export class GuardedConnection {
  /** In the idle lists (no partial message, no query in progress), else in the busy ones. */
  idle = true;
  released = false;
  /**
   * The socket's `bytesRead` when it went quiet. TLS (DoT, DoH) reads the TCP socket without
   * telling JavaScript until a handshake or a request is whole; bytes read since mean its client
   * is speaking (a ClientHello, a request on its way), so it is not closed as idle: it is moved
   * to the busy lists when it comes up.
   */
  quietAt = 0;

  constructor(
    /** The accepted TCP socket: destroying it frees the descriptor (under TLS too). */
    readonly socket: net.Socket,
    readonly guard: TcpGuard,
    /** What it is counted as costing, in bytes ({@link TcpGuard.secured} changes it). */
    public bytes: number,
  ) {}
}

/**
 * The connections of every listener of this process: at most half its descriptor limit (the
 * other half stays for upstream sockets, files and the listeners themselves, as Knot DNS's
 * `tcp-max-clients` default does), and at most {@link maxBytes} of their counted memory; and the
 * watch on the descriptors themselves.
 */
export class ConnectionBudget {
  readonly idle = new Set<GuardedConnection>();
  readonly busy = new Set<GuardedConnection>();
  /** The counted memory of the connections open now. */
  bytes = 0;
  /** Connections closed for the budget or for the descriptors, for tests. */
  evicted = 0;

  constructor(
    /** Connections in all listeners together; Infinity when the limit is unknown. */
    readonly maxConnections: number,
    readonly maxBytes: number,
    /** The soft RLIMIT_NOFILE, Infinity when unknown (then descriptors are not watched). */
    readonly descriptorLimit: number,
    /** Free descriptors to keep: a connection given one within this many of the limit closes idle ones. */
    readonly reserve: number,
  ) {}

  get connections(): number {
    return this.idle.size + this.busy.size;
  }
}

/** The budget of a process whose soft descriptor limit is `soft`. */
export function budgetFor(soft: number, maxBytes = DEFAULT_MAX_CONNECTION_BYTES): ConnectionBudget {
  if (!Number.isFinite(soft)) return new ConnectionBudget(Infinity, maxBytes, Infinity, 0);
  // A 32nd of the limit (32 of 1,024), at least 16 and at most 256: room for the descriptors the
  // rest of the process opens between two accepts (never more than a quarter of a tiny limit).
  const reserve = Math.min(256, Math.floor(soft / 4), Math.max(16, Math.floor(soft / 32)));
  return new ConnectionBudget(Math.max(1, Math.floor(soft / 2)), maxBytes, soft, reserve);
}

let shared: ConnectionBudget | undefined;

/** This process's budget, shared by every listener (descriptors and memory are per process). */
export function processBudget(): ConnectionBudget {
  return (shared ??= budgetFor(descriptorLimit()?.soft ?? Infinity));
}

/** The descriptor number of an accepted socket, or -1 where libuv does not say (not Unix). */
function descriptorOf(socket: net.Socket): number {
  const fd = (socket as unknown as { _handle?: { fd?: unknown } | null })._handle?.fd;
  return typeof fd === 'number' ? fd : -1;
}

/** One listener's open connections and buffered bytes. */
export class TcpGuard {
  private readonly idle = new Set<GuardedConnection>();
  private readonly busy = new Set<GuardedConnection>();
  buffered = 0;
  /** Connections this listener's cap closed, for the log and tests. */
  evicted = 0;

  constructor(
    public limits: TcpLimits,
    readonly budget: ConnectionBudget = processBudget(),
    /** Told each time connections are closed to make room (the listener logs the first of each reason). */
    readonly onEvict: (reason: EvictionReason) => void = () => undefined,
  ) {}

  get connections(): number {
    return this.idle.size + this.busy.size;
  }

  /**
   * Takes a newly accepted connection costing `bytes`, idle until {@link touch} says otherwise.
   * It always gets in: past this listener's cap or the process's budget the longest-idle
   * connection (else the oldest) is closed, and when its descriptor shows few left, idle
   * connections are closed too.
   */
  admit(socket: net.Socket, bytes: number): GuardedConnection {
    if (this.connections >= this.limits.maxConnections && this.evict(this.idle, this.busy)) {
      this.evicted++;
      this.onEvict('listener');
    }
    const budget = this.budget;
    if (budget.connections >= budget.maxConnections && this.evict(budget.idle, budget.busy)) {
      budget.evicted++;
      this.onEvict('connections');
    }
    const connection = new GuardedConnection(socket, this, bytes);
    connection.quietAt = socket.bytesRead;
    this.idle.add(connection);
    budget.idle.add(connection);
    budget.bytes += bytes;
    this.fitMemory(connection);
    const fd = descriptorOf(socket);
    const short = fd - (budget.descriptorLimit - budget.reserve) + 1;
    if (short > 0) {
      // Every descriptor below `fd` is taken: close enough connections to get the reserve back.
      for (let i = 0; i < short && this.evict(budget.idle, budget.busy, connection); i++) budget.evicted++;
      this.onEvict('descriptors');
    }
    return connection;
  }

  /**
   * The TLS handshake of `connection` is done: it costs `bytes` now (others make room if needed),
   * and it is idle from here until its client asks something.
   */
  secured(connection: GuardedConnection, bytes: number): void {
    if (connection.released) return;
    this.touch(connection, true);
    this.budget.bytes += bytes - connection.bytes;
    connection.bytes = bytes;
    this.fitMemory(connection);
  }

  /**
   * Something happened on `connection` (a chunk read, a reply sent): it moves to the end of the
   * idle or busy list, so the idle lists stay in the order connections last went quiet.
   */
  touch(connection: GuardedConnection, idle: boolean): void {
    if (connection.released) return;
    const budget = this.budget;
    (connection.idle ? this.idle : this.busy).delete(connection);
    (connection.idle ? budget.idle : budget.busy).delete(connection);
    connection.idle = idle;
    if (idle) connection.quietAt = connection.socket.bytesRead;
    (idle ? this.idle : this.busy).add(connection);
    (idle ? budget.idle : budget.busy).add(connection);
  }

  /** The connection closed; calling it again does nothing. */
  release(connection: GuardedConnection): void {
    if (connection.released) return;
    connection.released = true;
    (connection.idle ? this.idle : this.busy).delete(connection);
    (connection.idle ? this.budget.idle : this.budget.busy).delete(connection);
    this.budget.bytes -= connection.bytes;
  }

  /** Closes connections other than `kept` until the counted memory fits the budget again. */
  private fitMemory(kept: GuardedConnection): void {
    const budget = this.budget;
    if (budget.bytes <= budget.maxBytes) return;
    while (budget.bytes > budget.maxBytes && this.evict(budget.idle, budget.busy, kept)) budget.evicted++;
    this.onEvict('memory');
  }

  /** Closes the first of `idle`, else the first of `busy` (never `spare`); false when there is none. */
  private evict(idle: Set<GuardedConnection>, busy: Set<GuardedConnection>, spare?: GuardedConnection): boolean {
    const victim = firstIdle(idle, spare) ?? first(busy, spare);
    if (!victim) return false;
    victim.guard.release(victim);
    victim.socket.destroy();
    return true;
  }

  /** Reserves `bytes` for a partial frame; false when the listener's budget is spent. */
  reserve(bytes: number): boolean {
    if (this.buffered + bytes > this.limits.maxBufferedBytes) return false;
    this.buffered += bytes;
    return true;
  }

  free(bytes: number): void {
    this.buffered -= bytes;
  }
}

/**
 * The first of `idle` but `except` that is idle indeed: one whose client has spoken since it
 * went quiet ({@link GuardedConnection.quietAt}) is moved to the busy lists on the way, where
 * the next reply or request moves it back (each at most once per quiet spell, so scans stay short).
 */
function firstIdle(idle: Set<GuardedConnection>, except: GuardedConnection | undefined): GuardedConnection | undefined {
  for (const connection of idle) {
    if (connection === except) continue;
    if (connection.socket.bytesRead !== connection.quietAt) connection.guard.touch(connection, false);
    else return connection;
  }
  return undefined;
}

function first(set: Set<GuardedConnection>, except: GuardedConnection | undefined): GuardedConnection | undefined {
  for (const connection of set) if (connection !== except) return connection;
  return undefined;
}

/**
 * Splits a byte stream into DNS messages and keeps the deadlines: `onFrame` gets each complete
 * message (a view into the chunk when it arrived whole, so no copy), `onTimeout` is called when
 * a frame missed its deadline (`partial` true) or the connection sat idle too long, `onOverflow`
 * when the listener's buffer budget would be exceeded.
 */
export class FrameReader {
  /** The frame being assembled: allocated once its length is known, sized exactly. */
  private frame: Buffer | undefined;
  private filled = 0;
  /** A lone first byte of a length prefix. */
  private half = -1;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** No message has arrived yet: the read deadline runs from the connection's start. */
  private first = true;

  constructor(
    private readonly guard: TcpGuard,
    private readonly timeouts: FrameTimeouts,
    private readonly onFrame: (msg: Buffer) => boolean,
    private readonly onTimeout: (partial: boolean) => void,
    private readonly onOverflow: () => void,
  ) {
    // The first query gets the read timeout, as in miekg/dns.
    this.arm(timeouts.readTimeoutMs, true);
  }

  /** True while part of a frame (or of its prefix) has arrived. */
  get partial(): boolean {
    return this.frame !== undefined || this.half >= 0;
  }

  /** Feeds a chunk; stops early when `onFrame` returns false (the connection is closing). */
  push(chunk: Buffer): void {
    if (this.closed) return;
    const wasPartial = this.partial;
    let at = 0;
    while (at < chunk.length) {
      if (this.frame) {
        const take = Math.min(chunk.length - at, this.frame.length - this.filled);
        chunk.copy(this.frame, this.filled, at, at + take);
        this.filled += take;
        at += take;
        if (this.filled < this.frame.length) break;
        const msg = this.frame;
        this.guard.free(msg.length);
        this.frame = undefined;
        if (!this.deliver(msg)) return;
        continue;
      }
      let length: number;
      if (this.half >= 0) {
        length = (this.half << 8) | chunk[at]!;
        this.half = -1;
        at += 1;
      } else if (chunk.length - at >= 2) {
        length = chunk.readUInt16BE(at);
        at += 2;
      } else {
        this.half = chunk[at]!;
        break;
      }
      if (chunk.length - at >= length) {
        // The whole message is in this chunk: hand over a view, no copy.
        const msg = chunk.subarray(at, at + length);
        at += length;
        if (!this.deliver(msg)) return;
        continue;
      }
      if (!this.guard.reserve(length)) {
        this.closed = true;
        this.stopTimer();
        this.onOverflow();
        return;
      }
      this.frame = Buffer.allocUnsafe(length);
      this.filled = 0;
    }
    if (this.closed) return;
    // A frame that began in this chunk starts its deadline now; one still arriving keeps its own.
    if (this.partial) {
      if ((!wasPartial && !this.first) || this.timer === undefined) this.arm(this.timeouts.readTimeoutMs, true);
    } else this.arm(this.timeouts.idleTimeoutMs, false);
  }

  /** The connection is gone: release the buffer and the timer. */
  close(): void {
    if (this.frame) this.guard.free(this.frame.length);
    this.frame = undefined;
    this.closed = true;
    this.stopTimer();
  }

  private deliver(msg: Buffer): boolean {
    // Between frames the previous deadline no longer applies.
    this.stopTimer();
    this.first = false;
    if (this.onFrame(msg)) return true;
    this.closed = true;
    return false;
  }

  private arm(ms: number, partial: boolean): void {
    this.stopTimer();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.onTimeout(partial || this.partial);
    }, ms);
    this.timer.unref();
  }

  private stopTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
