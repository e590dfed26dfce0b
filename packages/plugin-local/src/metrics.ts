/** The *local* plugin's metric, named as CoreDNS's `plugin/local/metrics.go`. */
import { counter } from '@foghorn/core';
import type { Counter, Registry } from 'prom-client';

export interface LocalMetrics {
  /**
   * `coredns_local_localhost_requests_total`: names under `localhost.` and, with
   * `localhost_prefix on`, `localhost.<domain>` names. No `server` label, as in CoreDNS: the
   * client asking is what matters, and the debug log has it.
   */
  readonly localhostRequests: Counter;
}

/** Creates the metric in `registry`, or returns the one already there (several blocks, reloads). */
export function createLocalMetrics(registry: Registry): LocalMetrics {
  return {
    localhostRequests: counter(registry, { name: 'coredns_local_localhost_requests_total', help: 'Counter of special localhost subdomain requests.' }),
  };
}
