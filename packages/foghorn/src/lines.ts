/**
 * Whole lines from several writers on one output: the primary of `foghorn -workers N` reads each
 * worker's stdout and stderr through a pipe and writes them to its own, and a pipe delivers a
 * worker's bytes in chunks that need not end at a line's end. Each {@link LineJoiner} passes on
 * only complete lines and keeps the partial tail until its newline arrives, so two workers'
 * lines never interleave mid-line, whatever their size or the output's (a pipe's 4 KiB atomic
 * writes do not matter: the primary is the output's only writer).
 */
import type { Readable, Writable } from 'node:stream';

/** A tail longer than this is written out as a line of its own rather than kept growing. */
const MAX_TAIL = 1 << 20;

/**
 * One output shared by several joiners: while it is full (write returned false) every source
 * pauses, and the next 'drain' resumes them all, so a slow stdout slows the workers instead of
 * filling the primary's memory.
 */
export class SharedOutput {
  private readonly paused = new Set<Readable>();

  constructor(readonly out: Writable) {}

  write(data: Buffer, source: Readable): void {
    if (this.out.write(data) || this.paused.has(source)) return;
    source.pause();
    if (this.paused.size === 0) this.out.once('drain', () => this.resumeAll());
    this.paused.add(source);
  }

  private resumeAll(): void {
    for (const source of this.paused) source.resume();
    this.paused.clear();
  }
}

/** Copies `source` to `output` in whole lines; a tail without newline is ended by one at the end. */
export class LineJoiner {
  private tail: Buffer[] = [];
  private tailLength = 0;

  constructor(
    private readonly source: Readable,
    private readonly output: SharedOutput,
  ) {
    source.on('data', (chunk: Buffer) => this.push(chunk));
    source.on('end', () => this.flush());
  }

  private push(chunk: Buffer): void {
    const last = chunk.lastIndexOf(10);
    if (last < 0) {
      this.keep(chunk);
      if (this.tailLength > MAX_TAIL) this.flush();
      return;
    }
    const lines = chunk.subarray(0, last + 1);
    this.output.write(this.tailLength > 0 ? Buffer.concat([...this.tail, lines]) : lines, this.source);
    this.tail = [];
    this.tailLength = 0;
    if (last + 1 < chunk.length) this.keep(chunk.subarray(last + 1));
  }

  private keep(piece: Buffer): void {
    this.tail.push(piece);
    this.tailLength += piece.length;
  }

  /** Writes what is left, ended with a newline, so the next writer starts on a line of its own. */
  private flush(): void {
    if (this.tailLength === 0) return;
    const rest = Buffer.concat([...this.tail, Buffer.from('\n')]);
    this.tail = [];
    this.tailLength = 0;
    this.output.write(rest, this.source);
  }
}
