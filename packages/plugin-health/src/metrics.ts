/**
 * The health plugin's metrics (spec 3.6). They have no `server` label: a slow self-probe is a
 * symptom of the whole process, not of one server block.
 */
import { Counter, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';

/** CoreDNS's `plugin.SlimTimeBuckets`, in seconds. */
export const healthDurationBuckets: readonly number[] = [0.00025, 0.0025, 0.025, 0.25, 2.5];

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
  const duration =
    (registry.getSingleMetric('coredns_health_request_duration_seconds') as Histogram | undefined) ??
    new Histogram({
      name: 'coredns_health_request_duration_seconds',
      help: 'Histogram of the time (in seconds) each request took.',
      buckets: [...healthDurationBuckets],
      registers: [registry],
    });
  const failures =
    (registry.getSingleMetric('coredns_health_request_failures_total') as Counter | undefined) ??
    new Counter({
      name: 'coredns_health_request_failures_total',
      help: 'The number of times the health check failed.',
      registers: [registry],
    });
  return { duration, failures };
}
