/**
 * One `dnstap` line of a server block: a {@link DnstapSink} that encodes each message into a
 * batch at once (encoder.ts), and hands the batch to its output {@link BATCH_MS} after the
 * first message or as soon as {@link BATCH_BYTES} are waiting.
 *
 * The query path pays for the encoding only: a message is a few dozen byte writes into a buffer
 * that is reused, with no object kept and no timer armed per query. Batches leave on a timer
 * for the reason log's do (plugin-log's sink.ts): a write per query is a syscall per query, and
 * a timer per event-loop turn fires too often.
 */
import { Buffer } from 'node:buffer';
import { performance } from 'node:perf_hooks';
import type { DnstapSink, Logger, TapMessage } from '@foghorn/core';
import { maxFrameSize, tapHeader, writeFrame } from './encoder.js';
import type { TapHeader } from './encoder.js';
import type { TapOutput } from './output.js';

/** Hand the batch over once this many bytes wait. */
export const BATCH_BYTES = 64 * 1024;
/** Hand the batch over at most this long after its first message. */
export const BATCH_MS = 50;
/** How often dropped messages are logged (CoreDNS's `errorCheckInterval`). */
export const DROP_LOG_MS = 10_000;

/** What a sink writes into every message. */
export interface SinkOptions {
  readonly full: boolean;
  readonly identity: string;
  readonly version: string;
  readonly extra: string;
  /** The endpoint as written, for the drop counter's label and the log. */
  readonly endpoint: string;
}

export class TapSink implements DnstapSink {
  readonly full: boolean;
  private readonly header: TapHeader;
  private buf = Buffer.allocUnsafeSlow(2 * BATCH_BYTES);
  private used = 0;
  private count = 0;
  private scheduled = false;
  /** `Date.now() - performance.now()`, refreshed per batch: wall-clock times at the monotonic clock's resolution, never more than a batch behind a clock step. */
  private epochOffsetMs = Date.now() - performance.now();
  private droppedSinceLog = 0;
  private dropTimer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(
    options: SinkOptions,
    readonly output: TapOutput,
    private readonly countDropped: (count: number) => void,
    private readonly log: Logger,
  ) {
    this.full = options.full;
    this.header = tapHeader(options.identity, options.version, options.extra);
  }

  tap(message: TapMessage): void {
    if (!this.output.hasRoom(this.count + 1)) return this.drop(1);
    const need = maxFrameSize(message, this.header);
    if (this.buf.length - this.used < need) {
      this.flush();
      if (this.buf.length < need) this.buf = Buffer.allocUnsafeSlow(need);
    }
    this.used = writeFrame(this.buf, this.used, message, this.header, this.epochOffsetMs);
    this.count++;
    if (this.used >= BATCH_BYTES) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      // Unreferenced: waiting messages never keep the process alive (close flushes them).
      setTimeout(this.onTime, BATCH_MS).unref();
    }
  }

  /** Hands what waits to the output now. */
  flush(): void {
    this.epochOffsetMs = Date.now() - performance.now();
    if (this.used === 0) return;
    // A copy of the batch: the output keeps it until sent, and the buffer is written again at once.
    const chunk = Buffer.allocUnsafeSlow(this.used);
    this.buf.copy(chunk, 0, 0, this.used);
    const count = this.count;
    this.used = 0;
    this.count = 0;
    this.output.deliver(chunk, count);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.output.start();
    this.dropTimer = setInterval(() => this.logDropped(), DROP_LOG_MS);
    this.dropTimer.unref();
  }

  async close(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    clearInterval(this.dropTimer);
    this.flush();
    this.logDropped();
    await this.output.close();
  }

  private drop(count: number): void {
    this.droppedSinceLog += count;
    this.countDropped(count);
  }

  private logDropped(): void {
    if (this.droppedSinceLog === 0) return;
    this.log.warning(`Dropped dnstap messages: ${this.droppedSinceLog}`);
    this.droppedSinceLog = 0;
  }

  private readonly onTime = (): void => {
    this.scheduled = false;
    this.flush();
  };
}
