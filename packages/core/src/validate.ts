/**
 * The record check of a query: every record of the answer, authority and additional sections
 * must unpack the way miekg/dns (CoreDNS's DNS library) unpacks it, or the query gets FORMERR.
 *
 * Why: `readQuery` only needs the question and the OPT record, but a query that carries a
 * malformed record elsewhere (a compression loop in an owner name, an A record of 3 bytes) is
 * answered FORMERR by CoreDNS, and forward must not pass such bytes upstream. This walks the
 * records on the wire without allocating: each type's rdata is a short field list mirroring the
 * unpack functions of miekg/dns's zmsg.go, checked in place.
 *
 * miekg/dns's rules kept here (msg.go, msg_helpers.go):
 * - a name follows at most 126 compression pointers (to any offset, forwards too) and is at most
 *   255 octets; labels of type 0x40 and 0x80 are errors;
 * - rdata is read from the message cut at the end of the record, so no field reaches past
 *   rdlength, and the fields must end exactly at rdlength;
 * - rdlength 0 is an empty record of any type; after the first field the rdata may stop at any
 *   field boundary;
 * - a type miekg/dns does not know is opaque bytes (RFC 3597).
 * One rule is stricter: a section shorter than its count (miekg/dns stops quietly when the
 * message ends on a record boundary) is FORMERR, as before, because forward sends the query
 * bytes as they came rather than packing a new message.
 */

import { MAX_NAME_LENGTH } from './constants.js';

/** miekg/dns's maxCompressionPointers: (255 + 1) / 2 - 2. */
const MAX_POINTERS = 126;

/*
 * Field codes of the rdata specs:
 *   b w l t o x  fixed 1, 2, 4, 6, 8, 16 octets (u8, u16, u32, u48, u64, AAAA; A is `l`)
 *   n            a domain name
 *   s            a character-string (length octet and bytes)
 *   T            character-strings to the end (TXT)
 *   R            the rest of the rdata, any length (hex, base64, opaque)
 *   D            domain names to the end (HIP)
 *   N            NSEC type bitmap to the end
 *   O            EDNS(0) options to the end
 *   P            APL prefixes to the end
 *   V            SVCB parameters to the end
 *   G            IPSECKEY/AMTRELAY gateway, kind given by the previous octet
 *   H            bytes counted by the previous u8 (NSEC3 salt and hash)
 *   h            bytes counted by the previous u16 (TKEY, TSIG)
 *   I            HIP: HIT counted by the first octet, public key by the u16 at offset 2
 */
const DS = 'wbbR';
const DNSKEY = 'wbbR';
const RRSIG = 'wbblllwnR';
const specs = new Map<number, string>([
  [1, 'l'], [2, 'n'], [3, 'n'], [4, 'n'], [5, 'n'], [6, 'nnlllll'], [7, 'n'], [8, 'n'], [9, 'n'],
  [10, 'R'], [12, 'n'], [13, 'ss'], [14, 'nn'], [15, 'wn'], [16, 'T'], [17, 'nn'], [18, 'wn'],
  [19, 's'], [20, 'ss'], [21, 'wn'], [23, 'n'], [24, RRSIG], [25, DNSKEY], [26, 'wnn'], [27, 'sss'],
  [28, 'x'], [29, 'bbbblll'], [30, 'nN'], [31, 'R'], [32, 'R'], [33, 'wwwn'], [35, 'wwsssn'],
  [36, 'wn'], [37, 'wwbR'], [39, 'n'], [41, 'O'], [42, 'P'], [43, DS], [44, 'bbR'], [45, 'bbbGR'],
  [46, RRSIG], [47, 'nN'], [48, DNSKEY], [49, 'R'], [50, 'bbwbHbHN'], [51, 'bbwbH'], [52, 'bbbR'],
  [53, 'bbbR'], [55, 'bbwID'], [56, 'T'], [57, DNSKEY], [58, 'nn'], [59, DS], [60, DNSKEY], [61, 'R'],
  [62, 'lwN'], [63, 'lbbR'], [64, 'wnV'], [65, 'wnV'], [99, 'T'], [100, 's'], [101, 'l'], [102, 'l'],
  [104, 'wo'], [105, 'wl'], [106, 'wo'], [107, 'wn'], [108, 't'], [109, 'o'], [128, ''],
  [249, 'nllwwwhwh'], [250, 'ntwwhwwwh'], [255, ''], [256, 'wwR'], [257, 'bsR'], [258, 'T'],
  [260, 'bbGR'], [261, 'T'], [32768, DS], [32769, DS],
]);

const fixedWidth: Record<string, number> = { b: 1, w: 2, l: 4, t: 6, o: 8, x: 16 };

/**
 * Checks `count` records from `offset` on. Returns false when one of them would not unpack in
 * miekg/dns (or the message ends before the count is reached).
 */
export function validateRecords(buf: Uint8Array, offset: number, count: number): boolean {
  for (let i = 0; i < count; i++) {
    offset = checkRecord(buf, offset);
    if (offset < 0) return false;
  }
  return true;
}

/** Offset just past a well-formed record at `start`, or -1. */
export function checkRecord(buf: Uint8Array, start: number): number {
  const nameEnd = checkName(buf, start, buf.length);
  if (nameEnd < 0 || nameEnd + 10 > buf.length) return -1;
  const type = (buf[nameEnd]! << 8) | buf[nameEnd + 1]!;
  const rdata = nameEnd + 10;
  const end = rdata + ((buf[nameEnd + 8]! << 8) | buf[nameEnd + 9]!);
  if (end > buf.length) return -1;
  if (end === rdata) return end;
  const spec = specs.get(type);
  if (spec === undefined) return end;
  return checkFields(buf, rdata, end, spec) ? end : -1;
}

/**
 * End offset of a possibly compressed name at `start` within `buf[0, limit)`, or -1: the
 * checks of miekg/dns's UnpackDomainName.
 */
export function checkName(buf: Uint8Array, start: number, limit: number): number {
  let offset = start;
  let end = -1;
  let pointers = 0;
  let budget = MAX_NAME_LENGTH;
  for (;;) {
    if (offset >= limit) return -1;
    const c = buf[offset]!;
    offset++;
    switch (c & 0xc0) {
      case 0x00:
        if (c === 0) return end < 0 ? offset : end;
        if (offset + c > limit) return -1;
        budget -= c + 1;
        if (budget <= 0) return -1;
        offset += c;
        break;
      case 0xc0:
        if (offset >= limit) return -1;
        if (end < 0) end = offset + 1;
        if (++pointers > MAX_POINTERS) return -1;
        offset = ((c & 0x3f) << 8) | buf[offset]!;
        break;
      default:
        return -1;
    }
  }
}

function checkFields(buf: Uint8Array, start: number, end: number, spec: string): boolean {
  let offset = start;
  let lastU8 = 0;
  let lastU16 = 0;
  for (let f = 0; f < spec.length; f++) {
    // miekg/dns's generated unpackers stop quietly at the end of the rdata between fields.
    if (f > 0 && offset === end) return true;
    const code = spec[f]!;
    const width = fixedWidth[code];
    if (width !== undefined) {
      if (offset + width > end) return false;
      if (width === 1) lastU8 = buf[offset]!;
      else if (width === 2) lastU16 = (buf[offset]! << 8) | buf[offset + 1]!;
      offset += width;
      continue;
    }
    switch (code) {
      case 'n':
        offset = checkName(buf, offset, end);
        break;
      case 's':
        offset = offset + 1 > end ? -1 : offset + 1 + buf[offset]! > end ? -1 : offset + 1 + buf[offset]!;
        break;
      case 'T':
        while (offset >= 0 && offset < end) offset = offset + 1 + buf[offset]! > end ? -1 : offset + 1 + buf[offset]!;
        break;
      case 'R':
        offset = end;
        break;
      case 'D':
        while (offset >= 0 && offset < end) offset = checkName(buf, offset, end);
        break;
      case 'N':
        offset = checkBitmap(buf, offset, end);
        break;
      case 'O':
        offset = checkOptions(buf, offset, end);
        break;
      case 'P':
        offset = checkApl(buf, offset, end);
        break;
      case 'V':
        offset = checkSvcParams(buf, offset, end);
        break;
      case 'G':
        offset = lastU8 === 1 ? (offset + 4 > end ? -1 : offset + 4) : lastU8 === 2 ? (offset + 16 > end ? -1 : offset + 16) : lastU8 === 3 ? checkName(buf, offset, end) : offset;
        break;
      case 'H':
        offset = offset + lastU8 > end ? -1 : offset + lastU8;
        break;
      case 'h':
        offset = offset + lastU16 > end ? -1 : offset + lastU16;
        break;
      case 'I': {
        const hit = buf[start]!;
        const key = (buf[start + 2]! << 8) | buf[start + 3]!;
        offset = offset + hit > end ? -1 : offset + hit;
        if (offset >= 0 && offset !== end) offset = offset + key > end ? -1 : offset + key;
        break;
      }
    }
    if (offset < 0) return false;
  }
  return offset === end;
}

/** NSEC(3) type bitmap: windows in increasing order, each 1 to 32 octets (RFC 4034 §4.1.2). */
function checkBitmap(buf: Uint8Array, offset: number, end: number): number {
  let last = -1;
  while (offset < end) {
    if (offset + 2 > end) return -1;
    const window = buf[offset]!;
    const length = buf[offset + 1]!;
    offset += 2;
    if (window <= last || length === 0 || length > 32 || offset + length > end) return -1;
    last = window;
    offset += length;
  }
  return offset;
}

/** EDNS(0) options with the length checks miekg/dns's option types make (edns.go). */
function checkOptions(buf: Uint8Array, offset: number, end: number): number {
  while (offset < end) {
    if (offset + 4 > end) return -1;
    const code = (buf[offset]! << 8) | buf[offset + 1]!;
    const length = (buf[offset + 2]! << 8) | buf[offset + 3]!;
    const data = offset + 4;
    offset = data + length;
    if (offset > end) return -1;
    switch (code) {
      case 1: // LLQ
        if (length < 18) return -1;
        break;
      case 2: // UL (update lease)
        if (length !== 4 && length !== 8) return -1;
        break;
      case 8: // client subnet, RFC 7871
        if (!checkSubnet(buf, data, length)) return -1;
        break;
      case 9: // EXPIRE: empty in a query, else 4 octets
        if (length !== 0 && length < 4) return -1;
        break;
      case 11: // TCP keepalive, RFC 7828
        if (length !== 0 && length !== 2) return -1;
        break;
      case 15: // extended DNS error, RFC 8914
      case 19: // zone version, RFC 9660
        if (length < 2) return -1;
        break;
      case 18: // reporting agent domain, RFC 9567: a name within the option
        if (checkName(buf.subarray(data, offset), 0, length) < 0) return -1;
        break;
    }
  }
  return offset;
}

function checkSubnet(buf: Uint8Array, data: number, length: number): boolean {
  if (length < 4) return false;
  const family = (buf[data]! << 8) | buf[data + 1]!;
  const source = buf[data + 2]!;
  const scope = buf[data + 3]!;
  if (family === 0) return source === 0;
  if (family === 1) return source <= 32 && scope <= 32;
  if (family === 2) return source <= 128 && scope <= 128;
  return false;
}

/** APL prefixes (RFC 3123): family 1 or 2, prefix within the family, no trailing zero octet. */
function checkApl(buf: Uint8Array, offset: number, end: number): number {
  while (offset < end) {
    if (offset + 4 > end) return -1;
    const family = (buf[offset]! << 8) | buf[offset + 1]!;
    const prefix = buf[offset + 2]!;
    const afdLength = buf[offset + 3]! & 0x7f;
    offset += 4;
    const size = family === 1 ? 4 : family === 2 ? 16 : 0;
    if (size === 0 || prefix > size * 8 || afdLength > size || offset + afdLength > end) return -1;
    if (afdLength > 0 && buf[offset + afdLength - 1] === 0) return -1;
    offset += afdLength;
  }
  return offset;
}

/** SVCB/HTTPS parameters (RFC 9460 §2.2): keys strictly increasing, values of the right shape. */
function checkSvcParams(buf: Uint8Array, offset: number, end: number): number {
  let last = -1;
  while (offset < end) {
    if (offset + 4 > end) return -1;
    const key = (buf[offset]! << 8) | buf[offset + 1]!;
    const length = (buf[offset + 2]! << 8) | buf[offset + 3]!;
    const value = offset + 4;
    offset = value + length;
    if (offset > end || key === 65535 || key <= last) return -1;
    last = key;
    switch (key) {
      case 0: // mandatory
        if (length % 2 !== 0) return -1;
        break;
      case 1: // alpn
        for (let i = value; i < offset; ) {
          i += 1 + buf[i]!;
          if (i > offset) return -1;
        }
        break;
      case 2: // no-default-alpn
      case 8: // ohttp
        if (length !== 0) return -1;
        break;
      case 3: // port
        if (length !== 2) return -1;
        break;
      case 4: // ipv4hint
        if (length === 0 || length % 4 !== 0) return -1;
        break;
      case 6: // ipv6hint: IPv4-mapped addresses are refused like miekg/dns's To4 check
        if (length === 0 || length % 16 !== 0) return -1;
        for (let i = value; i < offset; i += 16) if (isV4Mapped(buf, i)) return -1;
        break;
    }
  }
  return offset;
}

function isV4Mapped(buf: Uint8Array, at: number): boolean {
  for (let i = 0; i < 10; i++) if (buf[at + i] !== 0) return false;
  return buf[at + 10] === 0xff && buf[at + 11] === 0xff;
}
