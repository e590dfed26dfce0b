/**
 * Reading a query straight from its wire bytes.
 *
 * Why not `dns-packet.decode`: it builds objects for every section and throws on bad input, and
 * the hot path needs only the header, the one question and the OPT record. This reader does the
 * accept checks of miekg/dns (CoreDNS's server library, docs/compatibility.md, "Accept filter") in one pass with no allocation
 * beyond the question name string. The full message is decoded lazily, only if a plugin asks.
 */

import { EDNS_FLAG_DO, Flags, HEADER_LENGTH, MAX_NAME_LENGTH, OPCODE_NOTIFY, OPCODE_QUERY, OPT_LENGTH, TYPE_OPT } from './constants.js';
import { validateRecords } from './validate.js';

/** EDNS(0) option as dns-packet encodes it. */
export interface EdnsOption {
  readonly code: number;
  readonly data: Buffer;
}

/** What {@link readQuery} learned, or why the query must be refused. */
export interface QueryHeader {
  id: number;
  /** The 16 flag bits of the header (QR, opcode, AA, TC, RD, RA, Z, AD, CD, rcode). */
  flags: number;
  opcode: number;
  /** Question name as sent, in presentation form with a trailing dot. */
  name: string;
  /** {@link QueryHeader.name} in lower case: the same string when the client sent no capital. */
  lowerName: string;
  qtype: number;
  qclass: number;
  /** Byte offset just past the question. */
  questionEnd: number;
  /** True when an OPT record was present. */
  hasEdns: boolean;
  /** Advertised UDP payload size from OPT (0 without OPT). */
  udpSize: number;
  /** Offset of that size in the message (the OPT record's CLASS field), 0 without OPT. */
  udpSizeOffset: number;
  ednsVersion: number;
  /** DO bit of the OPT TTL field. */
  dnssecOk: boolean;
  /** OPT options worth echoing (RFC 6891); filtered by the scrub writer. */
  ednsOptions: EdnsOption[] | null;
}

/** Result of the accept filter. */
export enum Verdict {
  /** A well-formed query. */
  Accept = 0,
  /** Drop silently: a response, or not even a header. */
  Drop = 1,
  /** Answer FORMERR with an empty message. */
  FormErr = 2,
  /** Answer NOTIMP: an opcode other than QUERY or NOTIFY. */
  NotImp = 3,
}


/** Scratch result reused between calls on one listener: the caller copies what it keeps. */
export function emptyHeader(): QueryHeader {
  return {
    id: 0,
    flags: 0,
    opcode: 0,
    name: '.',
    lowerName: '.',
    qtype: 0,
    qclass: 0,
    questionEnd: HEADER_LENGTH,
    hasEdns: false,
    udpSize: 0,
    udpSizeOffset: 0,
    ednsVersion: 0,
    dnssecOk: false,
    ednsOptions: null,
  };
}

/**
 * Reads a query into `out` and returns the accept verdict (docs/compatibility.md, "Accept filter"): responses are dropped;
 * opcodes other than QUERY/NOTIFY get NOTIMP; QDCOUNT ≠ 1, ANCOUNT > 1, NSCOUNT > 1 or
 * ARCOUNT > 2 get FORMERR; so does anything that does not parse once the header is readable.
 */
export function readQuery(buf: Uint8Array, out: QueryHeader): Verdict {
  if (buf.length < HEADER_LENGTH) return Verdict.Drop;
  const flags = (buf[2]! << 8) | buf[3]!;
  out.id = (buf[0]! << 8) | buf[1]!;
  out.flags = flags;
  out.opcode = (flags >> 11) & 0xf;
  out.hasEdns = false;
  out.udpSize = 0;
  out.udpSizeOffset = 0;
  out.ednsVersion = 0;
  out.dnssecOk = false;
  out.ednsOptions = null;
  // Reset: NOTIMP copies the question up to here, and an unreadable one must not leave the last query's.
  out.questionEnd = 12;
  if ((flags & Flags.QR) !== 0) return Verdict.Drop;
  if (out.opcode !== OPCODE_QUERY && out.opcode !== OPCODE_NOTIFY) {
    // The question is copied into the NOTIMP reply when it can be read.
    readQuestion(buf, out);
    return Verdict.NotImp;
  }
  const qdcount = (buf[4]! << 8) | buf[5]!;
  const ancount = (buf[6]! << 8) | buf[7]!;
  const nscount = (buf[8]! << 8) | buf[9]!;
  const arcount = (buf[10]! << 8) | buf[11]!;
  if (qdcount !== 1 || ancount > 1 || nscount > 1 || arcount > 2) return Verdict.FormErr;
  if (!readQuestion(buf, out) || !validateRecords(buf, out.questionEnd, ancount + nscount + arcount)) return Verdict.FormErr;
  let offset = out.questionEnd;
  for (let i = 0; i < ancount + nscount; i++) {
    offset = skipRecord(buf, offset);
    if (offset < 0) return Verdict.FormErr;
  }
  for (let i = 0; i < arcount; i++) {
    const nameEnd = skipName(buf, offset);
    if (nameEnd < 0 || nameEnd + 10 > buf.length) return Verdict.FormErr;
    const type = (buf[nameEnd]! << 8) | buf[nameEnd + 1]!;
    const rdlength = (buf[nameEnd + 8]! << 8) | buf[nameEnd + 9]!;
    const rdata = nameEnd + 10;
    if (rdata + rdlength > buf.length) return Verdict.FormErr;
    if (type === TYPE_OPT) {
      // RFC 6891 §6.1.1: more than one OPT makes the message malformed.
      if (out.hasEdns) return Verdict.FormErr;
      out.hasEdns = true;
      out.udpSize = (buf[nameEnd + 2]! << 8) | buf[nameEnd + 3]!;
      out.udpSizeOffset = nameEnd + 2;
      out.ednsVersion = buf[nameEnd + 5]!;
      out.dnssecOk = (buf[nameEnd + 6]! & 0x80) !== 0;
      if (rdlength > 0 && !readOptions(buf, rdata, rdata + rdlength, out)) return Verdict.FormErr;
    }
    offset = rdata + rdlength;
  }
  return Verdict.Accept;
}

function readQuestion(buf: Uint8Array, out: QueryHeader): boolean {
  const qdcount = (buf[4]! << 8) | buf[5]!;
  if (qdcount < 1) return false;
  const name = readName(buf, HEADER_LENGTH);
  if (name === null) return false;
  const end = nameEndOffset;
  if (end + 4 > buf.length) return false;
  out.name = name;
  // Most names arrive in lower case: then there is nothing to convert (toLowerCase scans anyway).
  out.lowerName = nameHasCapitals ? name.toLowerCase() : name;
  out.qtype = (buf[end]! << 8) | buf[end + 1]!;
  out.qclass = (buf[end + 2]! << 8) | buf[end + 3]!;
  out.questionEnd = end + 4;
  return true;
}

/** Offset just past the name read by the last {@link readName} call (avoids a result object). */
let nameEndOffset = 0;
/** Whether the name read by the last {@link readName} call has a capital letter (A to Z). */
let nameHasCapitals = false;
/**
 * The presentation text of the name being read, written byte by byte and made a string once: one
 * native call per name instead of one per label and the concatenations. A label octet is at most
 * four characters (`\DDD`), so 4 × 255 always fits.
 */
const nameText = Buffer.allocUnsafe(4 * MAX_NAME_LENGTH);

/**
 * Reads a possibly compressed name in presentation form. Returns null for a malformed name:
 * a pointer loop or forward pointer, a reserved label type, running past the end, or more than
 * 255 octets. `.`, `\` and non-printable octets in labels are escaped as in zone files.
 */
export function readName(buf: Uint8Array, start: number): string | null {
  let offset = start;
  let end = -1;
  let text = 0;
  let wireLength = 1;
  // A pointer must point strictly backwards, so following at most length/2 pointers is enough
  // to detect every loop.
  let jumps = 0;
  let capitals = false;
  for (;;) {
    if (offset >= buf.length) return null;
    const length = buf[offset]!;
    if (length === 0) {
      offset += 1;
      break;
    }
    const kind = length & 0xc0;
    if (kind === 0xc0) {
      if (offset + 1 >= buf.length) return null;
      const target = ((length & 0x3f) << 8) | buf[offset + 1]!;
      if (end < 0) end = offset + 2;
      if (target >= offset || ++jumps > 127) return null;
      offset = target;
      continue;
    }
    if (kind !== 0) return null;
    const labelEnd = offset + 1 + length;
    if (labelEnd > buf.length) return null;
    wireLength += length + 1;
    if (wireLength > MAX_NAME_LENGTH) return null;
    for (let i = offset + 1; i < labelEnd; i++) {
      const c = buf[i]!;
      if (c > 0x20 && c < 0x7f && c !== 0x2e && c !== 0x5c) {
        nameText[text++] = c;
        if (c <= 0x5a && c >= 0x41) capitals = true;
      } else if (c === 0x2e || c === 0x5c) {
        nameText[text++] = 0x5c;
        nameText[text++] = c;
      } else {
        nameText[text++] = 0x5c;
        nameText[text++] = 0x30 + Math.floor(c / 100);
        nameText[text++] = 0x30 + (Math.floor(c / 10) % 10);
        nameText[text++] = 0x30 + (c % 10);
      }
    }
    nameText[text++] = 0x2e;
    offset = labelEnd;
  }
  nameEndOffset = end < 0 ? offset : end;
  nameHasCapitals = capitals;
  return text === 0 ? '.' : nameText.toString('latin1', 0, text);
}

/**
 * Offset just past the name at `start`, or -1 when it is malformed: it runs past the end of
 * `buf` or uses a reserved label type (RFC 1035 §4.1.4, RFC 6891 §5). A compression pointer ends
 * the name and is not followed, so the walk always moves forward and always ends.
 */
export function skipName(buf: Uint8Array, start: number): number {
  let offset = start;
  for (;;) {
    if (offset >= buf.length) return -1;
    const length = buf[offset]!;
    if (length === 0) return offset + 1;
    if ((length & 0xc0) === 0xc0) return offset + 2 <= buf.length ? offset + 2 : -1;
    if ((length & 0xc0) !== 0) return -1;
    offset += 1 + length;
  }
}

/** Offset just past the first question (name, type, class), or -1 when there is none to read. */
export function questionEnd(buf: Uint8Array): number {
  if (buf.length < HEADER_LENGTH || ((buf[4]! << 8) | buf[5]!) === 0) return -1;
  const end = skipName(buf, HEADER_LENGTH);
  return end < 0 || end + 4 > buf.length ? -1 : end + 4;
}

/** Offset just past the resource record at `start` (name, fixed fields, RDATA), or -1 when it runs past the end. */
export function skipRecord(buf: Uint8Array, start: number): number {
  const nameEnd = skipName(buf, start);
  if (nameEnd < 0 || nameEnd + 10 > buf.length) return -1;
  const end = nameEnd + 10 + ((buf[nameEnd + 8]! << 8) | buf[nameEnd + 9]!);
  return end <= buf.length ? end : -1;
}

/** Options the scrub writer echoes (docs/compatibility.md, "Scrub"): NSID, EXPIRE, COOKIE, TCP-KEEPALIVE, PADDING. */
const echoedOptions = new Set([3, 9, 10, 11, 12]);

function readOptions(buf: Uint8Array, from: number, to: number, out: QueryHeader): boolean {
  let offset = from;
  while (offset < to) {
    if (offset + 4 > to) return false;
    const code = (buf[offset]! << 8) | buf[offset + 1]!;
    const length = (buf[offset + 2]! << 8) | buf[offset + 3]!;
    const data = offset + 4;
    if (data + length > to) return false;
    if (echoedOptions.has(code)) {
      (out.ednsOptions ??= []).push({ code, data: Buffer.from(buf.subarray(data, data + length)) });
    }
    offset = data + length;
  }
  return true;
}

/** A 12-byte reply header with no records: FORMERR and friends when nothing else is readable. */
export function headerOnlyReply(query: Uint8Array, rcode: number): Buffer {
  const reply = Buffer.alloc(HEADER_LENGTH);
  reply[0] = query[0] ?? 0;
  reply[1] = query[1] ?? 0;
  // QR set, opcode and RD copied from the query.
  reply[2] = 0x80 | ((query[2] ?? 0) & 0x79);
  reply[3] = rcode & 0x0f;
  return reply;
}

/**
 * Writes a reply's header and the query's question (copied from `query`, whose question ends at
 * `questionEnd`) to the start of `out`, for plugins that assemble reply bytes themselves. Byte
 * stores rather than Buffer's write and copy methods: those check their arguments and make a
 * view per call, which costs more than the few dozen bytes here. Returns `questionEnd`.
 */
export function writeReplyHead(
  out: Uint8Array,
  query: Uint8Array,
  questionEnd: number,
  id: number,
  flags: number,
  ancount: number,
  nscount: number,
  arcount: number,
): number {
  out[0] = id >> 8;
  out[1] = id;
  out[2] = flags >> 8;
  out[3] = flags;
  out[4] = 0;
  out[5] = 1;
  out[6] = ancount >> 8;
  out[7] = ancount;
  out[8] = nscount >> 8;
  out[9] = nscount;
  out[10] = arcount >> 8;
  out[11] = arcount;
  for (let i = HEADER_LENGTH; i < questionEnd; i++) out[i] = query[i]!;
  return questionEnd;
}

/**
 * Writes, at `offset`, the OPT record a reply to an EDNS query carries when it echoes no options:
 * the client's UDP size and DO bit, version 0, no options ({@link OPT_LENGTH} bytes). For plugins
 * that assemble reply bytes themselves. Returns the offset after it.
 */
export function writeOpt(out: Buffer, offset: number, udpSize: number, dnssecOk: boolean): number {
  out[offset] = 0;
  out.writeUInt16BE(TYPE_OPT, offset + 1);
  out.writeUInt16BE(udpSize, offset + 3);
  out.writeUInt32BE(dnssecOk ? EDNS_FLAG_DO : 0, offset + 5);
  out.writeUInt16BE(0, offset + 9);
  return offset + OPT_LENGTH;
}
