/**
 * @foghorn/core: the plugin API plugin authors publish against, and the server that runs a
 * Corefile's chains.
 * @module
 */
export { Dispenser, CorefileError, errorAt, formatPosition, parseCorefile, parseDuration, formatDuration } from '@foghorn/corefile';
export type { Token, ServerBlock } from '@foghorn/corefile';
export { API_VERSION, definePlugin, nextOrFailure } from './plugin.js';
export type {
  Controller,
  Handler,
  HandlerFactory,
  HandlerResult,
  Hook,
  PluginDefinition,
  PluginOrder,
  ReadinessProbe,
  ServerKey,
  Transferer,
  ClientAuth,
  KeyTransport,
  ServerSettings,
  TlsSettings,
} from './plugin.js';
export { isIpv6Text, Request, MIN_UDP_SIZE, MAX_TCP_SIZE } from './request.js';
export type { Transport } from './request.js';
export { encodeReply, packetRcode, Recorder, replyTo, wireRcode } from './response.js';
export type { ResponseWriter } from './response.js';
export { clientWrote, Rcode, rcodeToString } from './rcode.js';
export type { RcodeName } from './rcode.js';
export { ConfigError, defineError, ErrorCode, KubeConnectionError, PluginError, PluginLoadError, StartupError } from './errors.js';
export type { ErrorCodeValue, FoghornErrorClass } from './errors.js';
export { createLogger, stdoutSink } from './logger.js';
export type { Logger, LogLevel, LogSink } from './logger.js';
export { atoi, checkDirectory, durationArg, ERR_ONCE, errOnce, fallthroughZones, integerInRange, readableFile, zonesFromArgs } from './parse.js';
export type { ZonesFromArgsOptions } from './parse.js';
export { pollEvery } from './poll.js';
export { isSubdomain, matchZone, normalizeZone, parseServerKey, reverseZones, serverLabel } from './keys.js';
export { formatIp, parseIp, to4 } from './ip.js';
export { buildInstance, Instance } from './instance.js';
export type { AddressPlan, BuildContext, CorefileSource, DirectiveEntry, HookKind } from './instance.js';
export { Server, validateCorefile } from './server.js';
export type { ListenerInfo, ServerOptions } from './server.js';
export type { ListenerEvents } from './listener.js';
export { defaultStreamTimeouts } from './listener.js';
export { defaultTlsMaxConnections } from './tls-listener.js';
export { cacheMaxAge, defaultHttp2MaxStreams, defaultHttpsMaxConnections, DOH_PATH } from './doh-listener.js';
export { RouteTable } from './routes.js';
export { DEFAULT_MAX_TCP_CONNECTIONS, defaultMaxConnections, descriptorLimit, UDP_RECEIVE_BUFFER } from './limits.js';
export type { DescriptorLimit } from './limits.js';
export { DEFAULT_MAX_BUFFERED_BYTES, defaultTcpLimits } from './tcp-limits.js';
export type { TcpLimits } from './tcp-limits.js';
export type { Route } from './routes.js';
export { emptyHeader, questionEnd, readName, readQuery, skipName, Verdict, writeOpt, writeReplyHead } from './wire.js';
export { compressReply } from './compress.js';
export * from './constants.js';
export type { EdnsOption, QueryHeader } from './wire.js';
export { listenError, listenPort, splitHostPort } from './address.js';
export type { HostPort } from './address.js';
export { classNumber, ResponseType, responseClass, typeNumber, typify } from './response-type.js';
export type { ResponseClass } from './response-type.js';
export { defaultHttpShutdownGraceMs, defaultHttpTimeoutMs, HttpEndpoint, HttpEndpoints, notFound, parseHttpAddress } from './http-endpoint.js';
export type { HttpEndpointOptions } from './http-endpoint.js';
export { counter, counterVec, CounterVec, gauge, gaugeVec, GaugeVec, histogram, histogramVec, HistogramVec, registerCollector, registerMetric, slimTimeBuckets, timeBuckets } from './metrics.js';
export type { CounterCell, HistogramCell } from './metrics.js';
export type { MetricOptions } from './metrics.js';
export { EDNS_OPTION_EDE, edeOption, replyOpt } from './edns.js';
export { goRegExp, regExpGroups } from './goregexp.js';
export { formatRR, parseRR } from './rr.js';
export { lookupVia } from './lookup.js';
export type { ReplyOptOptions } from './edns.js';
export { RFC8482_TTL, rfc8482Hinfo } from './rfc8482.js';
export { APP_NAME, appVersion } from './app.js';
export { parseZoneFile, ZoneFileError, zoneName } from './zonefile.js';
export type { ZoneFileOptions } from './zonefile.js';
export { sharedHandles } from './workers.js';
export type { WorkerAnswer, WorkerGroup } from './workers.js';
