/**
 * The trace handler (CoreDNS's plugin/trace/trace.go): one query in `every` gets a root span,
 * `servedns`, tagged with the question, the client and the rcode; core opens a child span for
 * each plugin the query enters below (`PluginSpans`). A query that is not sampled costs a
 * counter increment here and a property read per plugin below.
 */
import { clientWrote, nextOrFailure, PluginError, Rcode, Recorder, rcodeToString } from '@foghorn/core';
import type { Handler, HandlerResult, Request, ResponseWriter } from '@foghorn/core';
import { QuerySpan, randomHex } from './spans.js';
import type { SpanSink } from './spans.js';

/** The root span's name (CoreDNS's `defaultTopLevelSpanName`). */
export const ROOT_SPAN_NAME = 'servedns';

/** CoreDNS's tag names for Zipkin (`tagByProvider["default"]`). */
export const Tags = {
  name: 'coredns.io/name',
  type: 'coredns.io/type',
  rcode: 'coredns.io/rcode',
  proto: 'coredns.io/proto',
  remote: 'coredns.io/remote',
} as const;

export class Trace implements Handler {
  readonly name = 'trace';
  /** Queries seen, for `every`. */
  private count = 0;

  constructor(
    /** Trace one query in this many; 0 traces none. */
    private readonly every: number,
    private readonly sink: SpanSink,
    /** Hex digits of a trace ID: 16 for Zipkin (zipkin-go's 64-bit IDs), 32 for OTLP. */
    private readonly traceIdBytes: number,
    private readonly next: Handler | null,
  ) {}

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    // CoreDNS counts every query, and leaves one already in a span (a second trace) alone.
    if (this.every === 0 || ++this.count % this.every !== 0 || req.span !== undefined) return nextOrFailure(this.name, this.next, req, w);
    const span = new QuerySpan(this.sink, randomHex(this.traceIdBytes), ROOT_SPAN_NAME, undefined, true);
    const recorder = Recorder.over(w, false);
    req.span = span;
    let result: HandlerResult;
    try {
      result = nextOrFailure(this.name, this.next, req, recorder);
    } catch (error) {
      this.finish(req, span, recorder, error instanceof PluginError ? error.rcode : Rcode.SERVFAIL, error);
      throw error;
    }
    if (typeof result === 'number') {
      this.finish(req, span, recorder, result, undefined);
      return result;
    }
    return result.then(
      (rcode) => {
        this.finish(req, span, recorder, rcode, undefined);
        return rcode;
      },
      (error: unknown) => {
        this.finish(req, span, recorder, error instanceof PluginError ? error.rcode : Rcode.SERVFAIL, error);
        throw error;
      },
    );
  }

  /** Tags the root span as CoreDNS's `setZipkinSpanTags` does and closes it. */
  private finish(req: Request, span: QuerySpan, recorder: Recorder, status: number, error: unknown): void {
    req.span = undefined;
    span.tag(Tags.name, req.qname);
    span.tag(Tags.type, req.type);
    span.tag(Tags.proto, req.transport);
    span.tag(Tags.remote, req.remoteAddress);
    // What the client got: the reply written, unless the status is one the server writes itself.
    let rcode = recorder.rcode < 0 ? Rcode.NOERROR : recorder.rcode;
    if (!clientWrote(status)) rcode = status;
    span.tag(Tags.rcode, rcodeToString(rcode));
    span.end(error);
  }
}
