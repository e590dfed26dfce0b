/**
 * The health plugin's metrics (CoreDNS's plugin/health/metrics.go). They have no `server` label: a slow self-probe is a
 * symptom of the whole process, not of one server block.
 */
import { counter, histogram, slimTimeBuckets } from '@foghorn/core';
import type { Counter, Histogram, Registry } from 'prom-client';

export interface HealthMetrics {
  /** `coredns_health_request_duration_seconds`: how long each self-probe of /health took. */
  readonly duration: Histogram;
  /** `coredns_health_request_failures_total`: self-probes that failed. */
  readonly failures: Counter;
}

/**
 * Creates the metrics in `registry`, or returns the ones already there, so several blocks, a
 * reload or two plugins sharing a registry never hit "already registered".
 */
export function createHealthMetrics(registry: Registry): HealthMetrics {
  return {
    duration: histogram(registry, {
      name: 'coredns_health_request_duration_seconds',
      help: 'Histogram of the time (in seconds) each request took.',
      // CoreDNS's `plugin.SlimTimeBuckets`.
      buckets: [...slimTimeBuckets],
    }),
    failures: counter(registry, { name: 'coredns_health_request_failures_total', help: 'The number of times the health check failed.' }),
  };
}
