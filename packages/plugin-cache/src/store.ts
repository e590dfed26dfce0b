/**
 * The cache's entries: both caches (success and denial) in one store of numbered slots, with
 * CoreDNS's capacity and eviction (plugin/pkg/cache), and no object, string or Map entry per
 * entry.
 *
 *   table   open addressing over [hash, slot + 1] pairs (Int32Array, at most 1/2 full): the key's
 *           hash is computed from the query's own wire bytes (name folded to lower case, type,
 *           class, DO and CD), so a lookup builds no key
 *   slab    16 KiB pages of 64 blocks of 256 bytes, allocated as slots are first used; block
 *           `slot` is the entry:
 *
 *           ┌────────────── 32-byte header ──────────────┬──────── reply, up to 224 bytes ────────┐
 *           │ hash qtype qclass bits state kind nameLen  │ header │ question │ RRs (no OPT)      │
 *           │ flags length ttl wireTtl storedMs          │        │          │                   │
 *           └────────────────────────────────────────────┴────────────────────────────────────────┘
 *           a longer reply has an array of its own (`large`); its header stays in the block
 *   slots   success [0, S) · denial [S, S + D), each cache split into 256 shards by CoreDNS's
 *           hash of the key (`shardOf`); a full shard makes room by evicting one of its entries
 *           at random
 *
 * Why: an Entry object, a Buffer and a Uint32Array of TTL offsets per entry behind lru-cache held
 * 1,189 bytes an entry, and least-recently-used eviction turns a working set just above the
 * capacity into all misses (every query evicts the entry asked for next); CoreDNS's random pick
 * in a shard keeps most of it. Then, with a field per typed array and a Map from names, a hit
 * on a cold entry read a dozen cache lines in as many places; here it reads the table's pair,
 * then one block, front to back.
 *
 * A hit copies the reply and patches the copy (`reply`): ID, flags and the question's case from
 * the query, and an OPT for EDNS clients. The TTL fields are rewritten in the block itself when
 * the remaining TTL changes, once a second at most per entry.
 */
// Bindings, not globals: per query (docs/architecture.md, "Per-query code").
import { Buffer } from 'node:buffer';
import { Flags, HEADER_LENGTH, OFFSET_ANCOUNT, OFFSET_ARCOUNT, OFFSET_FLAGS, OFFSET_NSCOUNT, REPLY_COPIED_FLAGS, TYPE_OPT } from '@foghorn/core';
import type { Request } from '@foghorn/core';
import { skipName } from '@foghorn/core/wire';
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

/** Bytes of a block: the entry's header and, when it fits, its reply. */
export const BLOCK_BYTES = 256;
const PAGE_SHIFT = 6;
/** Blocks per page: 16 KiB pages. */
const PAGE_BLOCKS = 1 << PAGE_SHIFT;
const PAGE_MASK = PAGE_BLOCKS - 1;

/** Byte offsets in a block: the header, then the reply. Aligned for the page's typed views. */
const H_HASH = 0; // i32: the key's hash, to find the entry's pair in the table
const H_QTYPE = 4; // u16
const H_QCLASS = 6; // u16
const H_BITS = 8; // u8: DO and CD
const H_STATE = 9; // u8: State bits
const H_KIND = 10; // u8: the ResponseType
const H_NAME_LENGTH = 11; // u8: the question name's length on the wire
const H_FLAGS = 12; // u16: QR, AA, RA and the rcode, the header bits a hit takes from the entry
const H_LENGTH = 14; // u16: bytes of the reply (no OPT)
const H_TTL = 16; // i32: the TTL stored, in seconds: the clamped duration
const H_WIRE_TTL = 20; // i32: the TTL now written in the reply's TTL fields
const H_STORED_MS = 24; // f64: when the entry was stored, in milliseconds
const HEADER_BYTES = 32;
/** The longest reply kept in its block. A reply to an A or AAAA query, or a denial with its SOA, takes 60 to 200 bytes. */
export const INLINE_BYTES = BLOCK_BYTES - HEADER_BYTES;

/** State bits of an entry. */
const enum State {
  /** AD was set in the stored reply. */
  Authenticated = 1,
  /** The reply answers the question (serve_stale_policy prefer_positive). */
  Answers = 2,
  /** A prefetch or stale refresh of the entry is in flight. */
  Refreshing = 4,
}

/** One page of blocks and the typed views its header fields are read through. */
interface Page {
  readonly bytes: Uint8Array;
  readonly u16: Uint16Array;
  readonly i32: Int32Array;
  readonly f64: Float64Array;
}

function newPage(): Page {
  const buffer = new ArrayBuffer(PAGE_BLOCKS * BLOCK_BYTES);
  return { bytes: new Uint8Array(buffer), u16: new Uint16Array(buffer), i32: new Int32Array(buffer), f64: new Float64Array(buffer) };
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

/**
 * Offsets of the TTL field of every record of the reply in `wire[from, to)`: `visit(offset)` for
 * each. Returns false when a name or a record runs past `to`, or there is no question.
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

const lower = (byte: number): number => (byte >= 0x41 && byte <= 0x5a ? byte | 0x20 : byte);

/**
 * Whether the question name of the query `raw` (`length` bytes from offset 12) and the name at
 * `source[start]` are the same, ASCII letters compared without case (RFC 4343). Label lengths
 * (at most 63) are never letters, so they compare as they are.
 */
function sameName(raw: Uint8Array, source: Uint8Array, start: number, length: number): boolean {
  if (start + length > source.length) return false;
  for (let i = 0; i < length; i++) {
    const a = raw[HEADER_LENGTH + i]!;
    const b = source[start + i]!;
    if (a !== b && lower(a) !== lower(b)) return false;
  }
  return true;
}

/** The question name's length on the wire, set by {@link questionHash} (saves a result object). */
let questionNameLength = 0;

/**
 * The key's hash, from the query's wire bytes: FNV-1a over the question name with ASCII letters
 * folded to lower case (RFC 4343), then type, class and the key bits, mixed (murmur3's
 * finalizer) so that its low bits pick shards and table pairs evenly. -1 when the name is not
 * written out label by label. Sets {@link questionNameLength}.
 */
function questionHash(raw: Uint8Array, qtype: number, qclass: number, bits: number): number {
  let h = 0x811c9dc5;
  let offset = HEADER_LENGTH;
  for (;;) {
    const label = raw[offset];
    if (label === undefined || label > 63) return -1;
    h = Math.imul(h ^ label, 0x01000193);
    if (label === 0) break;
    const end = offset + 1 + label;
    for (let i = offset + 1; i < end; i++) h = Math.imul(h ^ lower(raw[i]!), 0x01000193);
    offset = end;
  }
  questionNameLength = offset + 1 - HEADER_LENGTH;
  h = Math.imul(h ^ qtype, 0x01000193);
  h = Math.imul(h ^ qclass, 0x01000193);
  h = Math.imul(h ^ bits, 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * The shard of a key, as CoreDNS 1.12 picks it: the low byte of the FNV-1 (64-bit) hash of "1"
 * or "0" for DO, the same for CD, the type's two bytes and the lower-cased name with its final
 * dot (plugin/cache's `hash`, plugin/pkg/cache's `Add`). The low byte of a product depends only
 * on the low bytes of its factors, so 8-bit arithmetic gives it. Same shards, same evictions: a
 * set of names fills CoreDNS's shards and these alike (10,000 names `hN.example.org` leave both
 * with 9,504 entries of 9,984).
 */
export function shardOf(qname: string, qtype: number, bits: number): number {
  let h = 0x25; // FNV-1 64's offset basis, 0xcbf29ce484222325, low byte
  // × 0x100000001b3 (its prime), low byte 0xb3, then ^ the byte
  h = (Math.imul(h, 0xb3) & 0xff) ^ ((bits & 2) !== 0 ? 0x31 : 0x30);
  h = (Math.imul(h, 0xb3) & 0xff) ^ ((bits & 1) !== 0 ? 0x31 : 0x30);
  h = (Math.imul(h, 0xb3) & 0xff) ^ (qtype >> 8);
  h = (Math.imul(h, 0xb3) & 0xff) ^ (qtype & 0xff);
  for (let i = 0; i < qname.length; i++) h = (Math.imul(h, 0xb3) & 0xff) ^ (qname.charCodeAt(i) & 0xff);
  return h;
}

/** The two caches' entries (see the module comment). */
export class EntryStore {
  /** Slots of the success cache are [0, denialBase), of the denial cache [denialBase, slots). */
  private readonly denialBase: number;
  private readonly successShardSize: number;
  private readonly denialShardSize: number;

  /** [hash, slot + 1] pairs; slot + 1 = 0 marks an empty pair. */
  private readonly table: Int32Array;
  private readonly tableMask: number;
  private readonly pages: (Page | undefined)[] = [];
  private readonly large = new Map<number, Uint8Array>();

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
  private readonly shard: Uint8Array;
  private readonly shardCount: Uint16Array;
  /** Slots given back by `remove`: success's stack from 0, denial's from denialBase. */
  private readonly freeSlots: Int32Array;
  private readonly freeCount = new Int32Array(2);
  /** The next never-used slot of each cache. */
  private readonly fresh: Int32Array;
  private readonly counts = new Int32Array(2);

  /** The question name's length on the wire, as {@link find} read it last. */
  private nameLength = 0;
  /** The key's hash {@link find} computed last, -1 for a question it does not look up. */
  private lastHash = -1;
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
    let pairs = 1024;
    while (pairs < 2 * slots) pairs *= 2;
    this.table = new Int32Array(2 * pairs);
    this.tableMask = pairs - 1;
    this.fresh = Int32Array.of(0, this.denialBase);
    this.hits = new Int32Array(slots);
    this.lastHitMs = new Float64Array(slots);
    this.failedAtMs = new Float64Array(slots);
    this.generation = new Uint32Array(slots);
    this.members = new Int32Array(slots);
    this.memberAt = new Int32Array(slots);
    this.shard = new Uint8Array(slots);
    this.shardCount = new Uint16Array(2 * SHARDS);
    this.freeSlots = new Int32Array(slots);
  }

  /** Entries in a cache. */
  count(tier: Tier): number {
    return this.counts[tier]!;
  }

  /**
   * Sets {@link foundSuccess} and {@link foundDenial} to the entries for the question of `req`
   * with the key bits `bits`, -1 where there is none. A question whose name is not written out
   * (a compression pointer, which no client sends in a question) has none.
   */
  find(req: Request, bits: number): void {
    let success = -1;
    let denial = -1;
    const hash = questionHash(req.raw, req.qtype, req.qclass, bits);
    this.lastHash = hash;
    this.nameLength = questionNameLength;
    if (hash !== -1) {
      const table = this.table;
      const mask = this.tableMask;
      const key = hash | 0;
      for (let i = hash & mask; ; i = (i + 1) & mask) {
        const stored = table[2 * i + 1]!;
        if (stored === 0) break;
        if (table[2 * i] !== key || !this.matches(stored - 1, req, bits)) continue;
        if (stored - 1 < this.denialBase) success = stored - 1;
        else denial = stored - 1;
      }
    }
    this.foundSuccess = success;
    this.foundDenial = denial;
  }

  /** Seconds left, negative once expired: stored TTL − whole seconds since stored. */
  ttlAt(slot: number, nowMs: number): number {
    const page = this.pages[slot >> PAGE_SHIFT]!;
    const at = (slot & PAGE_MASK) * BLOCK_BYTES;
    return page.i32[(at + H_TTL) >> 2]! - Math.trunc((nowMs - page.f64[(at + H_STORED_MS) >> 3]!) / 1000);
  }

  /** The TTL stored, in seconds. */
  ttlSeconds(slot: number): number {
    return this.pages[slot >> PAGE_SHIFT]!.i32[((slot & PAGE_MASK) * BLOCK_BYTES + H_TTL) >> 2]!;
  }

  /** Bytes of the stored reply, without the OPT {@link reply} adds for an EDNS client. */
  length(slot: number): number {
    return this.pages[slot >> PAGE_SHIFT]!.u16[((slot & PAGE_MASK) * BLOCK_BYTES + H_LENGTH) >> 1]!;
  }

  /** The reply's kind. */
  kind(slot: number): ResponseType {
    return this.pages[slot >> PAGE_SHIFT]!.bytes[(slot & PAGE_MASK) * BLOCK_BYTES + H_KIND]!;
  }

  /** True when the entry's reply answers the question. */
  answers(slot: number): boolean {
    return (this.state(slot) & State.Answers) !== 0;
  }

  private state(slot: number): number {
    return this.pages[slot >> PAGE_SHIFT]!.bytes[(slot & PAGE_MASK) * BLOCK_BYTES + H_STATE]!;
  }

  isRefreshing(slot: number): boolean {
    return (this.state(slot) & State.Refreshing) !== 0;
  }

  setRefreshing(slot: number, refreshing: boolean): void {
    const bytes = this.pages[slot >> PAGE_SHIFT]!.bytes;
    const at = (slot & PAGE_MASK) * BLOCK_BYTES + H_STATE;
    bytes[at] = refreshing ? bytes[at]! | State.Refreshing : bytes[at]! & ~State.Refreshing;
  }

  /**
   * Stores `wire` (a reply without OPT) with every record's TTL set to `info.ttlSeconds` as the
   * entry for the question of `req` in `tier`, in place of the one there, or evicting one of the shard's
   * entries at random when the shard is full (sets {@link evicted}). Returns the slot, or -1
   * when the bytes cannot be walked (no question, a name running off the end) or their
   * question's name is not the query's written alike: such a reply is not cached.
   */
  put(tier: Tier, req: Request, bits: number, wire: Uint8Array, info: EntryInfo): number {
    this.evicted = false;
    if (wire.length > 0xffff || !walkTtls(wire, 0, wire.length, null)) return -1;
    this.find(req, bits);
    const hash = this.lastHash;
    // A hit copies the query's name over the stored one, byte for byte: same length, same labels.
    if (hash === -1 || wire[HEADER_LENGTH + this.nameLength - 1] !== 0 || !sameName(req.raw, wire, HEADER_LENGTH, this.nameLength)) return -1;
    let slot = tier === Tier.Success ? this.foundSuccess : this.foundDenial;
    let hits = 0;
    let lastHitMs = Number.NEGATIVE_INFINITY;
    if (slot >= 0) {
      if (info.keepHits) {
        hits = this.hits[slot]!;
        lastHitMs = this.lastHitMs[slot]!;
      }
    } else {
      slot = this.claim(tier, shardOf(req.qname, req.qtype, bits));
      this.insert(hash | 0, slot);
    }
    const page = (this.pages[slot >> PAGE_SHIFT] ??= newPage());
    const at = (slot & PAGE_MASK) * BLOCK_BYTES;
    const flags = (wire[OFFSET_FLAGS]! << 8) | wire[OFFSET_FLAGS + 1]!;
    page.i32[(at + H_HASH) >> 2] = hash | 0;
    page.u16[(at + H_QTYPE) >> 1] = req.qtype;
    page.u16[(at + H_QCLASS) >> 1] = req.qclass;
    page.bytes[at + H_BITS] = bits;
    page.bytes[at + H_STATE] = ((flags & Flags.AD) !== 0 ? State.Authenticated : 0) | (info.answers ? State.Answers : 0);
    page.bytes[at + H_KIND] = info.kind;
    page.bytes[at + H_NAME_LENGTH] = this.nameLength;
    page.u16[(at + H_FLAGS) >> 1] = Flags.QR | Flags.AA | (flags & Flags.RA) | (flags & Flags.RCODE);
    page.u16[(at + H_LENGTH) >> 1] = wire.length;
    page.i32[(at + H_TTL) >> 2] = info.ttlSeconds;
    page.i32[(at + H_WIRE_TTL) >> 2] = -1;
    page.f64[(at + H_STORED_MS) >> 3] = info.nowMs;
    if (wire.length > INLINE_BYTES) {
      // A copy: `wire` may be a view of a larger buffer, which the entry must not keep alive.
      this.large.set(slot, new Uint8Array(wire));
    } else {
      this.large.delete(slot);
      page.bytes.set(wire, at + HEADER_BYTES);
    }
    this.writeTtls(slot, info.ttlSeconds);
    this.hits[slot] = hits;
    this.lastHitMs[slot] = lastHitMs;
    this.failedAtMs[slot] = Number.NEGATIVE_INFINITY;
    this.generation[slot] = (this.generation[slot]! + 1) >>> 0;
    return slot;
  }

  /** Removes the entry for the question of `req` from `tier`, if there is one. */
  remove(tier: Tier, req: Request, bits: number): void {
    this.find(req, bits);
    const slot = tier === Tier.Success ? this.foundSuccess : this.foundDenial;
    if (slot < 0) return;
    this.unindex(slot);
    const size = tier === Tier.Success ? this.successShardSize : this.denialShardSize;
    const shard = this.shard[slot]!;
    const first = (tier === Tier.Success ? 0 : this.denialBase) + shard * size;
    const countAt = tier * SHARDS + shard;
    const count = this.shardCount[countAt]! - 1;
    // The shard's last member takes the removed one's place: members stay packed.
    const moved = this.members[first + count]!;
    this.members[this.memberAt[slot]!] = moved;
    this.memberAt[moved] = this.memberAt[slot]!;
    this.shardCount[countAt] = count;
    this.counts[tier]!--;
    this.generation[slot] = (this.generation[slot]! + 1) >>> 0;
    this.large.delete(slot);
    this.freeSlots[(tier === Tier.Success ? 0 : this.denialBase) + this.freeCount[tier]!++] = slot;
  }

  /**
   * The reply to `req` from the entry in `slot`, with every record's TTL set to `ttl`: ID and
   * question case from the query, AA set, AD kept only when the client sent DO or AD, and for an
   * EDNS client an OPT echoing its UDP size, DO bit and echoable options (what the scrub writer
   * would add, docs/compatibility.md, "Scrub").
   */
  reply(slot: number, req: Request, ttl: number): Buffer {
    this.writeTtls(slot, ttl);
    const out = this.copyOut(slot, req);
    const page = this.pages[slot >> PAGE_SHIFT]!;
    const at = (slot & PAGE_MASK) * BLOCK_BYTES;
    let flags = page.u16[(at + H_FLAGS) >> 1]! | (req.flags & REPLY_COPIED_FLAGS);
    if ((page.bytes[at + H_STATE]! & State.Authenticated) !== 0 && (req.dnssecOk || (req.flags & Flags.AD) !== 0)) flags |= Flags.AD;
    out[2] = flags >> 8;
    out[3] = flags & 0xff;
    // The client's question case (0x20): the names matched, so they are laid out alike.
    const raw = req.raw;
    const end = HEADER_LENGTH + page.bytes[at + H_NAME_LENGTH]!;
    // A loop: Buffer's copy makes a view per call, which costs more than these few dozen bytes.
    for (let i = HEADER_LENGTH; i < end; i++) out[i] = raw[i]!;
    return out;
  }

  /**
   * The reply just stored in `slot`, as the listener would encode the message it came from for
   * `req`: the stored bytes with the query's ID, the header `flags` given (QR added) and, for an
   * EDNS client, the OPT the scrub writer would add. A miss sends it without encoding the
   * message again.
   */
  storedReply(slot: number, req: Request, flags: number): Buffer {
    const out = this.copyOut(slot, req);
    const word = (flags & 0x7fff) | Flags.QR;
    out[2] = word >> 8;
    out[3] = word & 0xff;
    return out;
  }

  /** Sets every record's TTL field in the entry's stored reply to `ttl`, unless it is already. */
  private writeTtls(slot: number, ttl: number): void {
    const page = this.pages[slot >> PAGE_SHIFT]!;
    const at = (slot & PAGE_MASK) * BLOCK_BYTES;
    if (ttl === page.i32[(at + H_WIRE_TTL) >> 2]) return;
    const length = page.u16[(at + H_LENGTH) >> 1]!;
    let source = page.bytes;
    let start = at + HEADER_BYTES;
    if (length > INLINE_BYTES) {
      source = this.large.get(slot)!;
      start = 0;
    }
    // Once a second at most per entry: the TTL fields are found again rather than kept.
    walkTtls(source, start, start + length, (field) => {
      source[field] = ttl >>> 24;
      source[field + 1] = (ttl >>> 16) & 0xff;
      source[field + 2] = (ttl >>> 8) & 0xff;
      source[field + 3] = ttl & 0xff;
    });
    page.i32[(at + H_WIRE_TTL) >> 2] = ttl;
  }

  /** A copy of the entry's stored reply with the query's ID and, for an EDNS client, an OPT echoing its UDP size, DO bit and echoable options. */
  private copyOut(slot: number, req: Request): Buffer {
    const page = this.pages[slot >> PAGE_SHIFT]!;
    const at = (slot & PAGE_MASK) * BLOCK_BYTES;
    const length = page.u16[(at + H_LENGTH) >> 1]!;
    let source = page.bytes;
    let start = at + HEADER_BYTES;
    if (length > INLINE_BYTES) {
      source = this.large.get(slot)!;
      start = 0;
    }
    const options = req.hasEdns ? req.ednsOptions : null;
    let optLength = 0;
    if (req.hasEdns) {
      optLength = 11;
      if (options !== null) for (const option of options) optLength += 4 + option.data.length;
    }
    const out = Buffer.allocUnsafe(length + optLength);
    out.set(start === 0 ? source : source.subarray(start, start + length), 0);
    out[0] = req.id >> 8;
    out[1] = req.id & 0xff;
    if (optLength > 0) {
      let o = length;
      out[o++] = 0; // root name
      out[o++] = 0;
      out[o++] = TYPE_OPT;
      out[o++] = req.udpSize >> 8;
      out[o++] = req.udpSize & 0xff;
      out[o++] = 0; // extended rcode
      out[o++] = 0; // version
      out[o++] = req.dnssecOk ? 0x80 : 0;
      out[o++] = 0;
      const rdLength = optLength - 11;
      out[o++] = rdLength >> 8;
      out[o++] = rdLength & 0xff;
      if (options !== null) {
        for (const option of options) {
          out.writeUInt16BE(option.code, o);
          out.writeUInt16BE(option.data.length, o + 2);
          option.data.copy(out, o + 4);
          o += 4 + option.data.length;
        }
      }
      out.writeUInt16BE(out.readUInt16BE(OFFSET_ARCOUNT) + 1, OFFSET_ARCOUNT);
    }
    return out;
  }

  /** Whether the entry in `slot` is for the question of `req` (name case-insensitive) and `bits`. */
  private matches(slot: number, req: Request, bits: number): boolean {
    const page = this.pages[slot >> PAGE_SHIFT]!;
    const at = (slot & PAGE_MASK) * BLOCK_BYTES;
    const bytes = page.bytes;
    const nameLength = this.nameLength;
    if (page.u16[(at + H_QTYPE) >> 1] !== req.qtype || page.u16[(at + H_QCLASS) >> 1] !== req.qclass || bytes[at + H_BITS] !== bits || bytes[at + H_NAME_LENGTH] !== nameLength) return false;
    let source = bytes;
    let start = at + HEADER_BYTES + HEADER_LENGTH;
    if (page.u16[(at + H_LENGTH) >> 1]! > INLINE_BYTES) {
      source = this.large.get(slot)!;
      start = HEADER_LENGTH;
    }
    return sameName(req.raw, source, start, nameLength);
  }

  /** Adds `slot`'s pair to the table. */
  private insert(key: number, slot: number): void {
    const table = this.table;
    const mask = this.tableMask;
    let i = key & mask;
    while (table[2 * i + 1] !== 0) i = (i + 1) & mask;
    table[2 * i] = key;
    table[2 * i + 1] = slot + 1;
  }

  /**
   * Takes `slot`'s pair out of the table, moving later pairs of the run back into the hole, so
   * that no lookup stops short of them (no tombstones: linear probing's backward shift).
   */
  private unindex(slot: number): void {
    const table = this.table;
    const mask = this.tableMask;
    const key = this.pages[slot >> PAGE_SHIFT]!.i32[((slot & PAGE_MASK) * BLOCK_BYTES + H_HASH) >> 2]!;
    let hole = key & mask;
    while (table[2 * hole + 1] !== slot + 1) hole = (hole + 1) & mask;
    for (let i = (hole + 1) & mask; table[2 * i + 1] !== 0; i = (i + 1) & mask) {
      // A pair may move back to the hole when the hole lies between its home and where it is.
      const home = table[2 * i]! & mask;
      if (((i - home) & mask) >= ((i - hole) & mask)) {
        table[2 * hole] = table[2 * i]!;
        table[2 * hole + 1] = table[2 * i + 1]!;
        hole = i;
      }
    }
    table[2 * hole] = 0;
    table[2 * hole + 1] = 0;
  }

  /** A slot for a new entry in `shard` of `tier`: a free one, or a random member's when it is full. */
  private claim(tier: Tier, shard: number): number {
    const size = tier === Tier.Success ? this.successShardSize : this.denialShardSize;
    const first = (tier === Tier.Success ? 0 : this.denialBase) + shard * size;
    const countAt = tier * SHARDS + shard;
    const count = this.shardCount[countAt]!;
    if (count >= size) {
      const victim = this.members[first + Math.floor(this.random() * count)]!;
      this.unindex(victim);
      this.evicted = true;
      // Same shard, same member position: only the key changes.
      return victim;
    }
    let slot: number;
    if (this.freeCount[tier]! > 0) slot = this.freeSlots[(tier === Tier.Success ? 0 : this.denialBase) + --this.freeCount[tier]!]!;
    else slot = this.fresh[tier]!++;
    this.members[first + count] = slot;
    this.memberAt[slot] = first + count;
    this.shard[slot] = shard;
    this.shardCount[countAt] = count + 1;
    this.counts[tier]!++;
    return slot;
  }
}
