/**
 * Records → the wire bytes of a reply after its question. The reply copies the client's question,
 * so names point into it: answer owners at the question (0xC00C), names the plugin builds
 * (`svc1.ns.svc.` + zone, SOA MNAME/RNAME, NS targets, glue owners) at the zone inside the
 * question. One encoding then serves every spelling of the question and the zone comes back in
 * the client's case, as CoreDNS writes it. SRV targets must not be compressed (RFC 2782), so they
 * carry the zone in lower case and the reply overwrites it with the question's zone bytes.
 */
import { CLASS_IN, TYPE_A, TYPE_AAAA, TYPE_CNAME, TYPE_NS, TYPE_PTR, TYPE_SOA, TYPE_SRV, TYPE_TXT } from '@foghorn/core';
import { nameLength, parseIp, QUESTION_POINTER, writeName } from '@foghorn/core/wire';
import type { Name, Record } from './resolve.js';

/** The SOA of a zone (backend_lookup.go `SOA`). */
export interface Soa {
  readonly serial: number;
  /** min(ttl, 300). */
  readonly ttl: number;
  /** The `ttl` option. */
  readonly minimum: number;
}

/** Encoded sections, ready to follow the question. */
export interface Encoded {
  readonly ancount: number;
  readonly nscount: number;
  readonly arcount: number;
  readonly body: Buffer;
  /** Offsets in `body` of lower-case zone names to overwrite with the question's; null when none. */
  readonly zonePatches: readonly number[] | null;
}

/** Wire length of a fully qualified name (core's `nameLength`). */
export function wireLength(name: string): number {
  return nameLength(name);
}

/**
 * Bodies are built in one scratch buffer (encode runs to its end before the next starts) and
 * kept in slabs of their own. Built in a fresh `Buffer.allocUnsafe` each and copied out, as
 * before, the scratch and the copy shared Node's 8 KB pool with the per-query replies, and one
 * kept body pinned a whole pool slab: after dnsperf cycled over 10,000 names of an empty
 * cluster, the handler's 10,000 cached NXDOMAIN bodies held 909 slabs, 7.3 MB.
 */
let scratch = Buffer.allocUnsafeSlow(512);
const slabSize = 16 * 1024;
let slab = Buffer.allocUnsafeSlow(slabSize);
let slabUsed = 0;

function keep(bytes: Buffer): Buffer {
  if (bytes.length > slabSize / 8) return Buffer.from(bytes);
  if (slabUsed + bytes.length > slabSize) {
    slab = Buffer.allocUnsafeSlow(slabSize);
    slabUsed = 0;
  }
  const out = slab.subarray(slabUsed, slabUsed + bytes.length);
  bytes.copy(out);
  slabUsed += bytes.length;
  return out;
}

class Builder {
  private buf = scratch;
  length = 0;
  readonly patches: number[] = [];

  constructor(
    /** Where the body starts in the reply (header + question). */
    private readonly base: number,
    /** Offset of the zone inside the question. */
    private readonly zoneOffset: number,
    /** The zone, lower case, fully qualified. */
    private readonly zone: string,
  ) {}

  private ensure(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, this.length + n));
    this.buf.copy(grown, 0, 0, this.length);
    this.buf = scratch = grown;
  }

  u8(v: number): void {
    this.ensure(1);
    this.buf[this.length++] = v;
  }

  u16(v: number): void {
    this.ensure(2);
    this.buf.writeUInt16BE(v & 0xffff, this.length);
    this.length += 2;
  }

  u32(v: number): void {
    this.ensure(4);
    this.buf.writeUInt32BE(v >>> 0, this.length);
    this.length += 4;
  }

  bytes(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.length);
    this.length += b.length;
  }

  /** `name` in full, root label included. */
  fullName(name: string): void {
    if (name === '' || name === '.') return this.u8(0);
    this.ensure(Math.max(nameLength(name), 1));
    this.length = writeName(this.buf, this.length, name);
  }

  /** The labels of `prefix` (`svc1.ns.svc.`), without the root: a pointer to the zone follows. */
  private prefixLabels(prefix: string): void {
    if (prefix === '') return;
    this.fullName(prefix);
    // writeName ended the name with its root label; the pointer written next takes that byte's place.
    this.length--;
  }

  /** Where each name built on the zone was written (absolute offset), for later pointers to it. */
  private readonly written = new Map<string, number>();

  name(name: Name, compress: boolean): void {
    switch (name.kind) {
      case 'question':
        this.u16(QUESTION_POINTER);
        return;
      case 'literal':
        this.fullName(name.name);
        return;
      case 'zone': {
        const earlier = compress ? this.written.get(name.prefix) : undefined;
        if (earlier !== undefined) {
          this.u16(0xc000 | earlier);
          return;
        }
        if (name.prefix !== '' && !this.written.has(name.prefix)) this.written.set(name.prefix, this.base + this.length);
        this.prefixLabels(name.prefix);
        if (compress) {
          this.u16(0xc000 | this.zoneOffset);
        } else {
          this.patches.push(this.length);
          this.fullName(this.zone);
        }
      }
    }
  }

  record(rr: Record, soa: Soa): void {
    this.name(rr.owner, true);
    this.u16(rr.data.type);
    this.u16(CLASS_IN);
    this.u32(rr.ttl);
    const lengthAt = this.length;
    this.u16(0);
    const data = rr.data;
    switch (data.type) {
      case TYPE_A:
      case TYPE_AAAA:
        this.bytes(ipBytes(data.ip, data.type));
        break;
      case TYPE_CNAME:
      case TYPE_PTR:
      case TYPE_NS:
        this.name(data.target, true);
        break;
      case TYPE_SRV:
        this.u16(0);
        this.u16(data.weight);
        this.u16(data.port);
        this.name(data.target, false);
        break;
      case TYPE_TXT: {
        const text = Buffer.from(data.text, 'utf8');
        this.u8(text.length);
        this.bytes(text);
        break;
      }
      case TYPE_SOA:
        this.name({ kind: 'zone', prefix: 'ns.dns.' }, true);
        this.name({ kind: 'zone', prefix: 'hostmaster.' }, true);
        this.u32(soa.serial);
        this.u32(7200);
        this.u32(1800);
        this.u32(86400);
        this.u32(soa.minimum);
        break;
    }
    this.buf.writeUInt16BE(this.length - lengthAt - 2, lengthAt);
  }

  done(): Buffer {
    return keep(this.buf.subarray(0, this.length));
  }

}

/** A or AAAA RDATA; zeros for text that is no address (the store keeps only addresses). */
function ipBytes(ip: string, type: number): Uint8Array {
  return parseIp(ip) ?? new Uint8Array(type === TYPE_A ? 4 : 16);
}

/**
 * Encodes answer, authority (the SOA when `withSoa`) and additional records for a question of
 * `qnameLength` wire bytes in `zone`.
 */
export function encode(
  answer: readonly Record[],
  extra: readonly Record[],
  withSoa: boolean,
  soa: Soa,
  qnameLength: number,
  zone: string,
): Encoded {
  const zoneOffset = 12 + qnameLength - wireLength(zone);
  const b = new Builder(12 + qnameLength + 4, zoneOffset, zone);
  for (const rr of answer) b.record(rr, soa);
  if (withSoa) b.record({ owner: { kind: 'zone', prefix: '' }, ttl: soa.ttl, data: { type: TYPE_SOA } }, soa);
  for (const rr of extra) b.record(rr, soa);
  return {
    ancount: answer.length,
    nscount: withSoa ? 1 : 0,
    arcount: extra.length,
    body: b.done(),
    zonePatches: b.patches.length > 0 ? b.patches : null,
  };
}
