/**
 * DNSSEC on the wire: key tags (RFC 4034 Appendix B) and the canonical form of records and RRsets
 * (RFC 4034 §6.2 and §6.3, as corrected by RFC 6840 §5.1), what a signature covers, so what a
 * signer hashes and a verifier rebuilds.
 *
 * Each record is written uncompressed, owner and the rdata names of the types RFC 4034 lists in
 * lower case (US-ASCII letters only, byte by byte), with the TTL the signature states as the
 * original TTL. An RRset is its records sorted by their canonical rdata as unsigned octet strings,
 * duplicates removed, concatenated.
 */
import dnsPacket from 'dns-packet';
import type { Answer } from 'dns-packet';
import { typeNumber } from './response-type.js';

/** dns-packet's per-record codec, which its type declarations leave out. */
const recordCodec = (dnsPacket as unknown as { answer: { encode(rr: Answer): Buffer } }).answer;

/** A name field in rdata, or a run of bytes to step over before the next one. */
type Field = 'name' | 'string' | number;

/**
 * Where the names are in the rdata of the types whose names are lower-cased (RFC 4034 §6.2 less
 * NSEC, RFC 6840 §5.1; HINFO is in the list but holds no name). Fields after the last name are
 * left as they are.
 */
const nameLayouts: ReadonlyMap<number, readonly Field[]> = new Map<number, readonly Field[]>([
  [2, ['name']], // NS
  [3, ['name']], // MD
  [4, ['name']], // MF
  [5, ['name']], // CNAME
  [6, ['name', 'name']], // SOA
  [7, ['name']], // MB
  [8, ['name']], // MG
  [9, ['name']], // MR
  [12, ['name']], // PTR
  [14, ['name', 'name']], // MINFO
  [15, [2, 'name']], // MX
  [17, ['name', 'name']], // RP
  [18, [2, 'name']], // AFSDB
  [21, [2, 'name']], // RT
  [24, [18, 'name']], // SIG
  [26, [2, 'name', 'name']], // PX
  [30, ['name']], // NXT
  [33, [6, 'name']], // SRV
  [35, [4, 'string', 'string', 'string', 'name']], // NAPTR
  [36, [2, 'name']], // KX
  [39, ['name']], // DNAME
  [46, [18, 'name']], // RRSIG
]);

/** Lower-cases the uncompressed name at `offset` in place; returns the offset after it. */
function lowerName(buf: Buffer, offset: number): number {
  let at = offset;
  for (let length = buf[at]!; length !== 0; length = buf[at]!) {
    // Label lengths are at most 63, so only label bytes can fall in 'A'..'Z'.
    for (let i = at + 1; i <= at + length; i++) {
      const c = buf[i]!;
      if (c >= 0x41 && c <= 0x5a) buf[i] = c | 0x20;
    }
    at += length + 1;
  }
  return at + 1;
}

/** A record in canonical form and where its rdata starts, for sorting. */
interface CanonicalRecord {
  readonly wire: Buffer;
  readonly rdataAt: number;
}

function canonical(rr: Answer, originalTtl: number): CanonicalRecord {
  const wire = recordCodec.encode(rr);
  const ownerEnd = lowerName(wire, 0);
  wire.writeUInt32BE(originalTtl >>> 0, ownerEnd + 4);
  const rdataAt = ownerEnd + 10;
  const layout = nameLayouts.get(typeNumber(rr.type));
  if (layout !== undefined) {
    let at = rdataAt;
    for (const field of layout) {
      if (field === 'name') at = lowerName(wire, at);
      else if (field === 'string') at += wire[at]! + 1;
      else at += field;
    }
  }
  return { wire, rdataAt };
}

/**
 * One record in canonical form (RFC 4034 §6.2) with `originalTtl` as its TTL.
 *
 * @example
 * canonicalRecord({ name: 'WWW.Example.org', type: 'CNAME', ttl: 60, data: 'Web.Example.org' }, 3600)
 * // www.example.org. CNAME, TTL 3600, rdata web.example.org.
 */
export function canonicalRecord(rr: Answer, originalTtl: number): Buffer {
  return canonical(rr, originalTtl).wire;
}

/**
 * An RRset in canonical form (RFC 4034 §6.3), the records' part of what an RRSIG signs: each
 * record in canonical form with `originalTtl`, sorted by rdata, duplicates removed, concatenated.
 * The records must share owner (but for case), type and class.
 */
export function canonicalRRset(rrs: readonly Answer[], originalTtl: number): Buffer {
  if (rrs.length === 1) return canonical(rrs[0]!, originalTtl).wire;
  const records = rrs.map((rr) => canonical(rr, originalTtl));
  records.sort((a, b) => Buffer.compare(a.wire.subarray(a.rdataAt), b.wire.subarray(b.rdataAt)));
  const unique: Buffer[] = [];
  let last: CanonicalRecord | undefined;
  for (const record of records) {
    if (last !== undefined && Buffer.compare(last.wire.subarray(last.rdataAt), record.wire.subarray(record.rdataAt)) === 0) continue;
    unique.push(record.wire);
    last = record;
  }
  return Buffer.concat(unique);
}

/**
 * The key tag of a DNSKEY (RFC 4034 Appendix B): a checksum of its rdata that RRSIG and DS
 * records name the key by. Algorithm 1 (RSA/MD5, retired) has a tag of its own and is not handled.
 *
 * @example
 * keyTag(257, 13, publicKey) // the tag in `Kexample.org.+013+<tag>.key`
 */
export function keyTag(flags: number, algorithm: number, key: Uint8Array): number {
  // Flags (2 bytes), protocol 3, algorithm, then the key: even bytes count high, odd ones low.
  let sum = (flags & 0xffff) + ((3 << 8) | (algorithm & 0xff));
  for (let i = 0; i < key.length; i++) sum += i & 1 ? key[i]! : key[i]! << 8;
  sum += (sum >> 16) & 0xffff;
  return sum & 0xffff;
}
