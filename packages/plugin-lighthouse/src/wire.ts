/**
 * Hand-built DNS wire records for precomputed answers. Every answer owner is the compression
 * pointer 0xC00C (the question name at offset 12), so one body serves every spelling of the
 * question: the reply copies the client's question and its case comes back unchanged.
 */
import dnsPacket from 'dns-packet';
import type { Answer as PacketRecord } from 'dns-packet';
import { CLASS_IN, TYPE_A, TYPE_AAAA, TYPE_PTR, TYPE_SOA, TYPE_SRV, TYPE_TXT } from '@foghorn/core';
import { ipv6Bytes, parseIpv4 } from './addresses.js';

/** dns-packet's per-record codec, which its type declarations leave out. */
const recordCodec = (dnsPacket as unknown as { answer: { encode(rr: PacketRecord): Buffer } }).answer;
/** Pointer to the question name, which always starts right after the 12-byte header. */
const QUESTION_POINTER = 0xc00c;

/** Wire form of a fully qualified, lower-case or mixed-case name (`a.b.` → 1a1b0). */
export function encodeName(name: string): Buffer {
  const out = Buffer.allocUnsafe(nameLength(name));
  writeName(out, 0, name);
  return out;
}

/** Bytes `name` takes on the wire, uncompressed. */
function nameLength(name: string): number {
  if (name === '.' || name === '') return 1;
  const bytes = Buffer.byteLength(name);
  return name.endsWith('.') ? bytes + 1 : bytes + 2;
}

/** Writes `name` at `offset`; returns the offset after it. */
function writeName(buf: Buffer, offset: number, name: string): number {
  if (name === '.' || name === '') {
    buf[offset] = 0;
    return offset + 1;
  }
  const text = name.endsWith('.') ? name.slice(0, -1) : name;
  let start = 0;
  while (start <= text.length) {
    let dot = text.indexOf('.', start);
    if (dot < 0) dot = text.length;
    const length = buf.write(text.slice(start, dot), offset + 1, 'utf8');
    if (length === 0 || length > 63) throw new RangeError(`invalid label in '${name}'`);
    buf[offset] = length;
    offset += length + 1;
    start = dot + 1;
  }
  buf[offset] = 0;
  return offset + 1;
}

/**
 * Scratch space every writer builds its records in; `body()` copies them out into a pooled
 * Buffer (Buffer.allocUnsafe shares 8 KiB slabs), so an index of a million answers holds a
 * million slab views rather than a million small backing stores for the GC to track.
 */
let scratch = Buffer.allocUnsafe(64 * 1024);

/**
 * A record built as a dns-packet object (core's shared builders) as one body record owned by
 * the question: encoded once with the root as owner, whose one byte becomes the pointer.
 */
export function questionOwned(record: PacketRecord): Buffer {
  const encoded = recordCodec.encode({ ...record, name: '.' });
  const out = Buffer.allocUnsafe(encoded.length + 1);
  out.writeUInt16BE(QUESTION_POINTER, 0);
  encoded.copy(out, 2, 1);
  return out;
}

/** Collects resource records into one body; remembers where zone names sit for case patching. */
export class RecordWriter {
  private length = 0;
  count = 0;
  /** Offsets in the body where the zone's lower-case wire name starts (SRV targets). */
  readonly zoneOffsets: number[] = [];

  constructor(private readonly ttl: number) {}

  /** A or AAAA for `ip`, owned by the question name. False when `ip` does not parse. */
  address(ip: string): boolean {
    if (ip.length <= 15 && ip.indexOf(':') < 0) {
      const at = this.header(TYPE_A, 4);
      if (parseIpv4(ip, scratch, at)) {
        this.length = at + 4;
        return true;
      }
      // Not an address after all: the header is overwritten by whatever comes next.
      this.count--;
    }
    const v6 = ipv6Bytes(ip);
    if (!v6) return false;
    const at = this.header(TYPE_AAAA, 16);
    scratch.set(v6, at);
    this.length = at + 16;
    return true;
  }

  /** SRV priority 0 weight 50 (Lighthouse's constants) to `target`, whose last `zoneLength` bytes are the zone. */
  srv(port: number, target: string, zoneLength: number): void {
    const targetLength = nameLength(target);
    const at = this.header(TYPE_SRV, 6 + targetLength);
    scratch.writeUInt16BE(0, at);
    scratch.writeUInt16BE(50, at + 2);
    scratch.writeUInt16BE(port & 0xffff, at + 4);
    this.length = writeName(scratch, at + 6, target);
    if (zoneLength > 1) this.zoneOffsets.push(this.length - zoneLength);
  }

  ptr(target: string): void {
    const at = this.header(TYPE_PTR, nameLength(target));
    this.length = writeName(scratch, at, target);
  }

  txt(text: string): void {
    const bytes = Buffer.byteLength(text);
    const at = this.header(TYPE_TXT, bytes + 1);
    scratch[at] = bytes;
    scratch.write(text, at + 1, 'utf8');
    this.length = at + 1 + bytes;
  }

  /** Owner pointer, type, class, TTL and RDLENGTH; returns where the RDATA starts. */
  private header(type: number, rdataLength: number): number {
    const at = this.length;
    if (at + 12 + rdataLength > scratch.length) {
      const grown = Buffer.allocUnsafe(Math.max(scratch.length * 2, at + 12 + rdataLength));
      scratch.copy(grown, 0, 0, at);
      scratch = grown;
    }
    scratch.writeUInt16BE(QUESTION_POINTER, at);
    scratch.writeUInt16BE(type, at + 2);
    scratch.writeUInt16BE(CLASS_IN, at + 4);
    scratch.writeUInt32BE(this.ttl, at + 6);
    scratch.writeUInt16BE(rdataLength, at + 10);
    this.count++;
    return at + 12;
  }

  /** The records written, copied out of the scratch space. Call once, before the next writer starts. */
  body(): Buffer {
    const out = Buffer.allocUnsafe(this.length);
    scratch.copy(out, 0, 0, this.length);
    return out;
  }
}

/**
 * The zone's SOA record without its owner: the owner is written per reply as a pointer to the
 * zone inside the client's question, so it keeps the client's case. Fields as CoreDNS's
 * kubernetes plugin: `ns.dns.<zone> hostmaster.<zone> serial 7200 1800 86400 <ttl>`.
 */
export function encodeSoaTail(zone: string, serial: number, ttl: number): Buffer {
  const suffix = zone === '.' ? '' : zone;
  const mname = encodeName(`ns.dns.${suffix}`);
  const rname = encodeName(`hostmaster.${suffix}`);
  const rdataLength = mname.length + rname.length + 20;
  const tail = Buffer.alloc(10 + rdataLength);
  tail.writeUInt16BE(TYPE_SOA, 0);
  tail.writeUInt16BE(CLASS_IN, 2);
  tail.writeUInt32BE(ttl, 4);
  tail.writeUInt16BE(rdataLength, 8);
  mname.copy(tail, 10);
  rname.copy(tail, 10 + mname.length);
  let offset = 10 + mname.length + rname.length;
  for (const value of [serial >>> 0, 7200, 1800, 86400, ttl]) {
    tail.writeUInt32BE(value, offset);
    offset += 4;
  }
  return tail;
}
