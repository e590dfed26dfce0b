/**
 * One cached reply, kept as wire bytes so that a hit is a copy and a few patches rather than a
 * decode and an encode:
 *
 *   stored wire  ┌────────┬──────────────┬───────────────────────────────────────────┐
 *                │ header │ question     │ RRs (answer, authority, additional; no OPT)│
 *                └────────┴──────────────┴───────────────────────────────────────────┘
 *   per hit        ID,flags  client's case   TTL fields at `ttlOffsets`   (+ OPT for EDNS clients)
 *
 * The TTL fields are rewritten in the stored bytes themselves when the remaining TTL changes,
 * which is at most once a second per entry, so most hits copy the bytes without touching them.
 */
// Bindings, not globals: per query (docs/architecture.md, "Per-query code").
import { Buffer } from 'node:buffer';
import dnsPacket from 'dns-packet';
import type { Packet } from 'dns-packet';
import { Flags, HEADER_LENGTH, OFFSET_ANCOUNT, OFFSET_ARCOUNT, OFFSET_FLAGS, OFFSET_NSCOUNT, REPLY_COPIED_FLAGS, TYPE_OPT } from '@foghorn/core';
import type { Request } from '@foghorn/core';
import { questionEnd as findQuestionEnd, ResponseType, skipName } from '@foghorn/core/wire';

export class Entry {
  /** Hits counted for prefetch, and when the last one was (CoreDNS's `freq.Freq`). */
  hits = 0;
  lastHitMs = Number.NEGATIVE_INFINITY;
  /** True while a prefetch or stale refresh for this entry is in flight. */
  refreshing = false;
  /** When the last refresh failed, for serve_stale's FAILURE_RECHECK. */
  failedAtMs = Number.NEGATIVE_INFINITY;
  /** The TTL currently written in {@link wire}'s TTL fields. */
  private wireTtl = -1;

  constructor(
    /** The reply without OPT, ID 0. */
    private readonly wire: Buffer,
    /** Byte offsets of every record's TTL field in {@link wire}. */
    private readonly ttlOffsets: Uint32Array,
    /** Length of the question name on the wire, from offset 12. */
    private readonly nameLength: number,
    /** QR, AA, RA and the rcode: the header bits that come from the entry. */
    private readonly flagsBase: number,
    /** AD as the stored reply had it. */
    private readonly authenticated: boolean,
    /** The question, for the match that guards against key collisions. */
    readonly qname: string,
    readonly qtype: number,
    readonly qclass: number,
    /** The TTL stored, in seconds: the clamped duration. */
    readonly origTtl: number,
    /** When it was stored, in milliseconds. */
    readonly storedMs: number,
    readonly kind: ResponseType,
    /** True when the reply answers the question (serve_stale_policy prefer_positive). */
    readonly answers: boolean,
  ) {}

  /** Seconds left, negative once expired: stored TTL − whole seconds since stored. */
  ttlAt(nowMs: number): number {
    return this.origTtl - Math.trunc((nowMs - this.storedMs) / 1000);
  }

  /**
   * What a recorder (log's `{rsize}`, the response size histogram) counts for a hit: the reply
   * without the OPT {@link reply} adds for an EDNS client. CoreDNS's hit is a message `toMsg`
   * builds from an item that keeps no OPT (item.go), and its scrub adds the OPT after the
   * recorders have counted.
   */
  get recordedSize(): number {
    return this.wire.length;
  }

  /** True when the entry is for this question (name case-insensitive, type and class). */
  matches(req: Request): boolean {
    return this.qtype === req.qtype && this.qclass === req.qclass && this.qname === req.qname;
  }

  /**
   * The reply to `req` with every record's TTL set to `ttl`: ID and question case from the
   * query, AA set, AD kept only when the client sent DO or AD, and for an EDNS client an OPT
   * echoing its UDP size, DO bit and echoable options (what the scrub writer would add, docs/compatibility.md, "Scrub").
   */
  reply(req: Request, ttl: number): Buffer {
    if (ttl !== this.wireTtl) {
      for (const offset of this.ttlOffsets) this.wire.writeUInt32BE(ttl, offset);
      this.wireTtl = ttl;
    }
    const wire = this.wire;
    const options = req.hasEdns ? req.ednsOptions : null;
    let optLength = 0;
    if (req.hasEdns) {
      optLength = 11;
      if (options !== null) for (const option of options) optLength += 4 + option.data.length;
    }
    const out = Buffer.allocUnsafe(wire.length + optLength);
    out.set(wire, 0);
    out[0] = req.id >> 8;
    out[1] = req.id & 0xff;
    let flags = this.flagsBase | (req.flags & REPLY_COPIED_FLAGS);
    if (this.authenticated && (req.dnssecOk || (req.flags & Flags.AD) !== 0)) flags |= Flags.AD;
    out[2] = flags >> 8;
    out[3] = flags & 0xff;
    // The client's question case (0x20), when its name is laid out like ours (uncompressed).
    const raw = req.raw;
    const end = HEADER_LENGTH + this.nameLength;
    // A loop: Buffer's copy makes a view per call, which costs more than these few dozen bytes.
    if (raw.length >= end + 2 && raw[end - 1] === 0 && ((raw[end]! << 8) | raw[end + 1]!) === this.qtype) for (let i = HEADER_LENGTH; i < end; i++) out[i] = raw[i]!;
    if (optLength > 0) {
      let at = wire.length;
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
}

/** What {@link buildEntry} needs besides the message. */
export interface EntryInfo {
  readonly qname: string;
  readonly qtype: number;
  readonly qclass: number;
  readonly ttl: number;
  readonly nowMs: number;
  readonly kind: ResponseType;
  readonly answers: boolean;
}

/**
 * Encodes `msg` (OPT already removed, TTLs already the stored duration) and records where its
 * TTL fields are. Returns undefined when the message cannot be encoded or cannot be walked (no
 * question, a name running off the end): such a reply is not cached.
 */
export function buildEntry(msg: Packet, info: EntryInfo): Entry | undefined {
  let wire: Buffer;
  try {
    wire = dnsPacket.encode({ ...msg, id: 0, flags: (msg.flags ?? 0) & ~Flags.TC });
  } catch {
    return undefined;
  }
  return entryFromWire(wire, info);
}

/** {@link buildEntry} for bytes already encoded; undefined when they cannot be walked. */
export function entryFromWire(wire: Buffer, info: EntryInfo): Entry | undefined {
  const flags = wire.readUInt16BE(OFFSET_FLAGS);
  const flagsBase = Flags.QR | Flags.AA | (flags & Flags.RA) | (flags & Flags.RCODE);
  const questionEnd = findQuestionEnd(wire);
  if (questionEnd < 0) return undefined;
  const records = wire.readUInt16BE(OFFSET_ANCOUNT) + wire.readUInt16BE(OFFSET_NSCOUNT) + wire.readUInt16BE(OFFSET_ARCOUNT);
  const ttlOffsets = new Uint32Array(records);
  let offset = questionEnd;
  for (let i = 0; i < records; i++) {
    const end = skipName(wire, offset);
    if (end < 0 || end + 10 > wire.length) return undefined;
    ttlOffsets[i] = end + 4;
    offset = end + 10 + wire.readUInt16BE(end + 8);
    if (offset > wire.length) return undefined;
  }
  return new Entry(
    wire,
    ttlOffsets,
    questionEnd - 4 - HEADER_LENGTH,
    flagsBase,
    (flags & Flags.AD) !== 0,
    info.qname,
    info.qtype,
    info.qclass,
    info.ttl,
    info.nowMs,
    info.kind,
    info.answers,
  );
}
