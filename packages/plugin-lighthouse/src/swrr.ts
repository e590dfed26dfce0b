/**
 * Smooth weighted round robin (docs/compatibility.md, "Cluster selection"), the balancer Lighthouse keeps per ClusterSetIP service
 * and IP family. Every cluster has weight 1 today, so in steady state this is plain round robin in
 * insertion order; the `effective` weight and `skip` still matter for the exact sequence when a
 * cluster is unacceptable for a few queries (Lighthouse's smooth_weighted_round_robin_test.go: `A C A C B A C B A ...`).
 */

/** One balanced item. `current` and `effective` are the algorithm's running state. */
interface Item<K> {
  readonly key: K;
  readonly weight: number;
  current: number;
  effective: number;
}

/** Smooth weighted round robin over keys in insertion order (deterministic, unlike upstream's map order). */
export class SmoothWeightedRoundRobin<K> {
  /** Replaced on add rather than pushed to, so a kept balancer holds no spare capacity. */
  private items: Item<K>[] = [];

  /** Number of items. */
  get size(): number {
    return this.items.length;
  }

  /** The key at `index` (the order `add` was called in). */
  keyAt(index: number): K {
    return this.items[index]!.key;
  }

  /** Adds `key` with `weight`; a negative weight or a key already present is an error. */
  add(key: K, weight = 1): void {
    if (!Number.isFinite(weight) || weight < 0) throw new RangeError(`weight must be a non-negative number, got ${weight}`);
    if (this.items.some((item) => item.key === key)) throw new Error(`item ${String(key)} already added`);
    this.items = [...this.items, { key, weight, current: 0, effective: weight }];
  }

  /** The next item's index, or -1 when empty. */
  next(): number {
    const items = this.items;
    if (items.length === 0) return -1;
    if (items.length === 1) return 0;
    let total = 0;
    let best = -1;
    let bestCurrent = -Infinity;
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      item.current += item.effective;
      if (item.effective < item.weight) item.effective += 1;
      total += item.effective;
      // Strictly greater: on a tie the first item in order wins.
      if (item.current > bestCurrent) {
        bestCurrent = item.current;
        best = i;
      }
    }
    items[best]!.current -= total;
    return best;
  }

  /** Lowers the item's effective weight after it was picked but could not be used. */
  skip(index: number): void {
    const item = this.items[index];
    if (item) item.effective = Math.max(0, item.effective - item.weight);
  }

  /**
   * {@link select} where item `i` is acceptable when `values[i]` is not null: the form the answer
   * table uses, with no closure per query.
   */
  selectPresent(values: readonly unknown[]): number {
    for (let tries = this.items.length; tries > 0; tries--) {
      const index = this.next();
      if (values[index] != null) return index;
      this.skip(index);
    }
    return -1;
  }

  /**
   * Picks the next acceptable item: at most `size` tries, skipping each unacceptable pick.
   * Returns its index, or -1 when none was acceptable.
   */
  select(acceptable: (index: number) => boolean): number {
    for (let tries = this.items.length; tries > 0; tries--) {
      const index = this.next();
      if (acceptable(index)) return index;
      this.skip(index);
    }
    return -1;
  }
}
