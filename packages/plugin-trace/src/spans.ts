/**
 * Spans as the *trace* plugin keeps them: a root span per sampled query (`servedns`) and the
 * child spans core opens per plugin (`PluginSpans`), each stamped in wall-clock microseconds and
 * handed to the reporter as it ends. Only sampled queries create any of this.
 */
import { Buffer } from 'node:buffer';
import { randomFillSync } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { errorMessage } from '@foghorn/core';
import type { Span } from '@foghorn/core';

/** A finished span, the data both wire formats are written from. */
export interface SpanRecord {
  /** 16 or 32 hex digits. */
  readonly traceId: string;
  /** 16 hex digits. */
  readonly id: string;
  readonly parentId: string | undefined;
  readonly name: string;
  /** The root span of a query is the server's side of an exchange; the others are local work. */
  readonly server: boolean;
  /** Start, in microseconds since the Unix epoch. */
  readonly startUs: number;
  /** At least 1 µs, as Zipkin requires. */
  readonly durationUs: number;
  readonly tags: ReadonlyMap<string, string>;
  /** The error's message when the span failed. */
  readonly error: string | undefined;
}

/** Where finished spans go. */
export interface SpanSink {
  add(span: SpanRecord): void;
}

/** Random IDs in batches, as forward draws its query IDs: a span costs a slice of a buffer, not a syscall. */
const pool = Buffer.alloc(4096);
let poolNext = pool.length;

/** `bytes` random bytes as hex, never all zero (an ID of zeros means "none" to Zipkin and OTLP). */
export function randomHex(bytes: number): string {
  for (;;) {
    if (poolNext + bytes > pool.length) {
      randomFillSync(pool);
      poolNext = 0;
    }
    const hex = pool.toString('hex', poolNext, poolNext + bytes);
    poolNext += bytes;
    if (!/^0+$/.test(hex)) return hex;
  }
}

/** `Date.now() - performance.now()`: wall-clock time at the monotonic clock's resolution. */
let epochOffsetMs = Date.now() - performance.now();

/** Re-reads the offset between the clocks (the reporter does so per batch), following clock steps. */
export function refreshClock(): void {
  epochOffsetMs = Date.now() - performance.now();
}

function nowUs(): number {
  return Math.round((performance.now() + epochOffsetMs) * 1000);
}

/** One span of a traced query. */
export class QuerySpan implements Span {
  private readonly tags = new Map<string, string>();
  private readonly startUs = nowUs();
  private ended = false;

  constructor(
    private readonly sink: SpanSink,
    private readonly traceId: string,
    private readonly name: string,
    private readonly parentId: string | undefined,
    private readonly server: boolean,
    readonly id: string = randomHex(8),
  ) {}

  child(name: string): Span {
    return new QuerySpan(this.sink, this.traceId, name, this.id, false);
  }

  tag(key: string, value: string): void {
    this.tags.set(key, value);
  }

  end(error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.sink.add({
      traceId: this.traceId,
      id: this.id,
      parentId: this.parentId,
      name: this.name,
      server: this.server,
      startUs: this.startUs,
      durationUs: Math.max(1, nowUs() - this.startUs),
      tags: this.tags,
      error: error === undefined ? undefined : errorMessage(error),
    });
  }
}
