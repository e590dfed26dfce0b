/**
 * The two formats spans are sent in: Zipkin's v2 JSON (`POST /api/v2/spans`, what CoreDNS's
 * zipkin-go reporter sends) and OTLP/HTTP in its JSON encoding (`POST /v1/traces`, every
 * OpenTelemetry collector accepts it with `Content-Type: application/json`; JSON rather than
 * protobuf because it needs no schema code and the collector takes both).
 */
import type { SpanRecord } from './spans.js';

/** Where the spans say they come from: the service name and, with *bind*, the listen address. */
export interface LocalEndpoint {
  readonly serviceName: string;
  readonly ip?: string | undefined;
  readonly port?: number | undefined;
}

/** A Zipkin v2 span list (zipkin2 `Span` JSON). */
export function zipkinBody(spans: readonly SpanRecord[], local: LocalEndpoint): string {
  const endpoint: Record<string, string | number> = { serviceName: local.serviceName };
  if (local.ip !== undefined) endpoint[local.ip.includes(':') ? 'ipv6' : 'ipv4'] = local.ip;
  if (local.port !== undefined && local.port > 0) endpoint['port'] = local.port;
  return JSON.stringify(
    spans.map((span) => {
      const tags: Record<string, string> = Object.fromEntries(span.tags);
      // opentracing's ext.Error as zipkin-go-opentracing reports it, with the error logged as an annotation.
      if (span.error !== undefined) tags['error'] = 'true';
      return {
        traceId: span.traceId,
        id: span.id,
        ...(span.parentId === undefined ? {} : { parentId: span.parentId }),
        name: span.name,
        ...(span.server ? { kind: 'SERVER' } : {}),
        timestamp: span.startUs,
        duration: span.durationUs,
        localEndpoint: endpoint,
        ...(span.error === undefined ? {} : { annotations: [{ timestamp: span.startUs + span.durationUs, value: `event=error error=${span.error}` }] }),
        tags,
      };
    }),
  );
}

/** OTLP span kinds (`SpanKind`): INTERNAL 1, SERVER 2. */
const KIND_INTERNAL = 1;
const KIND_SERVER = 2;
/** OTLP `Status.code` ERROR. */
const STATUS_ERROR = 2;

function stringValue(key: string, value: string): { key: string; value: { stringValue: string } } {
  return { key, value: { stringValue: value } };
}

/** An OTLP `ExportTraceServiceRequest` in JSON (IDs as hex, times as decimal strings of nanoseconds). */
export function otlpBody(spans: readonly SpanRecord[], local: LocalEndpoint, scope: { name: string; version: string }): string {
  const resource = [stringValue('service.name', local.serviceName)];
  if (local.ip !== undefined) resource.push(stringValue('server.address', local.ip));
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: resource },
        scopeSpans: [
          {
            scope,
            spans: spans.map((span) => ({
              traceId: span.traceId,
              spanId: span.id,
              ...(span.parentId === undefined ? {} : { parentSpanId: span.parentId }),
              name: span.name,
              kind: span.server ? KIND_SERVER : KIND_INTERNAL,
              // Microseconds are exact in a double; nanoseconds since the epoch are not, so they are written as text.
              startTimeUnixNano: `${span.startUs}000`,
              endTimeUnixNano: `${span.startUs + span.durationUs}000`,
              attributes: [...span.tags].map(([key, value]) => stringValue(key, value)),
              ...(span.error === undefined ? {} : { status: { code: STATUS_ERROR, message: span.error } }),
            })),
          },
        ],
      },
    ],
  });
}
