/**
 * The `coredns_kubernetes_*` metrics (CoreDNS plugin/kubernetes/metrics.go and
 * object/metrics.go). One set per registry, shared by every block and kept across reloads.
 */
import { counter, histogram } from '@foghorn/core';
import type { Logger } from '@foghorn/core';
import type { Counter, Histogram, Registry } from 'prom-client';
import { triggerTimeAnnotation } from './store.js';
import type { SliceEvent } from './store.js';

/** prometheus.DefBuckets. */
const defaultBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** prometheus.ExponentialBuckets(0.001, 2, 20): 1 ms … ~524 s. */
const programmingBuckets = Array.from({ length: 20 }, (_, k) => 0.001 * 2 ** k);

export class KubernetesMetrics {
  readonly programming: Histogram<'service_kind'>;
  /** Fed from Node's HTTP client diagnostics (rest-metrics.ts). */
  readonly requestDuration: Histogram<'verb' | 'host'>;
  readonly rateLimiterDuration: Histogram<'verb' | 'host'>;
  readonly requests: Counter<'code' | 'method' | 'host'>;

  constructor(registry: Registry) {
    this.programming = histogram(registry, {
      name: 'coredns_kubernetes_dns_programming_duration_seconds',
      help: 'Histogram of the time (in seconds) it took to program a dns instance.',
      labelNames: ['service_kind'],
      buckets: programmingBuckets,
    });
    this.requestDuration = histogram(registry, {
      name: 'coredns_kubernetes_rest_client_request_duration_seconds',
      help: 'Request latency in seconds. Broken down by verb and host.',
      labelNames: ['verb', 'host'],
      buckets: defaultBuckets,
    });
    this.rateLimiterDuration = histogram(registry, {
      name: 'coredns_kubernetes_rest_client_rate_limiter_duration_seconds',
      help: 'Client side rate limiter latency in seconds. Broken down by verb and host.',
      labelNames: ['verb', 'host'],
      buckets: defaultBuckets,
    });
    this.requests = counter(registry, {
      name: 'coredns_kubernetes_rest_client_requests_total',
      help: 'Number of HTTP requests, partitioned by status code, method, and host.',
      labelNames: ['code', 'method', 'host'],
    });
  }

  /**
   * object/metrics.go `EndpointLatencyRecorder`: a slice add or update that carries the trigger
   * time annotation, and whose service is known exactly once, observes now − trigger time.
   * `headless` is null when the service is not known.
   */
  recordSlice(event: SliceEvent, headless: boolean | null, log: Logger, now = Date.now()): void {
    const text = event.item.metadata?.annotations?.[triggerTimeAnnotation];
    if (text === undefined) return;
    const at = Date.parse(text);
    if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(text) || Number.isNaN(at)) {
      const name = `${event.item.metadata?.namespace ?? ''}/${event.item.metadata?.name ?? ''}`;
      log.warning(`DnsProgrammingLatency cannot be calculated for Endpoints '${name}'; invalid "${triggerTimeAnnotation}" annotation RFC3339 value of ${JSON.stringify(text)}`);
      return;
    }
    if (headless === null) return;
    this.programming.observe({ service_kind: headless ? 'headless_with_selector' : 'cluster_ip' }, Math.max(0, (now - at) / 1000));
  }
}
