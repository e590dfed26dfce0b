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

/** Records served by an answer: `[cell, count]` per cluster it draws from. */
export type Served = readonly (readonly [ServedCell, number])[];

/** The served-record cells of one table, and the one-cluster lists most answers share. */
export class ServedCells {
  private readonly singles = new Map<string, Served>();

  /** @param cell the counter cell for records served from `cluster` (`''` = the clusterset IP). */
  constructor(readonly cell: (cluster: string) => ServedCell) {}

  /** `[[cell, n]]` for one cluster, shared by every answer with that count (most answers). */
  one(cluster: string, n: number): Served {
    const key = `${n} ${cluster}`;
    let served = this.singles.get(key);
    if (!served) this.singles.set(key, (served = [[this.cell(cluster), n] as const]));
    return served;
  }

  /** The list for per-cluster counts. */
  of(counts: Map<string, number>): Served {
    if (counts.size === 1) {
      for (const [cluster, n] of counts) return this.one(cluster, n);
    }
    return [...counts].map(([cluster, n]) => [this.cell(cluster), n] as const);
  }
}
