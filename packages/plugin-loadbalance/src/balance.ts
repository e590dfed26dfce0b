/**
 * Applying the policy to a reply on its way out, for both ways a reply is written: a message
 * object (`write`) and pre-encoded wire bytes (`writeWire`, cache hits and lighthouse answers).
 * CoreDNS only ever sees message objects (its cache writes messages too) and merely warns on raw
 * writes; here cache hits are wire bytes, so they are reordered on the wire to keep CoreDNS's
 * observable behaviour for `loadbalance` + `cache`.
 */
// Bindings, not globals: per query (docs/architecture.md, "Per-query code").
import { Buffer } from 'node:buffer';
import dnsPacket from 'dns-packet';
import type { Answer, Packet } from 'dns-packet';
import { TYPE_A, TYPE_AAAA, TYPE_AXFR, TYPE_CNAME, TYPE_IXFR, TYPE_MX, TYPE_NS, TYPE_PTR, TYPE_SOA, TYPE_SRV } from '@foghorn/core';
import type { ResponseWriter } from '@foghorn/core';
import { packetRcode, readName, skipName, to4, wireRcode } from '@foghorn/core/wire';
import { parseIp } from './ip.js';
import type { Subnet } from './ip.js';
import { Kind, mathRandomInt, preferSubnets, roundRobin, weighted } from './policy.js';
import type { RandomInt, RecordView, WeightTable } from './policy.js';


/** Message sections, in wire order. */
const sectionFields = ['answers', 'authorities', 'additionals'] as const;
const AUTHORITY = 1;

/** The reordering a `loadbalance` directive configured, and its current weights. */
export class Balancer {
  /** Weights from the weight file (weighted only); replaced whole on reload. */
  weights: WeightTable = new Map();

  constructor(
    readonly policy: 'round_robin' | 'weighted',
    readonly prefer: readonly Subnet[],
    private readonly random: RandomInt = mathRandomInt,
  ) {}

  /** One section reordered, or null when it stays as it is. `section` 0..2 is answer..additional. */
  arrange<T>(records: readonly T[], section: number, qtype: number, view: RecordView<T>): T[] | null {
    let out: T[] | null = null;
    if (this.policy === 'round_robin') {
      out = roundRobin(records, view, this.random);
    } else if (section !== AUTHORITY && (qtype === TYPE_A || qtype === TYPE_AAAA || qtype === TYPE_SRV)) {
      out = weighted(records, view, this.weights, this.random);
    }
    if (this.prefer.length > 0 && section !== AUTHORITY) out = preferSubnets(out ?? records, view, this.prefer) ?? out;
    return out;
  }

  /** `msg` with its sections reordered: a shallow copy when anything moved, else `msg` itself. */
  message(msg: Packet, qtype: number): Packet {
    let copy: Packet | undefined;
    for (let section = 0; section < 3; section++) {
      const field = sectionFields[section]!;
      const records = msg[field];
      if (!records || records.length === 0) continue;
      const out = this.arrange(records, section, qtype, objectView);
      if (out === null) continue;
      copy ??= { ...msg };
      copy[field] = out;
    }
    return copy ?? msg;
  }

  /**
   * `wire` with its sections reordered: the same buffer when nothing moved, a new one when
   * records could be moved as they are, or undefined when a compression pointer targets a
   * record that moves (the caller then decodes, reorders and re-encodes).
   */
  wire(wire: Buffer, qtype: number): Buffer | undefined {
    const parsed = parseWire(wire);
    if (parsed === null) return wire; // Not ours to repair: send it as it came.
    const view = wireView(wire);
    let orders: (WireRecord[] | null)[] | null = null;
    for (let section = 0; section < 3; section++) {
      const records = parsed.sections[section]!;
      if (records.length === 0) continue;
      const out = this.arrange(records, section, qtype, view);
      if (out === null) continue;
      orders ??= [null, null, null];
      orders[section] = out;
    }
    if (orders === null) return wire;
    const out = Buffer.allocUnsafe(wire.length);
    wire.copy(out, 0, 0, parsed.questionEnd);
    const moved: WireRecord[] = [];
    let at = parsed.questionEnd;
    for (let section = 0; section < 3; section++) {
      for (const record of orders[section] ?? parsed.sections[section]!) {
        if (record.start !== at) moved.push(record);
        wire.copy(out, at, record.start, record.end);
        at += record.end - record.start;
      }
    }
    if (moved.length > 0 && pointsInto(wire, parsed, moved)) return undefined;
    // Bytes after the last record (none in a well-formed reply) are kept.
    if (at < wire.length) wire.copy(out, at, at);
    return out;
  }
}

/** A writer that reorders the reply to one query; one is created per query. */
export class BalancingWriter implements ResponseWriter {
  constructor(
    private readonly inner: ResponseWriter,
    private readonly qtype: number,
    private readonly balancer: Balancer,
  ) {}

  private skip(rcode: number): boolean {
    return rcode !== 0 || this.qtype === TYPE_AXFR || this.qtype === TYPE_IXFR;
  }

  write(msg: Packet): number {
    if (this.skip(packetRcode(msg))) return this.inner.write(msg);
    return this.inner.write(this.balancer.message(msg, this.qtype));
  }

  writeWire(wire: Buffer, size?: number): number {
    if (this.skip(wireRcode(wire))) return this.inner.writeWire(wire, size);
    // Records change places, not lengths: what recorders count stays the same.
    const out = this.balancer.wire(wire, this.qtype);
    if (out !== undefined) return this.inner.writeWire(out, size);
    return this.inner.write(this.balancer.message(dnsPacket.decode(wire), this.qtype));
  }
}

const objectView: RecordView<Answer> = {
  kind(record) {
    switch (record.type) {
      case 'A':
      case 'AAAA':
        return Kind.Address;
      case 'CNAME':
        return Kind.Cname;
      case 'MX':
        return Kind.Mx;
      default:
        return Kind.Other;
    }
  },
  ip(record) {
    return record.type === 'A' || record.type === 'AAAA' ? parseIp(record.data) : null;
  },
  owner(record) {
    return record.name.endsWith('.') ? record.name : `${record.name}.`;
  },
};

/** One record of an encoded message: its byte range, type and where its RDATA starts. */
interface WireRecord {
  readonly start: number;
  readonly end: number;
  readonly type: number;
  readonly rdata: number;
}

interface ParsedWire {
  readonly questionEnd: number;
  readonly questionNames: readonly number[];
  readonly sections: readonly (readonly WireRecord[])[];
}

function wireView(wire: Buffer): RecordView<WireRecord> {
  return {
    kind(record) {
      switch (record.type) {
        case TYPE_A:
        case TYPE_AAAA:
          return Kind.Address;
        case TYPE_CNAME:
          return Kind.Cname;
        case TYPE_MX:
          return Kind.Mx;
        default:
          return Kind.Other;
      }
    },
    ip(record) {
      if (record.type === TYPE_A && record.end - record.rdata === 4) return wire.subarray(record.rdata, record.end);
      if (record.type === TYPE_AAAA && record.end - record.rdata === 16) return to4(wire.subarray(record.rdata, record.end));
      return null;
    },
    owner(record) {
      return readName(wire, record.start) ?? '';
    },
  };
}

/** The records of each section, or null for a message that does not parse. */
function parseWire(wire: Buffer): ParsedWire | null {
  if (wire.length < 12) return null;
  let offset = 12;
  const questionNames: number[] = [];
  for (let i = wire.readUInt16BE(4); i > 0; i--) {
    questionNames.push(offset);
    const end = skipName(wire, offset);
    if (end < 0 || end + 4 > wire.length) return null;
    offset = end + 4;
  }
  const questionEnd = offset;
  const sections: WireRecord[][] = [];
  for (const countOffset of [6, 8, 10]) {
    const records: WireRecord[] = [];
    for (let i = wire.readUInt16BE(countOffset); i > 0; i--) {
      const nameEnd = skipName(wire, offset);
      if (nameEnd < 0 || nameEnd + 10 > wire.length) return null;
      const rdata = nameEnd + 10;
      const end = rdata + wire.readUInt16BE(nameEnd + 8);
      if (end > wire.length) return null;
      records.push({ start: offset, end, type: wire.readUInt16BE(nameEnd), rdata });
      offset = end;
    }
    sections.push(records);
  }
  return { questionEnd, questionNames, sections };
}

/**
 * True when a compression pointer anywhere in the message targets a byte of a record that
 * moves. Pointers live in names: the question, owners, and the RDATA names of the types that
 * may be compressed (RFC 1035 types plus SRV, RFC 3597 §4).
 */
function pointsInto(wire: Buffer, parsed: ParsedWire, moved: readonly WireRecord[]): boolean {
  const hits = (name: number): boolean => {
    let offset = name;
    while (offset < wire.length) {
      const length = wire[offset]!;
      if (length === 0) return false;
      if ((length & 0xc0) === 0xc0) {
        const target = ((length & 0x3f) << 8) | wire[offset + 1]!;
        return moved.some((record) => target >= record.start && target < record.end);
      }
      offset += 1 + length;
    }
    return false;
  };
  for (const name of parsed.questionNames) if (hits(name)) return true;
  for (const records of parsed.sections) {
    for (const record of records) {
      if (hits(record.start)) return true;
      switch (record.type) {
        case TYPE_NS:
        case TYPE_CNAME:
        case TYPE_PTR:
          if (hits(record.rdata)) return true;
          break;
        case TYPE_MX:
          if (hits(record.rdata + 2)) return true;
          break;
        case TYPE_SRV:
          if (hits(record.rdata + 6)) return true;
          break;
        case TYPE_SOA: {
          if (hits(record.rdata)) return true;
          const next = skipName(wire, record.rdata);
          if (next > 0 && hits(next)) return true;
          break;
        }
      }
    }
  }
  return false;
}
