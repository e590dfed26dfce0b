/**
 * The cache's entries: both caches (success and denial) in one store of numbered slots, with
 * CoreDNS's capacity and eviction (plugin/pkg/cache) and no object per entry.
 *
 *   index     Map<qname, slot> ──► slot ─next─► slot ─next─► -1   the entries of one name: other
 *                                                                 types, classes, DO/CD, either cache
 *   columns   qtype[slot] storedMs[slot] ttlSeconds[slot] …       typed arrays, one per field
 *   slab      pages of 64 blocks of 256 bytes: block `slot` holds the reply's wire bytes;
 *             a longer reply has an array of its own (`large`)
 *   slots     success [0, S) · denial [S, S + D), each cache split into 256 shards by a hash of the
 *             key; a full shard makes room by evicting one of its entries at random
 *
 * Why not an object and a Buffer per entry behind lru-cache: a full default cache (2 × 9,984
 * entries) held about 80 MB resident that way, and least-recently-used eviction turns a working
 * set just above the capacity into all misses (every query evicts the entry asked next); CoreDNS's
 * random pick in a shard keeps most of them. Here an entry is a 256-byte block, a few dozen bytes
 * of columns and its name: nothing for the garbage collector to trace but the name.
 *
 * A hit copies the block and patches it (`reply`):
 *
 *   stored    ┌────────┬──────────────┬────────────────────────────────────────────┐
 *             │ header │ question     │ RRs (answer, authority, additional; no OPT) │
 *             └────────┴──────────────┴────────────────────────────────────────────┘
 *   per hit    ID,flags  client's case   TTL fields (in the block itself, when the
 *                                        remaining TTL changes: once a second at most)
 *                                                                     + OPT for EDNS clients
 */
// Bindings, not globals: per query (docs/architecture.md, "Per-query code").
import { Buffer } from 'node:buffer';
import { Flags, HEADER_LENGTH, OFFSET_ANCOUNT, OFFSET_ARCOUNT, OFFSET_FLAGS, OFFSET_NSCOUNT, REPLY_COPIED_FLAGS, TYPE_OPT } from '@foghorn/core';
import type { Request } from '@foghorn/core';
import { questionEnd as findQuestionEnd, skipName } from '@foghorn/core/wire';
import type { ResponseType } from '@foghorn/core/wire';

/** Which of the two caches an entry is in. */
export const enum Tier {
  Success = 0,
  Denial = 1,
}

/** The key bits besides name, type and class: DO and CD (CoreDNS keys on both). */
export function keyBits(req: Request): number {
  return (req.dnssecOk ? 2 : 0) | ((req.flags & Flags.CD) !== 0 ? 1 : 0);
}

/** CoreDNS splits each cache into 256 shards of at least 4 entries (plugin/pkg/cache). */
export const SHARDS = 256;
const MIN_SHARD_SIZE = 4;

/** The entries a cache of `capacity` really holds: 256 × max(⌊capacity/256⌋, 4), so at least 1024. */
export function effectiveCapacity(capacity: number): number {
  return SHARDS * shardSize(capacity);
}

function shardSize(capacity: number): number {
  return Math.max(Math.floor(capacity / SHARDS), MIN_SHARD_SIZE);
}

/**
 * Bytes of a block. A reply to an A or AAAA query with a record or two, or a denial with its SOA,
 * takes 60 to 200 bytes; a longer one gets an array of its own.
 */
export const BLOCK_BYTES = 256;
const PAGE_SHIFT = 6;
/** Blocks per page: 16 KiB pages, allocated as slots are first used. */
const PAGE_BLOCKS = 1 << PAGE_SHIFT;
const PAGE_MASK = PAGE_BLOCKS - 1;

/** State bits of a slot. */
const enum State {
  Used = 1,
  /** AD was set in the stored reply. */
  Authenticated = 2,
  /** The reply answers the question (serve_stale_policy prefer_positive). */
  Answers = 4,
  /** A prefetch or stale refresh of the entry is in flight. */
  Refreshing = 8,
}

/** What {@link EntryStore.put} records besides the key and the bytes. */
export interface EntryInfo {
  /** The TTL written in every record, in seconds: the stored duration. */
  readonly ttlSeconds: number;
  readonly nowMs: number;
  readonly kind: ResponseType;
  /** True when the reply answers the question (serve_stale_policy prefer_positive). */
  readonly answers: boolean;
  /**
   * Keep the prefetch hit count of the entry being replaced: a refresh, whose entry keeps the
   * popularity the old one earned (CoreDNS's `doPrefetch`). A miss starts from zero.
   */
  readonly keepHits: boolean;
}

/** The shard of a key: FNV-1a (32 bits) of it, as CoreDNS's FNV-64 of its key picks one. */
export function shardOf(qname: string, qtype: number, qclass: number, bits: number): number {
  let h = 0x811c9dc5;
  h = Math.imul(h ^ bits, 0x01000193);
  h = Math.imul(h ^ (qtype >> 8), 0x01000193);
  h = Math.imul(h ^ (qtype & 0xff), 0x01000193);
  h = Math.imul(h ^ (qclass >> 8), 0x01000193);
  h = Math.imul(h ^ (qclass & 0xff), 0x01000193);
  for (let i = 0; i < qname.length; i++) h = Math.imul(h ^ qname.charCodeAt(i), 0x01000193);
  return (h >>> 0) & (SHARDS - 1);
}

/**
 * Offsets of the TTL field of every record of `wire[from, to)` (question first): `visit(offset)`
 * for each. Returns false when a name or a record runs past `to`, or there is no question.
 */
function walkTtls(wire: Uint8Array, from: number, to: number, visit: ((offset: number) => void) | null): boolean {
  if (to - from < HEADER_LENGTH || ((wire[from + 4]! << 8) | wire[from + 5]!) === 0) return false;
  const records = ((wire[from + OFFSET_ANCOUNT]! << 8) | wire[from + OFFSET_ANCOUNT + 1]!) + ((wire[from + OFFSET_NSCOUNT]! << 8) | wire[from + OFFSET_NSCOUNT + 1]!) + ((wire[from + OFFSET_ARCOUNT]! << 8) | wire[from + OFFSET_ARCOUNT + 1]!);
  let offset = skipName(wire, from + HEADER_LENGTH);
  if (offset < 0 || offset + 4 > to) return false;
  offset += 4;
  for (let i = 0; i < records; i++) {
    const end = skipName(wire, offset);
    if (end < 0 || end + 10 > to) return false;
    visit?.(end + 4);
    offset = end + 10 + ((wire[end + 8]! << 8) | wire[end + 9]!);
    if (offset > to) return false;
  }
  return true;
}

/** The two caches' entries (see the module comment). */
export class EntryStore {
  /** Slots of the success cache are [0, denialBase), of the denial cache [denialBase, slots). */
  private readonly denialBase: number;
  private readonly successShardSize: number;
  private readonly denialShardSize: number;

  /** Head slot of each name's chain. */
  private readonly index = new Map<string, number>();
  /** The name of each slot in use (the index's key), undefined when free. */
  private readonly names: (string | undefined)[];
  /** Next slot of the same name, -1 at the end. */
  private readonly nextOfName: Int32Array;

  readonly qtype: Uint16Array;
  readonly qclass: Uint16Array;
  private readonly bits: Uint8Array;
  private readonly state: Uint8Array;
  /** The reply kind ({@link ResponseType}). */
  readonly kind: Uint8Array;
  /** The TTL stored, in seconds: the clamped duration. */
  readonly ttlSeconds: Int32Array;
  /** When the entry was stored, in milliseconds. */
  private readonly storedMs: Float64Array;
  /** The TTL now written in the block's TTL fields, -1 for none yet. */
  private readonly wireTtl: Int32Array;
  /** Bytes of the reply (no OPT). */
  readonly length: Uint16Array;
  /** Length of the question name on the wire, from offset 12. */
  private readonly nameLength: Uint8Array;
  /** QR, AA, RA and the rcode: the header bits a hit takes from the entry. */
  private readonly flagsBase: Uint16Array;
  /** Hits counted for prefetch, and when the last one was (CoreDNS's `freq.Freq`). */
  readonly hits: Int32Array;
  readonly lastHitMs: Float64Array;
  /** When the last refresh of the entry failed, for serve_stale's FAILURE_RECHECK. */
  readonly failedAtMs: Float64Array;
  /**
   * Bumped each time a slot gets another entry: a refresh that outlives its entry (evicted and
   * the slot reused) must not touch the one in its place.
   */
  readonly generation: Uint32Array;

  /** Each shard's slots, packed at the front of the shard's range; and where each slot sits there. */
  private readonly members: Int32Array;
  private readonly memberAt: Int32Array;
  private readonly shardCount: Uint16Array;
  private readonly shardOf: Uint8Array;
  /** Slots given back by `remove`, per cache, and the next never-used slot of each. */
  private readonly freeSlots: Int32Array;
  private readonly freeCount = [0, 0];
  private readonly fresh: [number, number];
  private readonly counts = [0, 0];

  private readonly pages: (Uint8Array | undefined)[] = [];
  private readonly large = new Map<number, Uint8Array>();

  /** Set by {@link find}: the matching slot of each cache, or -1. */
  foundSuccess = -1;
  foundDenial = -1;
  /** Set by {@link put}: whether storing evicted another entry. */
  evicted = false;

  constructor(
    /** Capacities as written (`success 10000`): each cache holds {@link effectiveCapacity} of its own. */
    successCapacity: number,
    denialCapacity: number,
    /** Picks the entry a full shard evicts, in [0, 1); tests fix it. */
    private readonly random: () => number = Math.random,
  ) {
    this.successShardSize = shardSize(successCapacity);
    this.denialShardSize = shardSize(denialCapacity);
    this.denialBase = SHARDS * this.successShardSize;
    const slots = this.denialBase + SHARDS * this.denialShardSize;
    this.fresh = [0, this.denialBase];
    this.names = new Array<string | undefined>(slots);
    this.nextOfName = new Int32Array(slots);
    this.qtype = new Uint16Array(slots);
    this.qclass = new Uint16Array(slots);
    this.bits = new Uint8Array(slots);
    this.state = new Uint8Array(slots);
    this.kind = new Uint8Array(slots);
    this.ttlSeconds = new Int32Array(slots);
    this.storedMs = new Float64Array(slots);
    this.wireTtl = new Int32Array(slots);
    this.length = new Uint16Array(slots);
    this.nameLength = new Uint8Array(slots);
    this.flagsBase = new Uint16Array(slots);
    this.hits = new Int32Array(slots);
    this.lastHitMs = new Float64Array(slots);
    this.failedAtMs = new Float64Array(slots);
    this.generation = new Uint32Array(slots);
    this.members = new Int32Array(slots);
    this.memberAt = new Int32Array(slots);
    this.shardCount = new Uint16Array(2 * SHARDS);
    this.shardOf = new Uint8Array(slots);
    this.freeSlots = new Int32Array(slots);
  }

  /** Entries in a cache. */
  count(tier: Tier): number {
    return this.counts[tier]!;
  }

  /** Sets {@link foundSuccess} and {@link foundDenial} to the entries for this question. */
  find(qname: string, qtype: number, qclass: number, bits: number): void {
    let success = -1;
    let denial = -1;
    let slot = this.index.get(qname);
    if (slot !== undefined) {
      const types = this.qtype;
      for (; slot >= 0; slot = this.nextOfName[slot]!) {
        if (types[slot] !== qtype || this.qclass[slot] !== qclass || this.bits[slot] !== bits) continue;
        if (slot < this.denialBase) success = slot;
        else denial = slot;
      }
    }
    this.foundSuccess = success;
    this.foundDenial = denial;
  }

  /** Seconds left, negative once expired: stored TTL − whole seconds since stored. */
  ttlAt(slot: number, nowMs: number): number {
    return this.ttlSeconds[slot]! - Math.trunc((nowMs - this.storedMs[slot]!) / 1000);
  }

  /** True when the entry's reply answers the question. */
  answers(slot: number): boolean {
    return (this.state[slot]! & State.Answers) !== 0;
  }

  isRefreshing(slot: number): boolean {
    return (this.state[slot]! & State.Refreshing) !== 0;
  }

  setRefreshing(slot: number, refreshing: boolean): void {
    this.state[slot] = refreshing ? this.state[slot]! | State.Refreshing : this.state[slot]! & ~State.Refreshing;
  }

  /**
   * Stores `wire` (a reply without OPT, its TTLs already `info.ttlSeconds`) as the entry for the
   * question in `tier`, in place of the one there, or evicting one of the shard's entries at
   * random when the shard is full (sets {@link evicted}). Returns the slot, or -1 when the bytes
   * cannot be walked (no question, a name running off the end): such a reply is not cached.
   */
  put(tier: Tier, qname: string, qtype: number, qclass: number, bits: number, wire: Uint8Array, info: EntryInfo): number {
    this.evicted = false;
    const end = findQuestionEnd(wire);
    if (end < 0 || wire.length > 0xffff || !walkTtls(wire, 0, wire.length, null)) return -1;
    this.find(qname, qtype, qclass, bits);
    let slot = tier === Tier.Success ? this.foundSuccess : this.foundDenial;
    let hits = 0;
    let lastHitMs = Number.NEGATIVE_INFINITY;
    if (slot >= 0) {
      if (info.keepHits) {
        hits = this.hits[slot]!;
        lastHitMs = this.lastHitMs[slot]!;
      }
    } else {
      slot = this.claim(tier, shardOf(qname, qtype, qclass, bits));
      const head = this.index.get(qname);
      this.nextOfName[slot] = head ?? -1;
      this.index.set(qname, slot);
      this.names[slot] = qname;
      this.qtype[slot] = qtype;
      this.qclass[slot] = qclass;
      this.bits[slot] = bits;
    }
    const flags = (wire[OFFSET_FLAGS]! << 8) | wire[OFFSET_FLAGS + 1]!;
    this.state[slot] = State.Used | ((flags & Flags.AD) !== 0 ? State.Authenticated : 0) | (info.answers ? State.Answers : 0);
    this.flagsBase[slot] = Flags.QR | Flags.AA | (flags & Flags.RA) | (flags & Flags.RCODE);
    this.kind[slot] = info.kind;
    this.ttlSeconds[slot] = info.ttlSeconds;
    this.storedMs[slot] = info.nowMs;
    this.wireTtl[slot] = info.ttlSeconds;
    this.nameLength[slot] = end - 4 - HEADER_LENGTH;
    this.hits[slot] = hits;
    this.lastHitMs[slot] = lastHitMs;
    this.failedAtMs[slot] = Number.NEGATIVE_INFINITY;
    this.generation[slot] = (this.generation[slot]! + 1) >>> 0;
    this.length[slot] = wire.length;
    if (wire.length > BLOCK_BYTES) {
      // A copy: `wire` may be a view of a larger buffer, which the entry must not keep alive.
      this.large.set(slot, new Uint8Array(wire));
    } else {
      this.large.delete(slot);
      const pageIndex = slot >> PAGE_SHIFT;
      const page = (this.pages[pageIndex] ??= new Uint8Array(PAGE_BLOCKS * BLOCK_BYTES));
      page.set(wire, (slot & PAGE_MASK) * BLOCK_BYTES);
    }
    return slot;
  }

  /** Removes the entry for the question from `tier`, if there is one. */
  remove(tier: Tier, qname: string, qtype: number, qclass: number, bits: number): void {
    this.find(qname, qtype, qclass, bits);
    const slot = tier === Tier.Success ? this.foundSuccess : this.foundDenial;
    if (slot < 0) return;
    this.release(slot);
    this.freeSlots[tier === Tier.Success ? this.freeCount[0]!++ : this.denialBase + this.freeCount[1]!++] = slot;
  }

  /**
   * The reply to `req` from the entry in `slot`, with every record's TTL set to `ttl`: ID and
   * question case from the query, AA set, AD kept only when the client sent DO or AD, and for an
   * EDNS client an OPT echoing its UDP size, DO bit and echoable options (what the scrub writer
   * would add, docs/compatibility.md, "Scrub").
   */
  reply(slot: number, req: Request, ttl: number): Buffer {
    const length = this.length[slot]!;
    let source: Uint8Array;
    let base: number;
    if (length > BLOCK_BYTES) {
      source = this.large.get(slot)!;
      base = 0;
    } else {
      source = this.pages[slot >> PAGE_SHIFT]!;
      base = (slot & PAGE_MASK) * BLOCK_BYTES;
    }
    if (ttl !== this.wireTtl[slot]) {
      // Once a second at most per entry: the TTL fields are found again rather than kept.
      walkTtls(source, base, base + length, (at) => {
        source[at] = ttl >>> 24;
        source[at + 1] = (ttl >>> 16) & 0xff;
        source[at + 2] = (ttl >>> 8) & 0xff;
        source[at + 3] = ttl & 0xff;
      });
      this.wireTtl[slot] = ttl;
    }
    const options = req.hasEdns ? req.ednsOptions : null;
    let optLength = 0;
    if (req.hasEdns) {
      optLength = 11;
      if (options !== null) for (const option of options) optLength += 4 + option.data.length;
    }
    const out = Buffer.allocUnsafe(length + optLength);
    out.set(base === 0 && source.length === length ? source : source.subarray(base, base + length), 0);
    out[0] = req.id >> 8;
    out[1] = req.id & 0xff;
    let flags = this.flagsBase[slot]! | (req.flags & REPLY_COPIED_FLAGS);
    if ((this.state[slot]! & State.Authenticated) !== 0 && (req.dnssecOk || (req.flags & Flags.AD) !== 0)) flags |= Flags.AD;
    out[2] = flags >> 8;
    out[3] = flags & 0xff;
    // The client's question case (0x20), when its name is laid out like ours (uncompressed).
    const raw = req.raw;
    const end = HEADER_LENGTH + this.nameLength[slot]!;
    // A loop: Buffer's copy makes a view per call, which costs more than these few dozen bytes.
    if (raw.length >= end + 2 && raw[end - 1] === 0 && ((raw[end]! << 8) | raw[end + 1]!) === this.qtype[slot]) for (let i = HEADER_LENGTH; i < end; i++) out[i] = raw[i]!;
    if (optLength > 0) {
      let at = length;
      out[at++] = 0; // root name
      out[at++] = 0;
      out[at++] = TYPE_OPT;
      out[at++] = req.udpSize >> 8;
      out[at++] = req.udpSize & 0xff;
      out[at++] = 0; // extended rcode
      out[at++] = 0; // version
      out[at++] = req.dnssecOk ? 0x80 : 0;
      out[at++] = 0;
      const rdLength = optLength - 11;
      out[at++] = rdLength >> 8;
      out[at++] = rdLength & 0xff;
      if (options !== null) {
        for (const option of options) {
          out.writeUInt16BE(option.code, at);
          out.writeUInt16BE(option.data.length, at + 2);
          option.data.copy(out, at + 4);
          at += 4 + option.data.length;
        }
      }
      out.writeUInt16BE(out.readUInt16BE(OFFSET_ARCOUNT) + 1, OFFSET_ARCOUNT);
    }
    return out;
  }

  /** A slot for a new entry in `shard` of `tier`: a free one, or a random member's when it is full. */
  private claim(tier: Tier, shard: number): number {
    const size = tier === Tier.Success ? this.successShardSize : this.denialShardSize;
    const first = (tier === Tier.Success ? 0 : this.denialBase) + shard * size;
    const countAt = tier * SHARDS + shard;
    const count = this.shardCount[countAt]!;
    if (count >= size) {
      const victim = this.members[first + Math.floor(this.random() * count)]!;
      this.unlinkName(victim);
      this.evicted = true;
      // Same shard, same member position: only the key changes.
      return victim;
    }
    let slot: number;
    if (this.freeCount[tier]! > 0) slot = this.freeSlots[(tier === Tier.Success ? 0 : this.denialBase) + --this.freeCount[tier]!]!;
    else slot = this.fresh[tier]++;
    this.members[first + count] = slot;
    this.memberAt[slot] = first + count;
    this.shardOf[slot] = shard;
    this.shardCount[countAt] = count + 1;
    this.counts[tier]!++;
    return slot;
  }

  /** Takes `slot` out of the index and its shard, and forgets its bytes. */
  private release(slot: number): void {
    this.unlinkName(slot);
    const tier = slot < this.denialBase ? Tier.Success : Tier.Denial;
    const size = tier === Tier.Success ? this.successShardSize : this.denialShardSize;
    const shard = this.shardOf[slot]!;
    const first = (tier === Tier.Success ? 0 : this.denialBase) + shard * size;
    const countAt = tier * SHARDS + shard;
    const last = first + this.shardCount[countAt]! - 1;
    // The shard's last member takes the released one's place: members stay packed.
    const at = this.memberAt[slot]!;
    const moved = this.members[last]!;
    this.members[at] = moved;
    this.memberAt[moved] = at;
    this.shardCount[countAt] = this.shardCount[countAt]! - 1;
    this.counts[tier]!--;
    this.state[slot] = 0;
    this.generation[slot] = (this.generation[slot]! + 1) >>> 0;
    this.large.delete(slot);
  }

  /** Takes `slot` out of its name's chain, and the name out of the index when it was the last. */
  private unlinkName(slot: number): void {
    const name = this.names[slot]!;
    const head = this.index.get(name)!;
    const next = this.nextOfName[slot]!;
    if (head === slot) {
      if (next < 0) this.index.delete(name);
      else this.index.set(name, next);
    } else {
      let before = head;
      while (this.nextOfName[before] !== slot) before = this.nextOfName[before]!;
      this.nextOfName[before] = next;
    }
    this.names[slot] = undefined;
  }
}
