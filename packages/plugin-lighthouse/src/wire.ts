/**
 * Hand-built DNS wire records for precomputed answers. Every answer owner is the compression
 * pointer 0xC00C (the question name at offset 12, core's `QUESTION_POINTER`), so one body serves
 * every spelling of the question: the reply copies the client's question and its case comes back
 * unchanged. Names, addresses and the records' fixed part are written with core's wire helpers.
 */
import { CLASS_IN, TYPE_A, TYPE_AAAA, TYPE_PTR, TYPE_SOA, TYPE_SRV, TYPE_TXT } from '@foghorn/core';
import { nameLength, writeAnswerHead, writeIpv4, writeIpv6, writeName } from '@foghorn/core/wire';

/**
 * Scratch space every writer builds its records in; `body()` copies them out into a pooled
 * Buffer (Buffer.allocUnsafe shares 8 KiB slabs), so an index of a million answers holds a
 * million slab views rather than a million small backing stores for the GC to track.
 */
let scratch = Buffer.allocUnsafe(64 * 1024);

/** Collects resource records into one body; remembers where zone names sit for case patching. */
export class RecordWriter {
  private length = 0;
  count = 0;
  /** Offsets in the body where the zone's lower-case wire name starts (SRV targets). */
  readonly zoneOffsets: number[] = [];

  constructor(private readonly ttl: number) {}

  /** A or AAAA for `ip`, owned by the question name. False when `ip` does not parse. */
  address(ip: string): boolean {
    const v4 = ip.indexOf(':') < 0;
    const at = this.header(v4 ? TYPE_A : TYPE_AAAA, v4 ? 4 : 16);
    if (v4 ? writeIpv4(ip, scratch, at) : writeIpv6(zoneless(ip), scratch, at)) {
      this.length = at + (v4 ? 4 : 16);
      return true;
    }
    // Not an address after all: the header is overwritten by whatever comes next.
    this.count--;
    return false;
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
    this.count++;
    return writeAnswerHead(scratch, at, type, this.ttl, rdataLength);
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
  const mname = wireName(`ns.dns.${suffix}`);
  const rname = wireName(`hostmaster.${suffix}`);
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

/** Wire form of a fully qualified name; a RangeError for an empty label or one over 63 octets. */
export function wireName(name: string): Buffer {
  const length = nameLength(name);
  if (length < 0) throw new RangeError(`invalid label in '${name}'`);
  const out = Buffer.allocUnsafe(length);
  writeName(out, 0, name);
  return out;
}

/** An address without its zone (`fe80::1%eth0`), which Kubernetes accepts and the wire has no room for. */
function zoneless(ip: string): string {
  const percent = ip.indexOf('%');
  return percent < 0 ? ip : ip.slice(0, percent);
}
