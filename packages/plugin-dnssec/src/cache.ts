/**
 * The signature cache: RRSIG rdata by the RRset they sign, so a repeated answer costs a lookup
 * instead of a public-key operation (an ECDSA P-256 signature is about 20 µs of CPU on an idle
 * core, RSA-2048 about 1 ms). CoreDNS's `plugin/dnssec/cache.go` over `plugin/pkg/cache`.
 *
 * Entries are found by their key in a Map and evicted at random when the cache is full, as
 * CoreDNS's cache evicts (a random entry of the full shard): unlike FIFO or LRU, random eviction
 * keeps a share of a working set larger than the cache instead of losing all of it to a cyclic
 * scan. A random entry is found in O(1) through a dense array of the entries:
 *
 *   slots:   [ e0 | e1 | e2 | e3 ]      each entry knows its slot; a removal moves the last
 *              ^               |        entry into the freed slot, so the array stays dense
 *              └───────────────┘
 */

/** RRSIG rdata as dns-packet writes it. */
export interface RrsigData {
  readonly typeCovered: string;
  readonly algorithm: number;
  readonly labels: number;
  readonly originalTTL: number;
  readonly expiration: number;
  readonly inception: number;
  readonly keyTag: number;
  readonly signersName: string;
  readonly signature: Buffer;
}

/** The fields of an RRSIG that its signature covers: all but the signature itself. */
export type RrsigFields = Omit<RrsigData, 'signature'>;

/**
 * A signature as the cache keeps it: the bytes as a one-byte string. The Buffer node:crypto
 * returns holds a backing store of its own, about 1 KB of resident memory for 64 bytes of
 * ECDSA signature; the string is about 100 bytes on V8's heap. A hit makes a Buffer again from
 * the pool (a copy of 64 bytes), which the reply's encoding reads and drops.
 */
export interface CachedSignature {
  readonly fields: RrsigFields;
  readonly signature: string;
}

interface Entry {
  readonly key: string;
  slot: number;
  sigs: readonly CachedSignature[];
}

/** Signatures are made for 8 days; one with less than 2 days left (75% used) is made anew. */
export const REFRESH_MARGIN_SECONDS = 2 * 24 * 3600;

/**
 * True while the signatures are still good to hand out: `now + 2 days` falls inside every one's
 * validity period (CoreDNS's `ValidityPeriod(now + twoDays)`).
 */
export function isFresh(sigs: readonly CachedSignature[], nowSeconds: number): boolean {
  const at = nowSeconds + REFRESH_MARGIN_SECONDS;
  for (const { fields } of sigs) if (fields.inception > at || at > fields.expiration) return false;
  return true;
}

/** `sigs` as the cache keeps them. */
export function compact(sigs: readonly RrsigData[]): CachedSignature[] {
  return sigs.map(({ signature, ...fields }) => ({ fields, signature: signature.toString('latin1') }));
}

/** A cached signature as RRSIG rdata again. */
export function expand(sig: CachedSignature): RrsigData {
  // A literal, not a spread: it builds the object in one shape, three times faster on a hit.
  const f = sig.fields;
  return {
    typeCovered: f.typeCovered,
    algorithm: f.algorithm,
    labels: f.labels,
    originalTTL: f.originalTTL,
    expiration: f.expiration,
    inception: f.inception,
    keyTag: f.keyTag,
    signersName: f.signersName,
    signature: Buffer.from(sig.signature, 'latin1'),
  };
}

export class SignatureCache {
  private readonly entries = new Map<string, Entry>();
  private readonly slots: Entry[] = [];

  constructor(
    /** Most entries held; 0 holds none. */
    readonly capacity: number,
    /** A number in [0, 1): which entry a full cache evicts. Injectable for tests. */
    private readonly random: () => number = Math.random,
  ) {}

  get size(): number {
    return this.slots.length;
  }

  /** The signatures stored under `key`, when they are still fresh at `nowSeconds`. */
  get(key: string, nowSeconds: number): readonly CachedSignature[] | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined || !isFresh(entry.sigs, nowSeconds)) return undefined;
    return entry.sigs;
  }

  set(key: string, sigs: readonly CachedSignature[]): void {
    if (this.capacity === 0) return;
    const existing = this.entries.get(key);
    if (existing !== undefined) {
      existing.sigs = sigs;
      return;
    }
    if (this.slots.length >= this.capacity) this.remove(this.slots[Math.floor(this.random() * this.slots.length)]!);
    // A key built by concatenation is a rope of its parts; reading a character makes V8 flatten
    // it into one string, so the entry keeps that and not every piece (about 250 bytes less).
    key.charCodeAt(0);
    const entry: Entry = { key, slot: this.slots.length, sigs };
    this.slots.push(entry);
    this.entries.set(key, entry);
  }

  /** Drops every entry that is no longer fresh (CoreDNS's `periodicClean`); returns how many. */
  clean(nowSeconds: number): number {
    let removed = 0;
    for (let i = this.slots.length - 1; i >= 0; i--) {
      const entry = this.slots[i]!;
      if (isFresh(entry.sigs, nowSeconds)) continue;
      this.remove(entry);
      removed++;
    }
    return removed;
  }

  private remove(entry: Entry): void {
    this.entries.delete(entry.key);
    const last = this.slots.pop()!;
    if (last !== entry) {
      last.slot = entry.slot;
      this.slots[entry.slot] = last;
    }
  }
}
