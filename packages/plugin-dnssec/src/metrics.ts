/** The `coredns_dnssec_*` metrics (CoreDNS's `plugin/dnssec/metrics.go`): names, help texts and labels. */
import { counterVec, gaugeVec } from '@foghorn/core';
import type { CounterCell, CounterVec, GaugeVec } from '@foghorn/core';
import type { Registry } from 'prom-client';

export interface DnssecMetrics {
  /** `coredns_dnssec_cache_entries{server, type}`, type "signature". */
  readonly entries: GaugeVec;
  /** `coredns_dnssec_cache_hits_total{server}` */
  readonly hits: CounterVec;
  /** `coredns_dnssec_cache_misses_total{server}` */
  readonly misses: CounterVec;
}

/** Creates the metrics in `registry`, or returns those already there (reloads, several blocks). */
export function createDnssecMetrics(registry: Registry): DnssecMetrics {
  return {
    entries: gaugeVec(registry, { name: 'coredns_dnssec_cache_entries', help: 'The number of elements in the dnssec cache.', labelNames: ['server', 'type'] }),
    hits: counterVec(registry, { name: 'coredns_dnssec_cache_hits_total', help: 'The count of cache hits.', labelNames: ['server'] }),
    misses: counterVec(registry, { name: 'coredns_dnssec_cache_misses_total', help: 'The count of cache misses.', labelNames: ['server'] }),
  };
}

/** The cells of one `server` label. */
export interface ServerCells {
  readonly entries: CounterCell;
  readonly hits: CounterCell;
  readonly misses: CounterCell;
}

export function serverCells(metrics: DnssecMetrics, server: string): ServerCells {
  return { entries: metrics.entries.child(server, 'signature'), hits: metrics.hits.child(server), misses: metrics.misses.child(server) };
}
