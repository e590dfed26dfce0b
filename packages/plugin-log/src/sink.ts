/**
 * Where query lines go. Writing one line per query with `process.stdout.write` costs a syscall
 * per query (stdout to a file or pipe is synchronous on Linux) and wakes the reader, so the default
 * sink collects lines and writes them in one chunk every {@link DEFAULT_BATCH_MS}, or as soon as
 * 64 KiB are waiting. A chunk per event-loop turn was not enough: under load a turn carries a
 * few queries, and the pipe writes were 40 % of the busy time of the Corefile.example chain.
 */
import type { LogSink } from '@foghorn/core';

/** Flush early once this many characters are waiting (about 64 KiB of ASCII). */
export const DEFAULT_BATCH_CHARS = 64 * 1024;
/** Write what collected at most this long after its first line: later than no reader notices. */
export const DEFAULT_BATCH_MS = 5;
/**
 * While the output asks us to wait (`write` returned false), lines keep collecting up to this
 * many characters; past that they are written anyway and the stream buffers them, because
 * CoreDNS never drops a query line.
 */
export const MAX_PENDING_CHARS = 16 * 1024 * 1024;

/** The output a {@link LineBatcher} writes chunks to; returning false means "wait for drain". */
export type ChunkWriter = (chunk: string) => boolean | void;

/**
 * Collects lines and writes them in batches: `delayMs` after the first waiting line (on the next
 * `setImmediate` for 0), or at once when `maxChars` are waiting. Call {@link LineBatcher.flush}
 * on shutdown.
 */
export class LineBatcher {
  private pending = '';
  private scheduled = false;
  private waitingForDrain = false;
  /** The bound write, for use as a {@link LogSink}. */
  readonly sink: LogSink = (line) => this.write(line);

  constructor(
    private readonly out: ChunkWriter,
    private readonly maxChars: number = DEFAULT_BATCH_CHARS,
    private readonly delayMs: number = 0,
  ) {}

  /** Queues one line (no trailing newline). */
  write(line: string): void {
    this.pending += line + '\n';
    if (this.waitingForDrain) {
      if (this.pending.length >= MAX_PENDING_CHARS) this.flush();
      return;
    }
    if (this.pending.length >= this.maxChars) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      if (this.delayMs === 0) setImmediate(this.onTime);
      // Unreferenced: waiting lines never keep the process alive (exit and shutdown flush them).
      else setTimeout(this.onTime, this.delayMs).unref();
    }
  }

  /** Writes whatever is waiting, now. */
  flush(): void {
    if (this.pending === '') return;
    const chunk = this.pending;
    this.pending = '';
    this.waitingForDrain = this.out(chunk) === false;
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

let stdoutBatcher: LineBatcher | undefined;

/** The process-wide batcher in front of stdout, created on first use. */
export function stdoutLines(): LineBatcher {
  if (stdoutBatcher === undefined) {
    const batcher = new LineBatcher((chunk) => process.stdout.write(chunk), DEFAULT_BATCH_CHARS, DEFAULT_BATCH_MS);
    process.stdout.on('drain', () => batcher.drained());
    // Lines of queries answered during the last moments (a graceful stop, SIGINT, SIGQUIT) are
    // written before the process ends: stdout to a file or pipe is synchronous on Linux.
    process.on('exit', () => batcher.flush());
    stdoutBatcher = batcher;
  }
  return stdoutBatcher;
}
