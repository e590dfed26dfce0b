/**
 * The `coredns_cache_*` metrics (CoreDNS's plugin/cache/metrics.go), with CoreDNS's names, help texts and labels.
 *
 * Why not prom-client's `Counter`: its label children hash the label values again on every
 * `inc()`, and a cache hit touches two counters. Core's cell vectors resolve a child once per
 * (server, zones) pair; a query then costs a property increment.
 */
import { counterVec, gaugeVec } from '@foghorn/core';
import type { CounterCell, CounterVec, GaugeVec } from '@foghorn/core';
import type { Registry } from 'prom-client';

/** One row of a counter or gauge: the hot path writes `value`. */
export type Cell = CounterCell;

/** A counter or gauge with labels (core's cell vectors). */
export type CellVec = CounterVec | GaugeVec;

/** Every cache metric. Labels: server, [type,] zones, view. */
export interface CacheMetrics {
  /** `coredns_cache_entries{server, type, zones, view}` */
  readonly entries: CellVec;
  /** `coredns_cache_requests_total{server, zones, view}` */
  readonly requests: CellVec;
  /** `coredns_cache_hits_total{server, type, zones, view}` */
  readonly hits: CellVec;
  /** `coredns_cache_misses_total{server, zones, view}` (deprecated in CoreDNS, kept) */
  readonly misses: CellVec;
  /** `coredns_cache_prefetch_total{server, zones, view}` */
  readonly prefetch: CellVec;
  /** `coredns_cache_drops_total{server, zones, view}` */
  readonly drops: CellVec;
  /** `coredns_cache_served_stale_total{server, zones, view}` */
  readonly servedStale: CellVec;
  /** `coredns_cache_evictions_total{server, type, zones, view}` */
  readonly evictions: CellVec;
}

const withType = ['server', 'type', 'zones', 'view'];
const plain = ['server', 'zones', 'view'];

/**
 * Creates the metrics in `registry`, or returns those already there: safe on every reload and
 * for every server block, and the counters keep counting across reloads.
 */
export function createCacheMetrics(registry: Registry): CacheMetrics {
  const vec = (name: string, help: string, type: 'counter' | 'gauge', labelNames: readonly string[]): CellVec =>
    (type === 'gauge' ? gaugeVec : counterVec)(registry, { name, help, labelNames });
  return {
    entries: vec('coredns_cache_entries', 'The number of elements in the cache.', 'gauge', withType),
    requests: vec('coredns_cache_requests_total', 'The count of cache requests.', 'counter', plain),
    hits: vec('coredns_cache_hits_total', 'The count of cache hits.', 'counter', withType),
    misses: vec('coredns_cache_misses_total', 'The count of cache misses. Deprecated, derive misses from cache hits/requests counters.', 'counter', plain),
    prefetch: vec('coredns_cache_prefetch_total', 'The number of times the cache has prefetched a cached item.', 'counter', plain),
    drops: vec('coredns_cache_drops_total', 'The number responses that are not cached, because the reply is malformed.', 'counter', plain),
    servedStale: vec('coredns_cache_served_stale_total', 'The number of requests served from stale cache entries.', 'counter', plain),
    evictions: vec('coredns_cache_evictions_total', 'The count of cache evictions.', 'counter', withType),
  };
}

/** The cells one cache uses for one `server` label, resolved once per listener. */
export interface ServerCells {
  readonly requests: Cell;
  readonly misses: Cell;
  readonly successHits: Cell;
  readonly denialHits: Cell;
  readonly prefetch: Cell;
  readonly drops: Cell;
  readonly servedStale: Cell;
  readonly successEntries: Cell;
  readonly denialEntries: Cell;
  readonly successEvictions: Cell;
  readonly denialEvictions: Cell;
}

/** Resolves the cells for one (server, zones, view) label set. */
export function serverCells(metrics: CacheMetrics, server: string, zones: string, view = ''): ServerCells {
  return {
    requests: metrics.requests.child(server, zones, view),
    misses: metrics.misses.child(server, zones, view),
    successHits: metrics.hits.child(server, 'success', zones, view),
    denialHits: metrics.hits.child(server, 'denial', zones, view),
    prefetch: metrics.prefetch.child(server, zones, view),
    drops: metrics.drops.child(server, zones, view),
    servedStale: metrics.servedStale.child(server, zones, view),
    successEntries: metrics.entries.child(server, 'success', zones, view),
    denialEntries: metrics.entries.child(server, 'denial', zones, view),
    successEvictions: metrics.evictions.child(server, 'success', zones, view),
    denialEvictions: metrics.evictions.child(server, 'denial', zones, view),
  };
}
