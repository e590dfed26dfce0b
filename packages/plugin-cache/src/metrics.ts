/**
 * The `coredns_cache_*` metrics (CoreDNS's plugin/cache/metrics.go), with CoreDNS's names, help texts and labels.
 *
 * Why not prom-client's `Counter`: its label children hash the label values again on every
 * `inc()`, and a cache hit touches two counters. Here a child is a plain cell resolved once per
 * (server, zones) pair; a query then costs a property increment. The registry reads the cells
 * through `get()`, exactly as it reads prom-client metrics.
 */
import { registerCollector } from '@foghorn/core';
import type { Registry } from 'prom-client';

/** One row of a counter or gauge: the hot path writes `value`. */
export interface Cell {
  value: number;
}

interface Row {
  readonly labels: Record<string, string>;
  readonly cell: Cell;
}

const brand = Symbol.for('foghorn.cache.vec');

/** A counter or gauge with labels, registered in a prom-client registry. */
export class CellVec {
  readonly [brand] = true;
  readonly aggregator = 'sum' as const;
  private rows = new Map<string, Row>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: 'counter' | 'gauge',
    readonly labelNames: readonly string[],
  ) {}

  /** The cell for these label values (in `labelNames` order), created on first use. */
  child(...values: string[]): Cell {
    const key = values.join('\u0000');
    let row = this.rows.get(key);
    if (row === undefined) {
      const labels: Record<string, string> = {};
      this.labelNames.forEach((name, i) => (labels[name] = values[i] ?? ''));
      row = { labels, cell: { value: 0 } };
      this.rows.set(key, row);
    }
    return row.cell;
  }

  /** `registry.resetMetrics()`: rows are forgotten; holders resolve their cells again. */
  reset(): void {
    this.rows = new Map();
  }

  /** The registry's read. */
  get(): Promise<{ name: string; help: string; type: 'counter' | 'gauge'; aggregator: 'sum'; values: { labels: Record<string, string>; value: number }[] }> {
    const values: { labels: Record<string, string>; value: number }[] = [];
    for (const { labels, cell } of this.rows.values()) values.push({ labels, value: cell.value });
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }
}

function isCellVec(existing: unknown): existing is CellVec {
  return typeof existing === 'object' && existing !== null && brand in existing;
}

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
  const vec = (name: string, help: string, type: 'counter' | 'gauge', labels: readonly string[]): CellVec =>
    registerCollector(registry, new CellVec(name, help, type, labels), isCellVec);
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
