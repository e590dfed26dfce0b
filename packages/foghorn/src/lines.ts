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
/** Distinct lines a collapsing window remembers; past that, further new lines pass as they are. */
const MAX_REMEMBERED = 10_000;

/**
 * One output shared by several joiners: while it is full (write returned false) every source
 * pauses, and the next 'drain' resumes them all, so a slow stdout slows the workers instead of
 * filling the primary's memory.
 */
export class SharedOutput {
  private readonly paused = new Set<Readable>();
  private window: Collapse | undefined;

  constructor(readonly out: Writable) {}

  /**
   * Until the returned function is called, a line several sources write alike is written once
   * (as many times as the source that wrote it most often): N workers starting from one Corefile
   * print the same plugin lines, which a single process prints once.
   */
  collapse(): () => void {
    const window = new Collapse();
    this.window = window;
    return () => {
      if (this.window === window) this.window = undefined;
    };
  }

  write(data: Buffer, source: Readable): void {
    if (this.window !== undefined) {
      data = this.window.filter(data, source);
      if (data.length === 0) return;
    }
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

/** The lines of a {@link SharedOutput.collapse} window: how often each was written, in all and per source. */
class Collapse {
  private readonly written = new Map<string, number>();
  private readonly bySource = new Map<Readable, Map<string, number>>();

  /** The whole lines of `data` to write: those `source` writes more often than anyone did. */
  filter(data: Buffer, source: Readable): Buffer {
    let counts = this.bySource.get(source);
    if (counts === undefined) this.bySource.set(source, (counts = new Map()));
    const kept: Buffer[] = [];
    for (let start = 0; start < data.length; ) {
      const end = data.indexOf(10, start) + 1 || data.length;
      const line = data.subarray(start, end);
      const text = line.toString('latin1');
      const count = (counts.get(text) ?? 0) + 1;
      const written = this.written.get(text);
      if (written === undefined && this.written.size >= MAX_REMEMBERED) kept.push(line);
      else {
        counts.set(text, count);
        if (count > (written ?? 0)) {
          this.written.set(text, count);
          kept.push(line);
        }
      }
      start = end;
    }
    return kept.length === 1 ? kept[0]! : Buffer.concat(kept);
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
