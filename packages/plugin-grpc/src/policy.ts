/**
 * The order in which one query tries the upstreams (CoreDNS's plugin/grpc/policy.go). The
 * orders are grpc's own: its round robin puts the chosen upstream first and keeps the others in
 * configuration order, where *forward*'s rotates the whole list.
 */

/** `policy` values. */
export type Policy = 'random' | 'round_robin' | 'sequential';

/** Orders the upstreams for one query. */
export type Orderer<T> = (items: readonly T[]) => readonly T[];

/** `random`: a fresh permutation per query. */
export function randomOrder<T>(random: () => number = Math.random): Orderer<T> {
  return (items) => {
    if (items.length < 2) return items;
    const shuffled = [...items];
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      const swap = shuffled[i] as T;
      shuffled[i] = shuffled[j] as T;
      shuffled[j] = swap;
    }
    return shuffled;
  };
}

/** `round_robin`: upstream N first on the Nth query (counting from 1), then the rest in order. */
export function roundRobinOrder<T>(): Orderer<T> {
  let robin = 0;
  return (items) => {
    if (items.length === 0) return items;
    robin = (robin + 1) >>> 0;
    const i = robin % items.length;
    if (i === 0) return items;
    return [items[i] as T, ...items.slice(0, i), ...items.slice(i + 1)];
  };
}

/** `sequential`: configuration order. */
export function sequentialOrder<T>(): Orderer<T> {
  return (items) => items;
}

export function createOrderer<T>(policy: Policy, random?: () => number): Orderer<T> {
  switch (policy) {
    case 'round_robin':
      return roundRobinOrder<T>();
    case 'sequential':
      return sequentialOrder<T>();
    default:
      return randomOrder<T>(random);
  }
}
