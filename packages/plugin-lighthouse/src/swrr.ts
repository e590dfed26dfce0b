/**
 * Smooth weighted round robin (docs/compatibility.md, "Cluster selection"), the balancer Lighthouse keeps per ClusterSetIP service
 * and IP family. Every cluster has weight 1 today, so in steady state this is plain round robin in
 * insertion order; the `effective` weight and `skip` still matter for the exact sequence when a
 * cluster is unacceptable for a few queries (Lighthouse's smooth_weighted_round_robin_test.go: `A C A C B A C B A ...`).
 */

/**
 * The algorithm's state, three numbers per item: weight, current, effective. One flat array of
 * small integers rather than an object per item: every answer the balancer picks reads and writes
 * all of it, and with thousands of services cycling it is cache-cold, so one array is fetched
 * instead of an object per cluster. Its identity is fixed for the balancer's life, so an answer
 * cache can hold it directly (answer-cache.ts) and save the hop through the balancer.
 */
export type BalancerState = number[];

/** Smooth weighted round robin over keys in insertion order (deterministic, unlike upstream's map order). */
export class SmoothWeightedRoundRobin<K> {
  /** Replaced on add rather than pushed to, so a kept balancer holds no spare capacity. */
  private keys: K[] = [];
  /** Pushed to on add: its identity is the balancer's (see {@link BalancerState}). */
  readonly state: BalancerState = [];

  /** Number of items. */
  get size(): number {
    return this.keys.length;
  }

  /** The key at `index` (the order `add` was called in). */
  keyAt(index: number): K {
    return this.keys[index]!;
  }

  /** Adds `key` with `weight`; a negative weight or a key already present is an error. */
  add(key: K, weight = 1): void {
    if (!Number.isFinite(weight) || weight < 0) throw new RangeError(`weight must be a non-negative number, got ${weight}`);
    if (this.keys.includes(key)) throw new Error(`item ${String(key)} already added`);
    this.keys = [...this.keys, key];
    this.state.push(weight, 0, weight);
  }

  /** The next item's index, or -1 when empty. */
  next(): number {
    return next(this.state);
  }

  /** Lowers the item's effective weight after it was picked but could not be used. */
  skip(index: number): void {
    skip(this.state, index);
  }

  /**
   * Picks the next acceptable item: at most `size` tries, skipping each unacceptable pick.
   * Returns its index, or -1 when none was acceptable.
   */
  select(acceptable: (index: number) => boolean): number {
    const state = this.state;
    for (let tries = state.length / 3; tries > 0; tries--) {
      const index = next(state);
      if (acceptable(index)) return index;
      skip(state, index);
    }
    return -1;
  }
}

/**
 * {@link SmoothWeightedRoundRobin.select} on the balancer's state where item `i` is acceptable when
 * `values[i]` is not null: the answer cache's hit path, with no closure per query.
 */
export function selectPresent(state: BalancerState, values: readonly unknown[]): number {
  for (let tries = state.length / 3; tries > 0; tries--) {
    const index = next(state);
    if (values[index] != null) return index;
    skip(state, index);
  }
  return -1;
}

function next(state: BalancerState): number {
  const end = state.length;
  if (end === 0) return -1;
  if (end === 3) return 0;
  let total = 0;
  let best = -1;
  let bestCurrent = -Infinity;
  for (let i = 0; i < end; i += 3) {
    let effective = state[i + 2]!;
    const current = state[i + 1]! + effective;
    state[i + 1] = current;
    if (effective < state[i]!) state[i + 2] = effective += 1;
    total += effective;
    // Strictly greater: on a tie the first item in order wins.
    if (current > bestCurrent) {
      bestCurrent = current;
      best = i;
    }
  }
  state[best + 1]! -= total;
  return best / 3;
}

function skip(state: BalancerState, index: number): void {
  const i = index * 3;
  if (index >= 0 && i < state.length) state[i + 2] = Math.max(0, state[i + 2]! - state[i]!);
}
