/**
 * What a response is accounted under (BIND's `make_key`): the client's network prefix, the
 * response's category, and, depending on the category, the query type and a name.
 *
 * | category | name hashed            | qtype | as BIND words it                                  |
 * |----------|------------------------|-------|---------------------------------------------------|
 * | response | the query name         | yes   | non-empty responses for a name and type           |
 * | nodata   | the query name         | no    | empty responses for a valid name, whatever type   |
 * | nxdomain | the SOA owner (zone)   | no    | any undefined name under a zone                   |
 * | referral | the delegation point   | no    | referrals to the servers of a given domain        |
 * | error    | none                   | no    | every error but NXDOMAIN, whatever name and type  |
 * | request  | none                   | no    | (coredns/rrl's `requests-per-second`)             |
 *
 * The key is reduced to two 32-bit hashes, one choosing the account's set in the table and one
 * telling accounts in a set apart (a 64-bit fingerprint, as BIND keeps a hash of the name, not
 * the name: a collision makes two names share a limit, which is rare and harmless). Nothing here
 * allocates: names are hashed from the strings or bytes they already are.
 */
import { HEADER_LENGTH, Rcode, TYPE_NS } from '@foghorn/core';
import type { Packet } from 'dns-packet';
import { formatIp, packetRcode, skipName, writeIpv4, writeIpv6 } from '@foghorn/core/wire';

/** Response categories, each with its own rate (`responses-per-second`, …). */
export const Category = {
  response: 0,
  nodata: 1,
  nxdomain: 2,
  referral: 3,
  error: 4,
  request: 5,
} as const;
export type Category = (typeof Category)[keyof typeof Category];

/** The `category` label of the metrics and the word in log lines, by {@link Category}. */
export const categoryNames: readonly string[] = ['response', 'nodata', 'nxdomain', 'referral', 'error', 'request'];

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const DOT = 0x2e;

/** ASCII upper case to lower case; DNS names compare without regard to ASCII case (RFC 4343). */
function lower(c: number): number {
  return c >= 0x41 && c <= 0x5a ? c + 0x20 : c;
}

/**
 * FNV-1a of a presentation name's labels joined by dots, lower-cased, without the trailing dot:
 * `Example.ORG.`, `example.org` and the wire name `\7example\3org\0` hash alike. The root is
 * the empty string.
 */
export function hashName(name: string): number {
  let end = name.length;
  if (end > 0 && name.charCodeAt(end - 1) === DOT) end--;
  let h = FNV_OFFSET;
  for (let i = 0; i < end; i++) h = Math.imul(h ^ lower(name.charCodeAt(i)), FNV_PRIME);
  return h;
}

/**
 * {@link hashName} of the wire name at `offset` in `wire`, following compression pointers (at
 * most 64, each strictly backwards, so a loop in a bad reply ends). A name that runs past the
 * end hashes what was read.
 */
export function hashWireName(wire: Uint8Array, offset: number): number {
  let h = FNV_OFFSET;
  let first = true;
  let jumps = 0;
  let at = offset;
  while (at < wire.length) {
    const length = wire[at]!;
    if (length === 0) break;
    if ((length & 0xc0) === 0xc0) {
      if (at + 1 >= wire.length) break;
      const target = ((length & 0x3f) << 8) | wire[at + 1]!;
      if (target >= at || ++jumps > 64) break;
      at = target;
      continue;
    }
    if (!first) h = Math.imul(h ^ DOT, FNV_PRIME);
    first = false;
    const end = Math.min(at + 1 + length, wire.length);
    for (let i = at + 1; i < end; i++) h = Math.imul(h ^ lower(wire[i]!), FNV_PRIME);
    at = end;
  }
  return h;
}

/**
 * A reply's category and the name it is accounted under, read from its header and at most the
 * first authority record. `name` is the hash of that record's owner for nxdomain and referral
 * replies (0 when an NXDOMAIN has no authority), unset otherwise: the caller hashes the query name.
 */
export interface Classified {
  category: Category;
  name: number;
}

/**
 * coredns/rrl's `responseType`: answers make a response (whatever the rcode); otherwise NXDOMAIN,
 * a referral (NOERROR whose first authority record is NS), NODATA (any other NOERROR), or an
 * error. Sets `out` and returns it.
 */
export function classifyWire(wire: Uint8Array, out: Classified): Classified {
  out.name = 0;
  if (wire.length < HEADER_LENGTH) {
    out.category = Category.error;
    return out;
  }
  const rcode = wire[3]! & 0x0f;
  const answers = (wire[6]! << 8) | wire[7]!;
  const authorities = (wire[8]! << 8) | wire[9]!;
  if (answers > 0) out.category = Category.response;
  else if (rcode === Rcode.NXDOMAIN) out.category = Category.nxdomain;
  else if (rcode !== Rcode.NOERROR) out.category = Category.error;
  else out.category = Category.nodata;
  if (out.category !== Category.nxdomain && out.category !== Category.nodata) return out;
  if (authorities === 0) return out;
  // The first authority record: after the question section (the answer section is empty).
  let at = HEADER_LENGTH;
  const questions = (wire[4]! << 8) | wire[5]!;
  for (let q = 0; q < questions && at >= 0; q++) {
    at = skipName(wire, at);
    if (at >= 0) at += 4;
  }
  if (at < 0 || at > wire.length) return out;
  const nameEnd = skipName(wire, at);
  if (nameEnd < 0 || nameEnd + 2 > wire.length) return out;
  const type = (wire[nameEnd]! << 8) | wire[nameEnd + 1]!;
  if (out.category === Category.nodata) {
    if (type !== TYPE_NS) return out;
    out.category = Category.referral;
  }
  out.name = hashWireName(wire, at);
  return out;
}

/** {@link classifyWire} for a reply written as a dns-packet object. */
export function classifyMessage(msg: Packet, out: Classified): Classified {
  out.name = 0;
  const rcode = packetRcode(msg);
  const authority = msg.authorities?.[0];
  if ((msg.answers?.length ?? 0) > 0) out.category = Category.response;
  else if (rcode === Rcode.NXDOMAIN) out.category = Category.nxdomain;
  else if (rcode !== Rcode.NOERROR) out.category = Category.error;
  else if (authority?.type === 'NS') out.category = Category.referral;
  else out.category = Category.nodata;
  if ((out.category === Category.nxdomain || out.category === Category.referral) && authority !== undefined) out.name = hashName(authority.name);
  return out;
}

/**
 * Reads client addresses into their network prefix (`ipv4-prefix-length`, `ipv6-prefix-length`)
 * as four 32-bit words. One reader per handler; its scratch bytes are reused, so reading a
 * prefix allocates nothing. An IPv4-mapped IPv6 address (a dual-stack socket's view of an IPv4
 * client) counts as IPv4, and a zone (`fe80::1%eth0`) is ignored.
 */
export class PrefixReader {
  /** The prefix of the last address read, most significant word first; IPv4 uses `w0` only. */
  w0 = 0;
  w1 = 0;
  w2 = 0;
  w3 = 0;
  /** 4 or 6 after a successful read. */
  family: 4 | 6 = 4;
  private readonly bytes = new Uint8Array(16);
  private readonly mask4: number;
  private readonly mask6: Int32Array;

  constructor(
    readonly ipv4PrefixLength: number,
    readonly ipv6PrefixLength: number,
  ) {
    this.mask4 = wordMask(ipv4PrefixLength);
    this.mask6 = Int32Array.from([0, 1, 2, 3], (i) => wordMask(ipv6PrefixLength - 32 * i));
  }

  /** Reads `address` (dotted IPv4 or IPv6 text); false when it is neither. */
  read(address: string): boolean {
    const bytes = this.bytes;
    if (writeIpv4(address, bytes, 0)) {
      this.setV4();
      return true;
    }
    const percent = address.indexOf('%');
    if (!writeIpv6(percent < 0 ? address : address.slice(0, percent), bytes, 0)) return false;
    if (isV4Mapped(bytes)) {
      bytes.copyWithin(0, 12, 16);
      this.setV4();
      return true;
    }
    const mask = this.mask6;
    this.w0 = word(bytes, 0) & mask[0]!;
    this.w1 = word(bytes, 4) & mask[1]!;
    this.w2 = word(bytes, 8) & mask[2]!;
    this.w3 = word(bytes, 12) & mask[3]!;
    this.family = 6;
    return true;
  }

  private setV4(): void {
    this.w0 = word(this.bytes, 0) & this.mask4;
    this.w1 = 0;
    this.w2 = 0;
    this.w3 = 0;
    this.family = 4;
  }
}

/** A prefix as text, for log lines: `192.0.2.0/24`, `2001:db8:0:100::/56` (core's `formatIp`, Go's `IP.String`). */
export function formatPrefix(family: 4 | 6, w0: number, w1: number, w2: number, w3: number, bits: number): string {
  const words = family === 4 ? [w0] : [w0, w1, w2, w3];
  const bytes = new Uint8Array(4 * words.length);
  words.forEach((w, i) => {
    bytes[4 * i] = w >>> 24;
    bytes[4 * i + 1] = w >>> 16;
    bytes[4 * i + 2] = w >>> 8;
    bytes[4 * i + 3] = w;
  });
  return `${formatIp(bytes)}/${bits}`;
}

/** The mask of a 32-bit word holding `bits` leading prefix bits (clamped to 0..32). */
function wordMask(bits: number): number {
  if (bits <= 0) return 0;
  if (bits >= 32) return -1;
  return -1 << (32 - bits);
}

function word(bytes: Uint8Array, at: number): number {
  return (bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!;
}

function isV4Mapped(bytes: Uint8Array): boolean {
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return false;
  return bytes[10] === 0xff && bytes[11] === 0xff;
}

/** One round of MurmurHash3's 32-bit body: folds `k` into `h`. */
function mix(h: number, k: number): number {
  let x = Math.imul(k, 0xcc9e2d51);
  x = (x << 15) | (x >>> 17);
  h ^= Math.imul(x, 0x1b873593);
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** MurmurHash3's finaliser: every input bit reaches every output bit. */
function finish(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/**
 * The client prefix's part of a key's hash under `seed` (see {@link keyHash}): computed once per
 * query, and shared by every account the query touches.
 */
export function prefixHash(seed: number, w0: number, w1: number, w2: number, w3: number): number {
  return mix(mix(mix(mix(seed, w0), w1), w2), w3);
}

/**
 * A key's 32-bit hash: the prefix part, then a word of category, family, query type and class,
 * then the name's hash. With two seeds it gives the set index and the fingerprint of the key.
 * The seeds are random per table, so an attacker cannot aim spoofed keys at a victim's set.
 */
export function keyHash(prefixPart: number, meta: number, name: number): number {
  return finish(mix(mix(prefixPart, meta), name) ^ 24);
}

/** The key's word of category (bits 24..26), family (bit 27), query class (16..23, low byte) and type (0..15). */
export function keyMeta(category: Category, family: 4 | 6, qclass: number, qtype: number): number {
  return (category << 24) | (family === 6 ? 1 << 27 : 0) | ((qclass & 0xff) << 16) | (qtype & 0xffff);
}
