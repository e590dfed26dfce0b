/**
 * Every metric forward owns, with current CoreDNS's names, help texts, labels and buckets
 * (plugin/forward/metrics.go and plugin/pkg/proxy/metrics.go). Since CoreDNS 1.11 the
 * per-upstream metrics are `coredns_proxy_*` with `proxy_name="forward"`; the older
 * `coredns_forward_requests_total` and friends no longer exist there, so they are not exported here.
 *
 * The three a query touches (the duration and the connection cache hit or miss) are core's cell
 * vecs: a row is resolved once per upstream and label set and a query adds to numbers, instead
 * of prom-client hashing the label values on every observation. They print as prom-client's
 * metrics would, so `/metrics` reads the same.
 */
import { counter, counterVec, histogramVec, timeBuckets } from '@foghorn/core';
import type { CounterVec, HistogramVec } from '@foghorn/core';
import type { Counter, Registry } from 'prom-client';

/** The metric objects, shared by every forward in the process. */
export interface ForwardMetrics {
  /** `coredns_forward_healthcheck_broken_total`: every upstream was down for a query. */
  readonly healthcheckBroken: Counter;
  /** `coredns_forward_max_concurrent_rejects_total` */
  readonly maxConcurrentRejects: Counter;
  /** `coredns_proxy_request_duration_seconds{proxy_name, to, rcode}` */
  readonly requestDuration: HistogramVec;
  /** `coredns_proxy_healthcheck_failures_total{proxy_name, to}` */
  readonly healthcheckFailures: Counter<'proxy_name' | 'to'>;
  /** `coredns_proxy_conn_cache_hits_total{proxy_name, to, proto}` */
  readonly connCacheHits: CounterVec;
  /** `coredns_proxy_conn_cache_misses_total{proxy_name, to, proto}` */
  readonly connCacheMisses: CounterVec;
}

/**
 * Creates the metrics in `registry`, or returns the ones already there: safe on every reload and
 * for every server block.
 */
export function createForwardMetrics(registry: Registry): ForwardMetrics {
  return {
    healthcheckBroken: counter(registry, { name: 'coredns_forward_healthcheck_broken_total', help: 'Counter of the number of complete failures of the healthchecks.' }),
    maxConcurrentRejects: counter(registry, {
      name: 'coredns_forward_max_concurrent_rejects_total',
      help: 'Counter of the number of queries rejected because the concurrent queries were at maximum.',
    }),
    requestDuration: histogramVec(registry, {
      name: 'coredns_proxy_request_duration_seconds',
      help: 'Histogram of the time each request took.',
      labelNames: ['proxy_name', 'to', 'rcode'],
      buckets: timeBuckets,
    }),
    healthcheckFailures: counter(registry, {
      name: 'coredns_proxy_healthcheck_failures_total',
      help: 'Counter of the number of failed healthchecks.',
      labelNames: ['proxy_name', 'to'],
    }),
    connCacheHits: counterVec(registry, {
      name: 'coredns_proxy_conn_cache_hits_total',
      help: 'Counter of connection cache hits per upstream and protocol.',
      labelNames: ['proxy_name', 'to', 'proto'],
    }),
    connCacheMisses: counterVec(registry, {
      name: 'coredns_proxy_conn_cache_misses_total',
      help: 'Counter of connection cache misses per upstream and protocol.',
      labelNames: ['proxy_name', 'to', 'proto'],
    }),
  };
}
