/**
 * One Frame Streams connection on which Foghorn is the writer, in bidirectional mode as
 * CoreDNS's encoder (golang-framestream with `Bidirectional: true`):
 *
 *   writer                    collector (fstrm_capture, dnstap -u, ...)
 *     READY  (content type) ──►
 *            ◄── ACCEPT (content type)
 *     START  (content type) ──►
 *     data frames ...       ──►
 *     STOP                  ──►
 *            ◄── FINISH
 *
 * The same for a connection Foghorn dialled (`dnstap SOCKET`) and one a collector opened to
 * Foghorn's listener (`dnstap listen SOCKET`).
 */
import type { Socket } from 'node:net';
import { Buffer } from 'node:buffer';
import { CONTENT_TYPE, Control, controlFrame, readControlFrames } from './encoder.js';

/** How long the handshake and the goodbye may take (CoreDNS's `tcpTimeout`, 4 s). */
export const HANDSHAKE_TIMEOUT_MS = 4_000;
/** How long close waits for the collector's FINISH. */
export const FINISH_TIMEOUT_MS = 1_000;

const READY = controlFrame(Control.READY);
const START = controlFrame(Control.START);
const STOP = controlFrame(Control.STOP);

/** What a connection tells its owner. */
export interface FstrmEvents {
  /** The handshake is done: data frames may be written. */
  opened(conn: FstrmWriter): void;
  /** The connection is gone; `error` says why when it failed (not after {@link FstrmWriter.stop}). */
  closed(conn: FstrmWriter, error: Error | undefined): void;
}

/** A writer's side of one Frame Streams connection over `socket` (connecting or connected). */
export class FstrmWriter {
  /** True between ACCEPT and the end: data frames go out. */
  isOpen = false;
  /** The handshake completed at some point (the connection may be gone since). */
  hasOpened = false;
  private pending: Buffer = Buffer.alloc(0);
  private timer: NodeJS.Timeout | undefined;
  private stopping: (() => void) | undefined;
  private error: Error | undefined;
  private ended = false;

  constructor(
    readonly socket: Socket,
    private readonly events: FstrmEvents,
    /** The socket is already connected (accepted by a listener): say READY now. */
    connected: boolean,
  ) {
    socket.setNoDelay?.(false);
    socket.on('data', (data: Buffer) => this.read(data));
    socket.on('error', (error) => {
      this.error ??= error;
    });
    socket.on('close', () => this.end());
    this.timer = setTimeout(() => socket.destroy(new Error('i/o timeout')), HANDSHAKE_TIMEOUT_MS);
    this.timer.unref();
    if (connected) this.ready();
  }

  /** The socket connected: start the handshake. */
  ready(): void {
    this.socket.write(READY);
  }

  /** Writes data frames; false when the socket asks to wait for 'drain'. */
  write(chunk: Buffer): boolean {
    return this.socket.write(chunk);
  }

  /** Bytes written and not yet handed to the kernel. */
  get buffered(): number {
    return this.socket.writableLength;
  }

  /**
   * Says STOP and waits (at most {@link FINISH_TIMEOUT_MS}) for FINISH, then closes. A
   * connection still in its handshake is just closed.
   */
  stop(): Promise<void> {
    if (this.ended) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.stopping = resolve;
      if (!this.isOpen) {
        this.socket.destroy();
        return;
      }
      this.socket.write(STOP);
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.socket.destroy(), FINISH_TIMEOUT_MS);
      this.timer.unref();
    });
  }

  private read(data: Buffer): void {
    this.pending = this.pending.length === 0 ? data : Buffer.concat([this.pending, data]);
    let parsed: ReturnType<typeof readControlFrames>;
    try {
      parsed = readControlFrames(this.pending);
    } catch (error) {
      this.socket.destroy(error as Error);
      return;
    }
    this.pending = this.pending.subarray(parsed.used);
    for (const frame of parsed.frames) {
      if (frame.type === Control.ACCEPT && !this.isOpen) {
        if (frame.contentTypes.length > 0 && !frame.contentTypes.includes(CONTENT_TYPE)) {
          this.socket.destroy(new Error(`the collector does not accept content type '${CONTENT_TYPE}'`));
          return;
        }
        clearTimeout(this.timer);
        this.timer = undefined;
        this.socket.write(START);
        this.isOpen = true;
        this.hasOpened = true;
        this.events.opened(this);
      } else if (frame.type === Control.FINISH) {
        this.socket.end();
      }
    }
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.isOpen = false;
    clearTimeout(this.timer);
    const stopping = this.stopping;
    this.events.closed(this, stopping ? undefined : (this.error ?? new Error('connection closed by the collector')));
    stopping?.();
  }
}
