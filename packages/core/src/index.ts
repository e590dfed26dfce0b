/**
 * `@foghorn/core`: the plugin API, everything a plugin package needs and nothing more. This entry
 * point is the contract third-party plugins are published against (a `^1` peer range), so it
 * changes only in a major version; `test/api.test.ts` fails on any change to it that was not
 * reviewed. Wire-level helpers live in `@foghorn/core/wire` (experimental: they may change in a
 * minor version) and the server itself in `@foghorn/core/server` (the CLI and embedding
 * programs); plugins never import the latter.
 *
 * @module
 */

// Declaring a plugin and its place in the chain.
export { API_VERSION, definePlugin, nextOrFailure } from './plugin.js';
export type {
  ClientAuth,
  Controller,
  CorefileSource,
  Handler,
  HandlerFactory,
  HandlerResult,
  Hook,
  KeyTransport,
  PluginDefinition,
  PluginOrder,
  ServerKey,
  ServerSettings,
  TlsSettings,
} from './plugin.js';

// Cooperation between plugins: capability tokens and process-wide state.
export { AutoPathers, defineCapability, defineShared, HandlerNames, KubernetesExternals, ListenAddresses, MetadataCollectors, MetadataProviders, ReadinessProbes, Servers, Transferers, Views } from './capability.js';
export type { AutoPather, Capability, CapabilityScope, ExternalLookup, ExternalRecord, MetadataCollector, MetadataProvider, QueryMetadata, ReadinessProbe, ServiceExternals, SharedKey, Transferer, View } from './capability.js';
export { DnstapSinks, DnstapType, PluginSpans } from './observe.js';
export type { DnstapSink, Span, TapMessage } from './observe.js';

// The query and the reply.
export { Request } from './request.js';
export type { Transport } from './request.js';
export type { EdnsOption } from './wire.js';
export { Recorder, replyTo } from './response.js';
export type { ResponseWriter } from './response.js';
export { clientWrote, Rcode, rcodeToString } from './rcode.js';
export type { RcodeName } from './rcode.js';
export { lookupVia } from './lookup.js';

// Errors.
export { ConfigError, errorMessage, ErrorCode, KubeConnectionError, PluginError, PluginLoadError, StartupError, ZoneFileError } from './errors.js';
export type { ErrorCodeValue, FoghornErrorClass } from './errors.js';
export { CorefileError } from '@foghorn/corefile';

// Logging.
export { createLogger } from './logger.js';
export type { Logger, LogSink } from './logger.js';

// Reading the Corefile in setup: the dispenser (Controller's verbs) and CoreDNS's helpers.
export { Dispenser, errorAt, formatDuration, parseDuration } from '@foghorn/corefile';
export type { Token } from '@foghorn/corefile';
export { atoi, checkDirectory, durationArg, ERR_ONCE, errOnce, fallthroughZones, integerInRange, readableFile, rootedPath, zonesFromArgs } from './parse.js';
export type { ZonesFromArgsOptions } from './parse.js';
export { goRegExp, regExpGroups } from './goregexp.js';
export { pollEvery } from './poll.js';

// Zone names.
export { isSubdomain, matchZone, normalizeZone } from './keys.js';

// The DNS wire vocabulary: header layout, flags, types, classes, opcodes.
export * from './constants.js';

// Metrics.
export { counter, counterVec, CounterVec, gauge, gaugeVec, GaugeVec, histogram, histogramVec, HistogramVec, slimTimeBuckets, timeBuckets } from './metrics.js';
export type { CounterCell, HistogramCell, MetricOptions } from './metrics.js';

// HTTP endpoints of plugins such as health, ready and prometheus.
export { HttpEndpoint, HttpEndpoints, notFound, parseHttpAddress } from './http-endpoint.js';
export type { HttpEndpointOptions } from './http-endpoint.js';

// Workers (`foghorn -workers N`).
export type { WorkerAnswer, WorkerGroup } from './workers.js';
