/**
 * The queries in flight on one UDP socket, by the 16-bit ID they went upstream with: an
 * open-addressing table of fixed capacity, allocated with the socket and never replaced.
 *
 * Why not a `Map`: with a set and a delete per query, V8 rebuilds a Map's hash table every few
 * dozen queries, and each table it leaves keeps a pointer to its successor (for iterators still
 * walking it). A table that lived through an idle spell (start-up, a lull) is in the old
 * generation by then; dead, it still reaches every later table and the waiters they held, each
 * with its promise, request and reply buffers, and the young-generation collector keeps them all
 * until the next full collection. Forward at a steady 10,000 QPS promoted 0.1–1.7 MB per scavenge
 * that way, with 1–10 ms pauses; with this table, nothing, and 0.3–0.9 ms (`node --trace-gc-nvp`).
 * The slots of one table hold nothing after a delete, so nothing is kept.
 *
 * Linear probing from the ID's low bits (IDs are random), deletion by backward shift, so no
 * tombstones accumulate and a lookup stops at the first empty slot.
 */
const EMPTY = -1;

export class WaiterTable<T> {
  private readonly ids: Int32Array;
  private readonly values: (T | undefined)[];
  private readonly mask: number;
  /** Entries in the table. */
  size = 0;

  /** @param capacity the most entries the table holds; a power of two twice as large is allocated */
  constructor(readonly capacity: number) {
    let slots = 2;
    while (slots < 2 * capacity) slots *= 2;
    this.ids = new Int32Array(slots).fill(EMPTY);
    this.values = new Array<T | undefined>(slots).fill(undefined);
    this.mask = slots - 1;
  }

  get(id: number): T | undefined {
    const slot = this.find(id);
    return slot === EMPTY ? undefined : this.values[slot];
  }

  has(id: number): boolean {
    return this.find(id) !== EMPTY;
  }

  /** Adds `id`, which must not be in the table, while it holds fewer than `capacity` entries. */
  set(id: number, value: T): void {
    if (this.size >= this.capacity) throw new RangeError(`waiter table full (${this.capacity})`);
    const { ids, mask } = this;
    let slot = id & mask;
    while (ids[slot] !== EMPTY) slot = (slot + 1) & mask;
    ids[slot] = id;
    this.values[slot] = value;
    this.size++;
  }

  delete(id: number): boolean {
    let hole = this.find(id);
    if (hole === EMPTY) return false;
    const { ids, values, mask } = this;
    this.size--;
    // Backward shift: move up every later entry of the run whose home slot is not between the
    // hole and where it sits, so a probe from its home still reaches it without tombstones.
    for (let slot = (hole + 1) & mask; ids[slot] !== EMPTY; slot = (slot + 1) & mask) {
      const home = ids[slot]! & mask;
      const stays = hole <= slot ? hole < home && home <= slot : hole < home || home <= slot;
      if (stays) continue;
      ids[hole] = ids[slot]!;
      values[hole] = values[slot];
      hole = slot;
    }
    ids[hole] = EMPTY;
    values[hole] = undefined;
    return true;
  }

  /** The IDs and values in the table, as a snapshot: the table may change while it is read. */
  entries(): [number, T][] {
    const out: [number, T][] = [];
    for (let slot = 0; slot < this.ids.length; slot++) if (this.ids[slot] !== EMPTY) out.push([this.ids[slot]!, this.values[slot]!]);
    return out;
  }

  clear(): void {
    this.ids.fill(EMPTY);
    this.values.fill(undefined);
    this.size = 0;
  }

  private find(id: number): number {
    const { ids, mask } = this;
    for (let slot = id & mask; ; slot = (slot + 1) & mask) {
      const at = ids[slot]!;
      if (at === id) return slot;
      if (at === EMPTY) return EMPTY;
    }
  }
}
