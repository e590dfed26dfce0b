/**
 * Every metric forward owns, with current CoreDNS's names, help texts, labels and buckets
 * (plugin/forward/metrics.go and plugin/pkg/proxy/metrics.go, spec 3.6). Since CoreDNS 1.11 the
 * per-upstream metrics are `coredns_proxy_*` with `proxy_name="forward"`; the older
 * `coredns_forward_requests_total` and friends no longer exist there, so they are not exported here.
 */
import { Counter, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';

/** CoreDNS's `plugin.TimeBuckets`: 0.00025·2ⁱ s for i = 0..15 (0.25 ms … 8.192 s). */
export const durationBuckets: readonly number[] = Array.from({ length: 16 }, (_, i) => 0.00025 * 2 ** i);

/** The metric objects, shared by every forward in the process. */
export interface ForwardMetrics {
  /** `coredns_forward_healthcheck_broken_total`: every upstream was down for a query. */
  readonly healthcheckBroken: Counter;
  /** `coredns_forward_max_concurrent_rejects_total` */
  readonly maxConcurrentRejects: Counter;
  /** `coredns_proxy_request_duration_seconds{proxy_name, to, rcode}` */
  readonly requestDuration: Histogram<'proxy_name' | 'to' | 'rcode'>;
  /** `coredns_proxy_healthcheck_failures_total{proxy_name, to}` */
  readonly healthcheckFailures: Counter<'proxy_name' | 'to'>;
  /** `coredns_proxy_conn_cache_hits_total{proxy_name, to, proto}` */
  readonly connCacheHits: Counter<'proxy_name' | 'to' | 'proto'>;
  /** `coredns_proxy_conn_cache_misses_total{proxy_name, to, proto}` */
  readonly connCacheMisses: Counter<'proxy_name' | 'to' | 'proto'>;
}

function counter<T extends string>(registry: Registry, name: string, help: string, labelNames: readonly T[]): Counter<T> {
  const existing = registry.getSingleMetric(name);
  if (existing === undefined) return new Counter<T>({ name, help, labelNames, registers: [registry] });
  if (existing instanceof Counter) return existing as Counter<T>;
  throw new Error(`metric ${name} is already registered as a different collector`);
}

function histogram<T extends string>(registry: Registry, name: string, help: string, labelNames: readonly T[]): Histogram<T> {
  const existing = registry.getSingleMetric(name);
  if (existing === undefined) return new Histogram<T>({ name, help, labelNames, buckets: [...durationBuckets], registers: [registry] });
  if (existing instanceof Histogram) return existing as Histogram<T>;
  throw new Error(`metric ${name} is already registered as a different collector`);
}

/**
 * Creates the metrics in `registry`, or returns the ones already there: safe on every reload and
 * for every server block.
 */
export function createForwardMetrics(registry: Registry): ForwardMetrics {
  return {
    healthcheckBroken: counter(registry, 'coredns_forward_healthcheck_broken_total', 'Counter of the number of complete failures of the healthchecks.', []),
    maxConcurrentRejects: counter(
      registry,
      'coredns_forward_max_concurrent_rejects_total',
      'Counter of the number of queries rejected because the concurrent queries were at maximum.',
      [],
    ),
    requestDuration: histogram(registry, 'coredns_proxy_request_duration_seconds', 'Histogram of the time each request took.', ['proxy_name', 'to', 'rcode']),
    healthcheckFailures: counter(registry, 'coredns_proxy_healthcheck_failures_total', 'Counter of the number of failed healthchecks.', ['proxy_name', 'to']),
    connCacheHits: counter(registry, 'coredns_proxy_conn_cache_hits_total', 'Counter of connection cache hits per upstream and protocol.', ['proxy_name', 'to', 'proto']),
    connCacheMisses: counter(registry, 'coredns_proxy_conn_cache_misses_total', 'Counter of connection cache misses per upstream and protocol.', [
      'proxy_name',
      'to',
      'proto',
    ]),
  };
}
