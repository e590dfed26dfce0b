/**
 * What observability plugins offer the rest of the chain: dnstap sinks (*dnstap*), which
 * *forward* finds in its block to log the messages it exchanges with upstreams, and per-plugin
 * tracing spans (*trace*), which core opens around each plugin a traced query enters.
 *
 * Both cost nothing where they are not configured: a block without *dnstap* has no sink to
 * call, and a block without *trace* links its chain exactly as before (instance.ts).
 */
import { defineCapability } from './capability.js';
import type { Capability } from './capability.js';
import type { HandlerResult, Handler } from './plugin.js';
import type { Request, Transport } from './request.js';
import type { ResponseWriter } from './response.js';

/** dnstap.proto's `Message.Type` numbers. */
export const DnstapType = {
  AUTH_QUERY: 1,
  AUTH_RESPONSE: 2,
  RESOLVER_QUERY: 3,
  RESOLVER_RESPONSE: 4,
  CLIENT_QUERY: 5,
  CLIENT_RESPONSE: 6,
  FORWARDER_QUERY: 7,
  FORWARDER_RESPONSE: 8,
  STUB_QUERY: 9,
  STUB_RESPONSE: 10,
  TOOL_QUERY: 11,
  TOOL_RESPONSE: 12,
  UPDATE_QUERY: 13,
  UPDATE_RESPONSE: 14,
} as const;

/**
 * One dnstap message (dnstap.proto's `Message`), as a plugin hands it to a {@link DnstapSink}.
 * The sink adds its identity, version and extra text and encodes it off the caller's path.
 */
export interface TapMessage {
  /** A {@link DnstapType} number. */
  readonly type: number;
  /** The socket's protocol (DoT and DoH are `tcp`, as CoreDNS reports them). */
  readonly transport: Transport;
  /** The querier's end of the socket: the client for CLIENT_*, Foghorn's own socket for FORWARDER_*. */
  readonly queryAddress?: string | undefined;
  readonly queryPort?: number | undefined;
  /** The responder's end: the upstream for FORWARDER_*; unset for CLIENT_*, as in CoreDNS. */
  readonly responseAddress?: string | undefined;
  readonly responsePort?: number | undefined;
  /** When the query was sent or received, in `performance.now()` milliseconds. */
  readonly queryTime: number;
  /** When the response was sent or received, in `performance.now()` milliseconds. */
  readonly responseTime?: number | undefined;
  /** The query's wire bytes; set only when the sink is {@link DnstapSink.full}. */
  readonly queryMessage?: Uint8Array | undefined;
  /** The response's wire bytes; set only when the sink is {@link DnstapSink.full}. */
  readonly responseMessage?: Uint8Array | undefined;
}

/** Where a plugin sends dnstap messages: one `dnstap` line of its server block. */
export interface DnstapSink {
  /** `full`: the sink logs the wire messages, so the plugin includes them. */
  readonly full: boolean;
  /** Queues `message`; never blocks and never throws (a full queue drops and counts it). */
  tap(message: TapMessage): void;
}

/**
 * The block's dnstap sinks, in Corefile order: *dnstap* provides one per line, and *forward*
 * logs FORWARDER_QUERY and FORWARDER_RESPONSE to each (CoreDNS's `SetTapPlugin`).
 *
 * @example
 * const sinks = c.use(DnstapSinks);   // empty in a block without dnstap: nothing to do per query
 * for (const sink of sinks) sink.tap({ type: DnstapType.FORWARDER_QUERY, transport: 'udp', queryTime });
 */
export const DnstapSinks: Capability<DnstapSink> = defineCapability<DnstapSink>('dnstap', 'block');

/** A tracing span: the query in the plugin that opened it. */
export interface Span {
  /** Opens a span inside this one (core opens one per plugin; *forward* one per upstream exchange). */
  child(name: string): Span;
  /** Sets a tag (a Zipkin tag, an OTLP attribute). */
  tag(key: string, value: string): void;
  /** Closes the span; `error` marks it failed. */
  end(error?: unknown): void;
}

/**
 * Per-plugin spans in a server block. The provider (*trace*) offers its directive name; core
 * then links every plugin after it so that a query carrying a span in {@link Request.span}
 * gets a child span named after each plugin it enters, closed when that plugin's answer has
 * settled, as CoreDNS's `NextOrFailure` does. A query without a span (not sampled) costs one
 * property read per plugin; a block without a provider is linked as if spans did not exist.
 */
export const PluginSpans: Capability<string> = defineCapability<string>('spans', 'block');

/**
 * Runs `handler` inside a child span of the query's span: the link of a traced chain, for a
 * query that carries one. The query's span is the child while the plugin runs (and until its
 * answer settles), so the plugins it calls nest under it.
 */
export function serveInSpan(req: Request, w: ResponseWriter, name: string, handler: Handler): HandlerResult {
  const parent = req.span as Span;
  const span = parent.child(name);
  req.span = span;
  let result: HandlerResult;
  try {
    result = handler.serveDNS(req, w);
  } catch (error) {
    req.span = parent;
    span.end(error);
    throw error;
  }
  if (typeof result === 'number') {
    req.span = parent;
    span.end();
    return result;
  }
  return result.then(
    (rcode) => {
      req.span = parent;
      span.end();
      return rcode;
    },
    (error: unknown) => {
      req.span = parent;
      span.end(error);
      throw error;
    },
  );
}
