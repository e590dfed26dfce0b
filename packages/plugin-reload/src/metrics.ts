/** The reload plugin's metrics (CoreDNS's plugin/reload/metrics.go): process-wide, no `server` label. */
import { counter, gauge } from '@foghorn/core';
import type { Counter, Gauge, Registry } from 'prom-client';

export interface ReloadMetrics {
  /** `coredns_reload_failed_total`: reloads the plugin started that failed. */
  readonly failed: Counter;
  /** `coredns_reload_version_info{hash="sha512", value}`: 1 for the Corefile last reloaded to. */
  readonly versionInfo: Gauge<'hash' | 'value'>;
}

/** Creates the metrics in `registry`, or returns the ones already there (reloads, several blocks). */
export function createReloadMetrics(registry: Registry): ReloadMetrics {
  return {
    failed: counter(registry, { name: 'coredns_reload_failed_total', help: 'Counter of the number of failed reload attempts.' }),
    versionInfo: gauge(registry, {
      name: 'coredns_reload_version_info',
      help: "A metric with a constant '1' value labeled by hash, and value which type of hash generated.",
      labelNames: ['hash', 'value'],
    }),
  };
}
