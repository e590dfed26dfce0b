/**
 * CoreDNS's *minimal* decision on an encoded reply, without decoding it: one walk over the
 * records, reading types and counts. Only a reply carrying signatures (RRSIG), whose expiry
 * CoreDNS's `response.Typify` checks, needs the decoded message.
 */
import { OPCODE_NOTIFY, TYPE_NS, TYPE_OPT, TYPE_SOA } from '@foghorn/core';
import { skipName } from '@foghorn/core/wire';

const TYPE_RRSIG = 46;
const OPCODE_UPDATE = 5;
const RCODE_NOERROR = 0;

/** {@link minimalEnd}: send the reply as it is (not NOERROR, a denial, a delegation, not parseable). */
export const KEEP = -1;
/** {@link minimalEnd}: it has signatures, decide on the decoded message. */
export const DECODE = -2;

/** The OPT record of a reply's additional section. */
export interface OptFound {
  /** Its offset, -1 when there is none. */
  start: number;
  /** The offset after it. */
  end: number;
  /** No options: the OPT the scrub writes for a client that sent none. */
  plain: boolean;
}

/**
 * Where the minimal reply ends, {@link KEEP} or {@link DECODE}. A NOERROR reply that is not a delegation
 * (response.Typify's NoError: answers, or neither SOA nor NS in authority) keeps its header,
 * question and answer section: the offset returned is the end of its last answer. A compression
 * pointer only ever points back, so those bytes stand on their own.
 *
 * `opt` receives the OPT record found in the additional section.
 */
export function minimalEnd(wire: Uint8Array, opt: OptFound): number {
  opt.start = -1;
  opt.end = -1;
  opt.plain = false;
  if (wire.length < 12) return KEEP;
  const flags = (wire[2]! << 8) | wire[3]!;
  const opcode = (flags >> 11) & 0xf;
  if (opcode === OPCODE_NOTIFY || opcode === OPCODE_UPDATE) return KEEP;
  const rcode = flags & 0xf;
  if (rcode !== RCODE_NOERROR) return KEEP;
  const qdcount = (wire[4]! << 8) | wire[5]!;
  const ancount = (wire[6]! << 8) | wire[7]!;
  const nscount = (wire[8]! << 8) | wire[9]!;
  const arcount = (wire[10]! << 8) | wire[11]!;
  let offset = 12;
  for (let i = 0; i < qdcount; i++) {
    const end = skipName(wire, offset);
    if (end < 0 || end + 4 > wire.length) return KEEP;
    offset = end + 4;
  }
  let signed = false;
  for (let i = 0; i < ancount; i++) {
    const end = skipName(wire, offset);
    if (end < 0 || end + 10 > wire.length) return KEEP;
    if (((wire[end]! << 8) | wire[end + 1]!) === TYPE_RRSIG) signed = true;
    offset = end + 10 + ((wire[end + 8]! << 8) | wire[end + 9]!);
  }
  if (offset > wire.length) return KEEP;
  const answersEnd = offset;
  let soa = false;
  let ns = false;
  for (let i = 0; i < nscount; i++) {
    const end = skipName(wire, offset);
    if (end < 0 || end + 10 > wire.length) return KEEP;
    const type = (wire[end]! << 8) | wire[end + 1]!;
    if (type === TYPE_SOA) soa = true;
    else if (type === TYPE_NS) ns = true;
    else if (type === TYPE_RRSIG) signed = true;
    offset = end + 10 + ((wire[end + 8]! << 8) | wire[end + 9]!);
  }
  // NODATA (SOA) and delegations (NS without answers) keep every section.
  if (ancount === 0 && (soa || ns)) return KEEP;
  for (let i = 0; i < arcount; i++) {
    const start = offset;
    const end = skipName(wire, offset);
    if (end < 0 || end + 10 > wire.length) return KEEP;
    const type = (wire[end]! << 8) | wire[end + 1]!;
    const rdlength = (wire[end + 8]! << 8) | wire[end + 9]!;
    if (type === TYPE_RRSIG) signed = true;
    else if (type === TYPE_OPT) {
      // An extended rcode (RFC 6891 §6.1.3) makes the reply something other than NOERROR.
      if (wire[end + 4] !== 0) return KEEP;
      opt.start = start;
      opt.end = end + 10 + rdlength;
      opt.plain = rdlength === 0;
    }
    offset = end + 10 + rdlength;
  }
  if (offset > wire.length) return KEEP;
  return signed ? DECODE : answersEnd;
}
