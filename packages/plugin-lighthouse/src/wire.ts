/**
 * Hand-built DNS wire records for precomputed answers. Every answer owner is the compression
 * pointer 0xC00C (the question name at offset 12), so one body serves every spelling of the
 * question: the reply copies the client's question and its case comes back unchanged.
 */
import { ipv4Bytes, ipv6Bytes } from './addresses.js';

export const TYPE_A = 1;
export const TYPE_NS = 2;
export const TYPE_SOA = 6;
export const TYPE_PTR = 12;
export const TYPE_TXT = 16;
export const TYPE_AAAA = 28;
export const TYPE_SRV = 33;
const CLASS_IN = 1;
/** Pointer to the question name, which always starts right after the 12-byte header. */
const QUESTION_POINTER = 0xc00c;

/** Wire form of a fully qualified, lower-case or mixed-case name (`a.b.` → 1a1b0). */
export function encodeName(name: string): Buffer {
  if (name === '.' || name === '') return Buffer.from([0]);
  const labels = (name.endsWith('.') ? name.slice(0, -1) : name).split('.');
  const parts: Buffer[] = [];
  for (const label of labels) {
    const bytes = Buffer.from(label, 'utf8');
    if (bytes.length === 0 || bytes.length > 63) throw new RangeError(`invalid label '${label}' in '${name}'`);
    parts.push(Buffer.from([bytes.length]), bytes);
  }
  parts.push(Buffer.from([0]));
  return Buffer.concat(parts);
}

/** Collects resource records into one body; remembers where zone names sit for case patching. */
export class RecordWriter {
  private readonly parts: Buffer[] = [];
  private length = 0;
  count = 0;
  /** Offsets in the body where the zone's lower-case wire name starts (SRV targets). */
  readonly zoneOffsets: number[] = [];

  constructor(private readonly ttl: number) {}

  /** A or AAAA for `ip`, owned by the question name. False when `ip` does not parse. */
  address(ip: string): boolean {
    const v4 = ipv4Bytes(ip);
    if (v4) {
      this.record(TYPE_A, Buffer.from(v4));
      return true;
    }
    const v6 = ipv6Bytes(ip);
    if (!v6) return false;
    this.record(TYPE_AAAA, Buffer.from(v6));
    return true;
  }

  /** SRV priority 0 weight 50 (Lighthouse's constants) to `target`, whose last `zoneLength` bytes are the zone. */
  srv(port: number, target: Buffer, zoneLength: number): void {
    const rdata = Buffer.alloc(6 + target.length);
    rdata.writeUInt16BE(0, 0);
    rdata.writeUInt16BE(50, 2);
    rdata.writeUInt16BE(port & 0xffff, 4);
    target.copy(rdata, 6);
    if (zoneLength > 1) this.zoneOffsets.push(this.length + 12 + 6 + target.length - zoneLength);
    this.record(TYPE_SRV, rdata);
  }

  ptr(target: Buffer): void {
    this.record(TYPE_PTR, target);
  }

  txt(text: string): void {
    const bytes = Buffer.from(text, 'utf8');
    this.record(TYPE_TXT, Buffer.concat([Buffer.from([bytes.length]), bytes]));
  }

  private record(type: number, rdata: Buffer): void {
    const rr = Buffer.alloc(12 + rdata.length);
    rr.writeUInt16BE(QUESTION_POINTER, 0);
    rr.writeUInt16BE(type, 2);
    rr.writeUInt16BE(CLASS_IN, 4);
    rr.writeUInt32BE(this.ttl, 6);
    rr.writeUInt16BE(rdata.length, 10);
    rdata.copy(rr, 12);
    this.parts.push(rr);
    this.length += rr.length;
    this.count++;
  }

  body(): Buffer {
    return this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.length);
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
