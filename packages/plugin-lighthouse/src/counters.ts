/**
 * What the answer table counts for the metrics module: the outcome of each query (the `outcome`
 * label of `coredns_lighthouse_queries_total`) and the records served per cluster, as plain
 * counter cells an answer carries and the handler bumps, read at scrape time.
 */

/** Query outcomes, the `outcome` label of `coredns_lighthouse_queries_total`. */
export const Outcome = {
  success: 0,
  nodata: 1,
  nxdomain: 2,
  notimp: 3,
  notzone: 4,
  fallthrough: 5,
  unsynced: 6,
} as const;
export const outcomeNames = ['success', 'nodata', 'nxdomain', 'notimp', 'notzone', 'fallthrough', 'unsynced'] as const;

/** A counter cell for records served per cluster; the metrics module reads them at scrape time. */
export interface ServedCell {
  value: number;
}

/**
 * Records served by an answer: a list of (cell, count) per cluster it draws from, null for none.
 * A chain of small nodes rather than an array of pairs, walked with a plain loop per query; most
 * answers draw from one cluster and share one interned node, which stays in cache.
 */
export interface Served {
  readonly cell: ServedCell;
  readonly count: number;
  readonly next: Served | null;
}

/** The served-record cells of one table, and the one-cluster lists most answers share. */
export class ServedCells {
  private readonly singles = new Map<string, Served>();

  /** @param cell the counter cell for records served from `cluster` (`''` = the clusterset IP). */
  constructor(readonly cell: (cluster: string) => ServedCell) {}

  /** One cluster's node, shared by every answer with that count (most answers). */
  one(cluster: string, n: number): Served {
    const key = `${n} ${cluster}`;
    let served = this.singles.get(key);
    if (!served) this.singles.set(key, (served = { cell: this.cell(cluster), count: n, next: null }));
    return served;
  }

  /** The list for per-cluster counts, in the map's order; null when empty. */
  of(counts: Map<string, number>): Served | null {
    if (counts.size === 1) {
      for (const [cluster, n] of counts) return this.one(cluster, n);
    }
    let head: Served | null = null;
    for (const [cluster, n] of [...counts].reverse()) head = { cell: this.cell(cluster), count: n, next: head };
    return head;
  }
}

/** Adds an answer's records to their cells (per query: a plain loop, no iterator). */
export function countServed(served: Served | null): void {
  for (let node = served; node !== null; node = node.next) node.cell.value += node.count;
}
