/**
 * What a TCP (or DoT) client may hold: connections and buffered bytes per listener, and how long
 * a message may take to arrive. Without these a slow client is never cut off: Node's socket
 * timeout restarts on every byte, so 3,000 connections trickling a byte every 2 s into a 60 KB
 * frame stayed open and pinned 227 MB.
 *
 * - Each frame has a deadline from its first byte: the read timeout (CoreDNS: 3 s, miekg/dns's
 *   ReadTimeout, also for the first query of a connection). Bytes arriving do not extend it.
 * - Between frames a connection waits at most the idle timeout (CoreDNS: 10 s); a partial
 *   frame is under the read deadline, so trickling extends neither.
 * - Per listener at most `maxConnections` are open. A new connection past the cap closes the
 *   oldest idle one (no partial frame, no query in flight), so idle hoarders cannot lock clients
 *   out; when none is idle the new one is refused.
 * - Per listener at most `maxBufferedBytes` are held in partial frames; the connection whose
 *   frame would go past it is closed.
 *
 * {@link TcpGuard} is one listener's bookkeeping, {@link FrameReader} one connection's framing
 * (RFC 1035 §4.2.2, RFC 7858 §3.3).
 */
import type net from 'node:net';
import { defaultMaxConnections } from './limits.js';

/** Per-listener caps; the defaults are in the repository README. */
export interface TcpLimits {
  /** Concurrent connections per listener (default 1,000, at most half the descriptor limit). */
  readonly maxConnections: number;
  /** Bytes of partial frames held per listener (default 16 MiB: 256 frames of 64 KiB). */
  readonly maxBufferedBytes: number;
}

export const DEFAULT_MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

/** The defaults, the connection cap derived from this process's descriptor limit. */
export function defaultTcpLimits(): TcpLimits {
  return { maxConnections: defaultMaxConnections(), maxBufferedBytes: DEFAULT_MAX_BUFFERED_BYTES };
}

/** Read and idle timeouts (the `timeouts` directive sets them per server block). */
export interface FrameTimeouts {
  readonly readTimeoutMs: number;
  readonly idleTimeoutMs: number;
}

/** One connection as the guard sees it. */
export interface GuardedConnection {
  readonly socket: net.Socket;
  /** No partial frame and no query in flight: the first to go when the cap is reached. */
  readonly idle: boolean;
}

/** One listener's open connections (oldest first) and buffered bytes. */
export class TcpGuard {
  private readonly open = new Set<GuardedConnection>();
  buffered = 0;
  /** Connections refused or closed by the caps, for the log and tests. */
  refused = 0;
  evicted = 0;

  constructor(public limits: TcpLimits) {}

  get connections(): number {
    return this.open.size;
  }

  /**
   * Takes a new connection: true when it may stay. At the cap the oldest idle connection is
   * closed to make room; when none is idle the new connection is refused.
   */
  admit(connection: GuardedConnection): boolean {
    if (this.open.size >= this.limits.maxConnections) {
      let victim: GuardedConnection | undefined;
      for (const other of this.open) {
        if (other.idle) {
          victim = other;
          break;
        }
      }
      if (!victim) {
        this.refused++;
        return false;
      }
      this.evicted++;
      this.open.delete(victim);
      victim.socket.destroy();
    }
    this.open.add(connection);
    return true;
  }

  release(connection: GuardedConnection): void {
    this.open.delete(connection);
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
