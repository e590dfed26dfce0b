/**
 * Where query lines go. A line is written as bytes straight into a buffer ({@link LineOutput});
 * format.ts says why.
 *
 * Writing one line per query with `process.stdout.write` costs a syscall per query (stdout to a
 * file or pipe is synchronous on Linux) and wakes the reader, so stdout's output collects lines
 * and writes them in one chunk every {@link DEFAULT_BATCH_MS}, or as soon as 64 KiB are waiting.
 * A chunk per event-loop turn was not enough: under load a turn carries a few queries, and the
 * pipe writes were 40 % of the busy time of the Corefile.example chain.
 */
import type { LogSink } from '@foghorn/core';

/** Flush early once this many bytes are waiting. */
export const DEFAULT_BATCH_BYTES = 64 * 1024;
/**
 * Write what collected at most this long after its first line: later than no reader notices.
 * Not shorter, because each timer firing costs Node 20 some 25-45 µs of cold timer machinery
 * (measured around a no-op callback between busy turns of the loop): at 5 ms, the 200 firings a
 * second took 2.7 µs of CPU per query from a server answering 10,000 queries a second.
 */
export const DEFAULT_BATCH_MS = 50;
/**
 * While the output asks us to wait (`write` returned false), lines keep collecting up to this
 * many bytes; past that they are written anyway and the stream buffers them, because CoreDNS
 * never drops a query line.
 */
export const MAX_PENDING_BYTES = 16 * 1024 * 1024;
/** Room past a full batch for one more line: the default format's longest (a 1,020-character name). */
const LINE_ROOM = 2048;

/**
 * A buffer lines are written into: the writer asks {@link LineOutput.reserve} for the most bytes
 * the line can take, writes it from {@link LineOutput.used} on, newline included, and hands the
 * end to {@link LineOutput.commit}.
 */
export interface LineOutput {
  /** Where the next line starts in the buffer {@link LineOutput.reserve} returns. */
  readonly used: number;
  /** A buffer with at least `bytes` free from {@link LineOutput.used} on. */
  reserve(bytes: number): Buffer;
  /** The line written since {@link LineOutput.reserve} ends (after its newline) at `end`. */
  commit(end: number): void;
}

/** The output a {@link LineBatcher} writes chunks to. */
export interface ChunkWriter {
  /** Writes a chunk; false means "wait for {@link LineBatcher.drained}". */
  write(chunk: Buffer): boolean;
  /**
   * True while the output still holds chunks it has not sent (a queued stream write): their
   * memory must not be written over, so the next batch gets a new buffer.
   */
  holds(): boolean;
}

/**
 * Collects lines and writes them in batches: `delayMs` after the first waiting line (on the next
 * `setImmediate` for 0), or at once when `maxBytes` are waiting. Call {@link LineBatcher.flush}
 * on shutdown.
 */
export class LineBatcher implements LineOutput {
  private buf: Buffer;
  used = 0;
  private scheduled = false;
  private waitingForDrain = false;

  constructor(
    private readonly out: ChunkWriter,
    private readonly maxBytes: number = DEFAULT_BATCH_BYTES,
    private readonly delayMs: number = 0,
  ) {
    this.buf = Buffer.allocUnsafeSlow(maxBytes + LINE_ROOM);
  }

  reserve(bytes: number): Buffer {
    if (this.buf.length - this.used >= bytes) return this.buf;
    // A long line near the end of the batch: send the batch first, unless the output asked to
    // wait, in which case the batch grows (up to MAX_PENDING_BYTES, see commit).
    if (!this.waitingForDrain) this.flush();
    if (this.buf.length - this.used < bytes) {
      const grown = Buffer.allocUnsafeSlow(Math.max(2 * this.buf.length, this.used + bytes));
      this.buf.copy(grown, 0, 0, this.used);
      this.buf = grown;
    }
    return this.buf;
  }

  commit(end: number): void {
    this.used = end;
    if (this.waitingForDrain) {
      if (end >= MAX_PENDING_BYTES) this.flush();
      return;
    }
    if (end >= this.maxBytes) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      if (this.delayMs === 0) setImmediate(this.onTime);
      // Unreferenced: waiting lines never keep the process alive (exit and shutdown flush them).
      else setTimeout(this.onTime, this.delayMs).unref();
    }
  }

  /** Writes whatever is waiting, now. */
  flush(): void {
    if (this.used === 0) return;
    const chunk = this.buf.subarray(0, this.used);
    this.used = 0;
    this.waitingForDrain = !this.out.write(chunk);
    // Usually the write went out at once and the buffer is used again; a queued write keeps it,
    // and one grown while the output made us wait is not kept either.
    if (this.out.holds() || this.buf.length > this.maxBytes + LINE_ROOM) this.buf = Buffer.allocUnsafeSlow(this.maxBytes + LINE_ROOM);
  }

  /** Tells the batcher the output drained: waiting lines go out. */
  drained(): void {
    this.waitingForDrain = false;
    this.flush();
  }

  private readonly onTime = (): void => {
    this.scheduled = false;
    if (!this.waitingForDrain) this.flush();
  };
}

/** Hands each line to a {@link LogSink} as a string (tests, embedding programs). */
export class SinkLines implements LineOutput {
  private buf = Buffer.allocUnsafe(4096);
  readonly used = 0;

  constructor(private readonly sink: LogSink) {}

  reserve(bytes: number): Buffer {
    if (this.buf.length < bytes) this.buf = Buffer.allocUnsafe(bytes);
    return this.buf;
  }

  commit(end: number): void {
    // Without the newline: a sink takes finished lines.
    this.sink(this.buf.toString('utf8', 0, end - 1));
  }
}

let stdoutBatcher: LineBatcher | undefined;

/** The process-wide batcher in front of stdout, created on first use. */
export function stdoutLines(): LineBatcher {
  if (stdoutBatcher === undefined) {
    const stdout = process.stdout;
    const batcher = new LineBatcher({ write: (chunk) => stdout.write(chunk), holds: () => stdout.writableLength > 0 }, DEFAULT_BATCH_BYTES, DEFAULT_BATCH_MS);
    stdout.on('drain', () => batcher.drained());
    // Lines of queries answered during the last moments (a graceful stop, SIGINT, SIGQUIT) are
    // written before the process ends: stdout to a file or pipe is synchronous on Linux.
    process.on('exit', () => batcher.flush());
    stdoutBatcher = batcher;
  }
  return stdoutBatcher;
}
