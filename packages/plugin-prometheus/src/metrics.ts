/**
 * Every metric the prometheus plugin owns, with CoreDNS's names, help texts, labels and buckets
 * (plugin/metrics/vars/vars.go and metrics.go, CoreDNS's plugin/metrics). `coredns_panics_total` is not here: the
 * core server registers it in the same registry, so it is exported all the same.
 */
import { readFileSync } from 'node:fs';
import { counterVec, gauge, histogramVec, timeBuckets } from '@foghorn/core';
import type { CounterVec, HistogramVec } from '@foghorn/core';
import { collectDefaultMetrics } from 'prom-client';
import type { Gauge, Registry } from 'prom-client';

/** CoreDNS's request and response size buckets, in bytes. */
export const sizeBuckets: readonly number[] = [0, 100, 200, 300, 400, 511, 1023, 2047, 4095, 8291, 16e3, 32e3, 48e3, 64e3];

/** The per-query metrics and the two informational gauges. */
export interface DnsMetrics {
  /** `coredns_dns_requests_total{server, zone, view, proto, family, type}` */
  readonly requests: CounterVec;
  /** `coredns_dns_request_duration_seconds{server, zone, view}` */
  readonly duration: HistogramVec;
  /** `coredns_dns_request_size_bytes{server, zone, view, proto}` */
  readonly requestSize: HistogramVec;
  /** `coredns_dns_do_requests_total{server, zone, view}` */
  readonly doRequests: CounterVec;
  /** `coredns_dns_response_size_bytes{server, zone, view, proto}` */
  readonly responseSize: HistogramVec;
  /** `coredns_dns_responses_total{server, zone, view, rcode, plugin}` */
  readonly responses: CounterVec;
  /** `coredns_plugin_enabled{server, zone, view, name}` */
  readonly pluginEnabled: Gauge<'server' | 'zone' | 'view' | 'name'>;
  /** `coredns_build_info{version, revision, goversion}` */
  readonly buildInfo: Gauge<'version' | 'revision' | 'goversion'>;
}

/**
 * Creates the metrics in `registry`, or returns the ones already there: safe to call on every
 * reload and for every server block.
 */
export function createDnsMetrics(registry: Registry): DnsMetrics {
  return {
    requests: counterVec(registry, {
      name: 'coredns_dns_requests_total',
      help: 'Counter of DNS requests made per zone, protocol and family.',
      labelNames: ['server', 'zone', 'view', 'proto', 'family', 'type'],
    }),
    duration: histogramVec(registry, {
      name: 'coredns_dns_request_duration_seconds',
      help: 'Histogram of the time (in seconds) each request took per zone.',
      labelNames: ['server', 'zone', 'view'],
      buckets: timeBuckets,
    }),
    requestSize: histogramVec(registry, {
      name: 'coredns_dns_request_size_bytes',
      // CoreDNS's help text, wrong as it is (the value is the request's length): operators grep for it.
      help: 'Size of the EDNS0 UDP buffer in bytes (64K for TCP) per zone and protocol.',
      labelNames: ['server', 'zone', 'view', 'proto'],
      buckets: sizeBuckets,
    }),
    doRequests: counterVec(registry, { name: 'coredns_dns_do_requests_total', help: 'Counter of DNS requests with DO bit set per zone.', labelNames: ['server', 'zone', 'view'] }),
    responseSize: histogramVec(registry, {
      name: 'coredns_dns_response_size_bytes',
      help: 'Size of the returned response in bytes.',
      labelNames: ['server', 'zone', 'view', 'proto'],
      buckets: sizeBuckets,
    }),
    responses: counterVec(registry, { name: 'coredns_dns_responses_total', help: 'Counter of response status codes.', labelNames: ['server', 'zone', 'view', 'rcode', 'plugin'] }),
    pluginEnabled: gauge(registry, {
      name: 'coredns_plugin_enabled',
      help: 'A metric that indicates whether a plugin is enabled on per server and zone basis.',
      labelNames: ['server', 'zone', 'view', 'name'],
    }),
    buildInfo: gauge(registry, {
      name: 'coredns_build_info',
      help: "A metric with a constant '1' value labeled by version, revision, and goversion from which CoreDNS was built.",
      labelNames: ['version', 'revision', 'goversion'],
    }),
  };
}

/** A metric every prom-client default set registers; its presence means the set is there. */
const defaultMetricsMarker = 'process_cpu_seconds_total';

/**
 * Adds prom-client's process and Node.js runtime metrics (`process_*`, `nodejs_*`), the
 * counterpart of CoreDNS's `go_*`/`process_*` collectors, once per registry.
 */
export function ensureDefaultMetrics(registry: Registry): void {
  if (registry.getSingleMetric(defaultMetricsMarker) !== undefined) return;
  collectDefaultMetrics({ register: registry });
}

/** The label values of `coredns_build_info`: the core's version and the Node.js version. */
export function buildInfoLabels(): { version: string; revision: string; goversion: string } {
  return { version: coreVersion(), revision: '', goversion: `node${process.versions.node}` };
}

function coreVersion(): string {
  try {
    const url = import.meta.resolve('@foghorn/core/package.json');
    return (JSON.parse(readFileSync(new URL(url), 'utf8')) as { version?: string }).version ?? '';
  } catch {
    // A bundled build without package.json files: the label is then empty rather than fatal.
    return '';
  }
}
