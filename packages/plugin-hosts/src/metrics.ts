/** The hosts plugin's metrics, named as CoreDNS's `plugin/hosts/metrics.go`. */
import { gauge } from '@foghorn/core';
import type { Gauge, Registry } from 'prom-client';

export interface HostsMetrics {
  /** `coredns_hosts_entries{hostsfile}` */
  readonly entries: Gauge<'hostsfile'>;
  /** `coredns_hosts_reload_timestamp_seconds` */
  readonly reloadTimestamp: Gauge;
}

/** Creates the metrics in `registry`, or returns the ones already there (blocks, reloads). */
export function createHostsMetrics(registry: Registry): HostsMetrics {
  return {
    entries: gauge(registry, { name: 'coredns_hosts_entries', help: 'The combined number of entries in hosts and Corefile.', labelNames: ['hostsfile'] }),
    reloadTimestamp: gauge(registry, { name: 'coredns_hosts_reload_timestamp_seconds', help: 'The timestamp of the last reload of hosts file.' }),
  };
}
