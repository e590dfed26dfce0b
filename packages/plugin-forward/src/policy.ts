/**
 * The order in which a query tries the upstreams (CoreDNS plugin/forward/policy.go).
 */
import type { Policy } from './setup.js';

/** Orders a list of upstreams for one query. */
export interface Orderer<T> {
  list(items: readonly T[]): readonly T[];
}

/** `random`: a fresh shuffle per query; two upstreams are swapped half of the time. */
export class RandomPolicy<T> implements Orderer<T> {
  constructor(private readonly random: () => number = Math.random) {}

  list(items: readonly T[]): readonly T[] {
    if (items.length < 2) return items;
    const shuffled = [...items];
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = Math.floor(this.random() * (i + 1));
      const swap = shuffled[i] as T;
      shuffled[i] = shuffled[j] as T;
      shuffled[j] = swap;
    }
    return shuffled;
  }
}

/** `round_robin`: each query starts one further along; the rest follow in configuration order. */
export class RoundRobinPolicy<T> implements Orderer<T> {
  private robin = 0;

  list(items: readonly T[]): readonly T[] {
    // CoreDNS increments before use, so the first query starts at the second upstream.
    this.robin = (this.robin + 1) >>> 0;
    const start = this.robin % items.length;
    if (start === 0) return items;
    return [...items.slice(start), ...items.slice(0, start)];
  }
}

/** `sequential`: configuration order, always. */
export class SequentialPolicy<T> implements Orderer<T> {
  list(items: readonly T[]): readonly T[] {
    return items;
  }
}

export function createPolicy<T>(policy: Policy, random?: () => number): Orderer<T> {
  switch (policy) {
    case 'round_robin':
      return new RoundRobinPolicy<T>();
    case 'sequential':
      return new SequentialPolicy<T>();
    default:
      return new RandomPolicy<T>(random);
  }
}
