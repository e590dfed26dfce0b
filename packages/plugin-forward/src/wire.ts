/**
 * Work on wire bytes, so a forwarded query is never decoded and re-encoded: the client's bytes
 * go upstream with a new ID, the upstream's bytes come back with the client's ID.
 */
// Bindings, not globals: per query (docs/architecture.md, "Per-query code").
import { Buffer } from 'node:buffer';
import { Flags, HEADER_LENGTH, OFFSET_FLAGS, OFFSET_QDCOUNT, TYPE_OPT } from '@foghorn/core';
import { skipName, wireRcode } from '@foghorn/core/wire';

/** ASCII lower-casing of one byte, for case-insensitive name comparison (RFC 4343). */
function lower(byte: number): number {
  return byte >= 0x41 && byte <= 0x5a ? byte | 0x20 : byte;
}

/**
 * Whether `reply` answers a query whose question is `question` (the query's bytes 12..end): the
 * same name (case-insensitively, so 0x20 randomisation upstream is fine), type and class. A reply
 * with no question at all also passes: that is an upstream's error reply (FORMERR, NOTIMP), which
 * the handler then turns into FORMERR for the client as CoreDNS does.
 */
export function answersQuestion(reply: Uint8Array, question: Uint8Array): boolean {
  if (reply.length < HEADER_LENGTH) return false;
  const qdcount = (reply[OFFSET_QDCOUNT]! << 8) | reply[OFFSET_QDCOUNT + 1]!;
  if (qdcount === 0) return true;
  const length = question.length;
  if (qdcount !== 1 || length < 5 || reply.length < HEADER_LENGTH + length) return false;
  // The name: equal bytes, or equal once lower-cased (label lengths are below 64, never letters).
  const nameEnd = length - 4;
  for (let i = 0; i < nameEnd; i++) {
    const a = reply[HEADER_LENGTH + i]!;
    const b = question[i]!;
    if (a !== b && lower(a) !== lower(b)) return false;
  }
  // Type and class exactly: lower-casing them would take type 65 (HTTPS) for type 97.
  for (let i = nameEnd; i < length; i++) if (reply[HEADER_LENGTH + i] !== question[i]) return false;
  return true;
}

/** CoreDNS's `state.Match`: a response (QR) carrying exactly the one question. */
export function isMatchingResponse(reply: Uint8Array): boolean {
  const qdcount = ((reply[OFFSET_QDCOUNT] ?? 0) << 8) | (reply[OFFSET_QDCOUNT + 1] ?? 0);
  const flags = ((reply[OFFSET_FLAGS] ?? 0) << 8) | (reply[OFFSET_FLAGS + 1] ?? 0);
  return (flags & Flags.QR) !== 0 && qdcount === 1;
}

/** The message ID. */
export function readId(wire: Uint8Array): number {
  return ((wire[0] ?? 0) << 8) | (wire[1] ?? 0);
}

/** A copy of `wire` with `id` in its header. */
export function withId(wire: Uint8Array, id: number): Buffer {
  const copy = Buffer.allocUnsafe(wire.length);
  copy.set(wire);
  copy[0] = id >> 8;
  copy[1] = id & 0xff;
  return copy;
}

/** Whether the TC bit is set. */
export function isTruncated(wire: Uint8Array): boolean {
  return ((wire[OFFSET_FLAGS] ?? 0) & (Flags.TC >> 8)) !== 0;
}

/** Whether the reply is NOERROR with an empty answer section (for `next_on_nodata`). */
export function isNoData(wire: Uint8Array): boolean {
  return wireRcode(wire) === 0 && (wire[6] ?? 0) === 0 && (wire[7] ?? 0) === 0;
}

/**
 * The scrub CoreDNS applies to a reply with OPT when the client sent OPT (docs/compatibility.md, "Scrub": request.go's SizeAndDo),
 * done in place on the upstream's bytes: UDP size = the client's advertised size, version 0, the
 * client's DO bit added, the other flag bits below DO cleared. The extended-rcode byte is kept,
 * because miekg/dns packs the message's full rcode back into it. Returns false when the message
 * could not be walked (left as it is).
 */
export function scrubOpt(reply: Uint8Array, udpSize: number, dnssecOk: boolean): boolean {
  if (reply.length < HEADER_LENGTH) return false;
  const count = (at: number): number => ((reply[at] ?? 0) << 8) | (reply[at + 1] ?? 0);
  let o = HEADER_LENGTH;
  for (let i = count(4); i > 0; i--) {
    o = skipName(reply, o);
    if (o < 0) return false;
    o += 4;
  }
  const records = count(6) + count(8) + count(10);
  const additionalStart = count(6) + count(8);
  for (let i = 0; i < records; i++) {
    o = skipName(reply, o);
    if (o < 0 || o + 10 > reply.length) return false;
    const type = count(o);
    const rdlength = count(o + 8);
    if (i >= additionalStart && type === TYPE_OPT) {
      reply[o + 2] = udpSize >> 8;
      reply[o + 3] = udpSize & 0xff;
      // TTL field: ext-rcode, version, then DO and Z (RFC 6891 §6.1.3).
      reply[o + 5] = 0;
      reply[o + 6] = ((reply[o + 6] ?? 0) & 0xff) | (dnssecOk ? 0x80 : 0);
      reply[o + 7] = 0;
      return true;
    }
    o += 10 + rdlength;
  }
  return true;
}
