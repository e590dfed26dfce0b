/**
 * The accounts of *rrl*: BIND's credit model (as coredns/rrl implements it) in a table of fixed
 * size, so a flood of spoofed sources costs no memory beyond what the table was given at start.
 *
 * **Credit.** One response costs `interval` = 1000 / rate ms of credit. An account stores only
 * `allowAt`, the moment its balance is zero: at `now` it holds `now - allowAt` ms of credit. A
 * debit takes `interval` off; the balance is then clamped to at most one second's worth (a burst
 * of `rate` responses) and to no less than `-window` (a debt of `window × rate` responses, which
 * the account pays back in `window` seconds once the flood stops). A response that leaves the
 * balance negative is over the limit. A new account starts full, so its first response passes.
 *
 * **Table.** `sets × ways` accounts in typed arrays, found by a 64-bit hash of the key (the set
 * from one 32-bit half, the fingerprint from the other):
 *
 * ```
 *             set = hash1 % sets
 *   ┌────────────┬────────────┬─────┬────┐  words    Int32Array, two per account: the fingerprint
 *   │ way 0      │ way 1      │ ... │ 7  │           (0 = free), then the replies to drop before the
 *   └────────────┴────────────┴─────┴────┘           next slip | 0x100 while over the limit
 *                                            allowAt  Float64Array, ms (performance.now())
 * ```
 *
 * A set's fingerprints and states are 64 contiguous bytes, its credits another 64: a query
 * touches two cache lines of the table, whatever its size (the flood's spread-out keys miss the
 * CPU's caches, so lines touched are what a lookup costs).
 *
 * A key not in its set takes a free way, or recycles the way whose account has the most credit:
 * the one closest to a fresh account, so recycling it loses the least. An account in debt (a
 * flood's target) is recycled only when every account in its set is in debt. BIND recycles the
 * least recently used entry; coredns/rrl stops limiting new keys when its table is full.
 * Nothing is allocated after the constructor, and no `Map` gains and loses entries per query
 * (docs/architecture.md, "No Map or Set that gains and loses an entry per query").
 */

/** Bits of {@link Accounts.debit}'s result. 0: within the limit. */
export const Debit = {
  /** The response is over the limit. */
  exceeded: 1,
  /** … and the account was within its limit before: a new episode, worth a log line. */
  started: 2,
  /** … and it is this account's turn to slip a truncated reply (`slip-ratio`). */
  slip: 4,
  /** Within the limit, on an account recycled from another key (its set was full). */
  recycled: 8,
} as const;

/** Ways per set: a key looks at 8 slots at most. */
const maxWays = 8;
/** One second, the most credit an account holds. */
const secondMs = 1000;
/** In an account's state word: over its limit (logged once per episode); the low byte counts down to the next slip. */
const limitedBit = 0x100;

export class Accounts {
  /** Accounts per set. */
  readonly ways: number;
  /** Number of sets; `ways × sets` accounts in all, at most the `max-table-size` given. */
  readonly sets: number;
  /** Random seeds of the two hashes of a key (see `keyHash`). */
  readonly seedSet: number;
  readonly seedPrint: number;
  private readonly words: Int32Array;
  private readonly allowAt: Float64Array;

  /**
   * @param maxEntries `max-table-size`: accounts held at most; 0 holds none, and nothing is limited.
   * @param windowMs `window`: the deepest debt an account runs, in ms of credit.
   * @param slipRatio `slip-ratio`: every Nth response over the limit slips (0: none).
   * @param random source of the hash seeds (tests pass a fixed one).
   */
  constructor(
    maxEntries: number,
    readonly windowMs: number,
    readonly slipRatio: number,
    random: () => number = Math.random,
  ) {
    this.ways = Math.min(maxWays, maxEntries);
    this.sets = this.ways === 0 ? 0 : Math.floor(maxEntries / this.ways);
    const size = this.ways * this.sets;
    this.words = new Int32Array(2 * size);
    this.allowAt = new Float64Array(size);
    this.seedSet = (random() * 0x100000000) | 0;
    this.seedPrint = (random() * 0x100000000) | 0;
  }

  /** Accounts in use (a scan: for tests and metrics scrapes, never per query). */
  get size(): number {
    let n = 0;
    for (let i = 0; i < this.words.length; i += 2) if (this.words[i] !== 0) n++;
    return n;
  }

  /**
   * Debits one response of `intervalMs` (ms of credit; 0 never calls this) at `now` from the
   * account of the key whose hashes are `setHash` and `fingerprint`, creating the account when
   * the key has none. Returns {@link Debit} bits, 0 when the response is within the limit.
   */
  debit(setHash: number, fingerprint: number, intervalMs: number, now: number): number {
    if (this.sets === 0) return 0;
    const print = fingerprint === 0 ? 1 : fingerprint;
    const ways = this.ways;
    const first = ((setHash >>> 0) % this.sets) * ways;
    const words = this.words;
    const allowAt = this.allowAt;
    let victim = first;
    let victimAt = Infinity;
    let victimFree = false;
    for (let slot = first; slot < first + ways; slot++) {
      const held = words[2 * slot]!;
      if (held === print) return this.charge(slot, intervalMs, now);
      if (victimFree) continue;
      if (held === 0) {
        victim = slot;
        victimFree = true;
      } else if (allowAt[slot]! < victimAt) {
        victim = slot;
        victimAt = allowAt[slot]!;
      }
    }
    words[2 * victim] = print;
    words[2 * victim + 1] = this.slipRatio;
    // Full credit less this response.
    allowAt[victim] = now - secondMs + intervalMs;
    return victimFree ? 0 : Debit.recycled;
  }

  private charge(slot: number, intervalMs: number, now: number): number {
    let balance = now - this.allowAt[slot]! - intervalMs;
    if (balance >= secondMs) balance = secondMs - intervalMs;
    else if (balance < -this.windowMs) balance = -this.windowMs;
    this.allowAt[slot] = now - balance;
    const words = this.words;
    const state = words[2 * slot + 1]!;
    if (balance >= 0) {
      if (state >= limitedBit) words[2 * slot + 1] = state - limitedBit;
      return 0;
    }
    let result: number = Debit.exceeded;
    let slipLeft = state & 0xff;
    if (state < limitedBit) result |= Debit.started;
    if (this.slipRatio !== 0) {
      if (slipLeft <= 1) {
        slipLeft = this.slipRatio;
        result |= Debit.slip;
      } else {
        slipLeft--;
      }
    }
    words[2 * slot + 1] = limitedBit | slipLeft;
    return result;
  }
}
