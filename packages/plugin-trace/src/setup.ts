/**
 * trace: parsing `trace [ENDPOINT-TYPE] [ENDPOINT] { every; service; client_server;
 * datadog_analytics_rate; zipkin_max_backlog_size; zipkin_max_batch_size;
 * zipkin_max_batch_interval }` (CoreDNS v1.14's plugin/trace/setup.go, with its error texts),
 * plus the `otlp` endpoint type, and wiring the reporter into the lifecycle.
 */
import { durationArg, errorMessage, ListenAddresses, PluginSpans } from '@foghorn/core';
import type { Controller } from '@foghorn/core';
import { Trace } from './handler.js';
import { DEFAULT_BATCH_INTERVAL_MS, DEFAULT_BATCH_SIZE, DEFAULT_MAX_BACKLOG, Reporter } from './reporter.js';
import { otlpBody, zipkinBody } from './wire.js';
import type { LocalEndpoint } from './wire.js';

export type EndpointType = 'zipkin' | 'datadog' | 'otlp';

/** One block's `trace`. */
export interface TraceOptions {
  readonly endpointType: EndpointType;
  /** The collector: a URL for zipkin and otlp, `host:port` for datadog. */
  readonly endpoint: string;
  /** Trace one query in this many; 0 traces none. */
  readonly every: number;
  readonly serviceName: string;
  readonly clientServer: boolean;
  readonly datadogAnalyticsRate: number;
  /** 0 = the reporter's default. */
  readonly zipkinMaxBacklogSize: number;
  readonly zipkinMaxBatchSize: number;
  readonly zipkinMaxBatchIntervalMs: number;
}

/** Each type's default endpoint (CoreDNS's `supportedProviders`, and OTLP/HTTP's port). */
const defaultEndpoints: Readonly<Record<EndpointType, string>> = { zipkin: 'localhost:9411', datadog: 'localhost:8126', otlp: 'localhost:4318' };
/** Where each HTTP type posts when ENDPOINT is not a URL. */
const paths: Readonly<Partial<Record<EndpointType, string>>> = { zipkin: '/api/v2/spans', otlp: '/v1/traces' };
export const DEFAULT_SERVICE_NAME = 'coredns';

/** CoreDNS's `normalizeEndpoint`: `HOST:PORT` becomes `http://HOST:PORT/api/v2/spans` (OTLP: `/v1/traces`). */
function normalizeEndpoint(c: Controller, type: string, endpoint: string | undefined): { endpointType: EndpointType; endpoint: string } {
  if (!Object.hasOwn(defaultEndpoints, type)) throw c.error(`tracing endpoint type '${type}' is not supported`);
  const endpointType = type as EndpointType;
  let url = endpoint ?? defaultEndpoints[endpointType];
  const path = paths[endpointType];
  if (path !== undefined) {
    if (!url.includes('http')) url = `http://${url}${path}`;
    try {
      new URL(url);
    } catch {
      throw c.error(`invalid tracing endpoint '${url}'`);
    }
  }
  return { endpointType, endpoint: url };
}

function oneArg(c: Controller): string {
  const args = c.remainingArgs();
  if (args.length !== 1) throw c.argError();
  return args[0]!;
}

/** Go's `strconv.ParseBool`. */
function parseBool(c: Controller, text: string): boolean {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  throw c.error(`strconv.ParseBool: parsing ${JSON.stringify(text)}: invalid syntax`);
}

/** Go's `strconv.Atoi`, unsigned or not. */
function parseInteger(c: Controller, text: string, func: 'ParseUint' | 'Atoi'): number {
  const ok = func === 'ParseUint' ? /^\d+$/.test(text) : /^[+-]?\d+$/.test(text);
  if (!ok) throw c.error(`strconv.${func}: parsing ${JSON.stringify(text)}: invalid syntax`);
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw c.error(`strconv.${func}: parsing ${JSON.stringify(text)}: value out of range`);
  return value;
}

/** Parses every `trace` line of the block; as in CoreDNS, later lines override earlier ones. Pure. */
export function parseTrace(c: Controller): TraceOptions {
  let target = normalizeEndpoint(c, 'zipkin', undefined);
  let every = 1;
  let serviceName = DEFAULT_SERVICE_NAME;
  let clientServer = false;
  let datadogAnalyticsRate = 0;
  let zipkinMaxBacklogSize = 0;
  let zipkinMaxBatchSize = 0;
  let zipkinMaxBatchIntervalMs = 0;
  while (c.next()) {
    const args = c.remainingArgs();
    if (args.length > 2) throw c.argError();
    target = args.length === 2 ? normalizeEndpoint(c, args[0]!.toLowerCase(), args[1]) : normalizeEndpoint(c, 'zipkin', args[0]);
    while (c.nextBlock()) {
      switch (c.val()) {
        case 'every':
          every = parseInteger(c, oneArg(c), 'ParseUint');
          break;
        case 'service':
          serviceName = oneArg(c);
          break;
        case 'client_server': {
          const values = c.remainingArgs();
          if (values.length > 1) throw c.argError();
          clientServer = values.length === 0 ? true : parseBool(c, values[0]!);
          break;
        }
        case 'datadog_analytics_rate': {
          const values = c.remainingArgs();
          if (values.length > 1) throw c.argError();
          datadogAnalyticsRate = 0;
          if (values.length === 1) {
            const text = values[0]!;
            const rate = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text) ? Number(text) : NaN;
            if (Number.isNaN(rate)) throw c.error(`strconv.ParseFloat: parsing ${JSON.stringify(text)}: invalid syntax`);
            if (rate > 1 || rate < 0) throw c.error(`datadog analytics rate must be between 0 and 1, '${rate.toFixed(6)}' is not supported`);
            datadogAnalyticsRate = rate;
          }
          break;
        }
        case 'zipkin_max_backlog_size':
          zipkinMaxBacklogSize = parseInteger(c, oneArg(c), 'Atoi');
          break;
        case 'zipkin_max_batch_size':
          zipkinMaxBatchSize = parseInteger(c, oneArg(c), 'Atoi');
          break;
        case 'zipkin_max_batch_interval':
          zipkinMaxBatchIntervalMs = durationArg(c, oneArg(c));
          break;
        default:
          throw c.error(`unknown property '${c.val()}'`);
      }
    }
  }
  return { ...target, every, serviceName, clientServer, datadogAnalyticsRate, zipkinMaxBacklogSize, zipkinMaxBatchSize, zipkinMaxBatchIntervalMs };
}

/** The package's name and version, the OTLP instrumentation scope. */
const scope = { name: '@foghorn/plugin-trace', version: '0.1.0' };

/** Parses, then adds the handler and asks core for per-plugin spans; the reporter starts in onStartup. */
export function setup(c: Controller): void {
  const options = parseTrace(c);
  if (options.endpointType === 'datadog') {
    // Not implemented: the block serves untraced rather than failing a Corefile CoreDNS accepts.
    c.onStartup(() => c.log.warning(`endpoint type 'datadog' is not supported by Foghorn: no spans are sent to ${options.endpoint}`));
    c.addHandler((next) => new Trace(0, { add() {} }, 8, next));
    return;
  }
  // CoreDNS's serviceEndpoint: the block's first bind address and its port, when bound.
  const local: { -readonly [K in keyof LocalEndpoint]: LocalEndpoint[K] } = { serviceName: options.serviceName };
  const listen = c.use(ListenAddresses);
  const port = c.keys[0]?.port;
  const encode = options.endpointType === 'otlp' ? (spans: Parameters<typeof zipkinBody>[0]) => otlpBody(spans, local, scope) : (spans: Parameters<typeof zipkinBody>[0]) => zipkinBody(spans, local);
  const reporter = new Reporter({
    url: new URL(options.endpoint),
    batchSize: options.zipkinMaxBatchSize || DEFAULT_BATCH_SIZE,
    batchIntervalMs: options.zipkinMaxBatchIntervalMs || DEFAULT_BATCH_INTERVAL_MS,
    maxBacklog: options.zipkinMaxBacklogSize || DEFAULT_MAX_BACKLOG,
    encode,
    log: c.log,
  });
  c.provide(PluginSpans, c.directive);
  c.onStartup(() => {
    if (listen.length > 0) {
      local.ip = listen[0];
      local.port = port;
    }
    reporter.start();
  });
  c.onShutdown(() => reporter.close().catch((error: unknown) => c.log.warning(`closing the reporter: ${errorMessage(error)}`)));
  c.addHandler((next) => new Trace(options.every, reporter, options.endpointType === 'otlp' ? 16 : 8, next));
}
