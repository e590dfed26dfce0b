/**
 * CoreDNS's `responseShouldDNS64` on an encoded AAAA reply, without decoding it: the rcode, the
 * types in the answer section and, for NXDOMAIN, whether the authority has an SOA.
 */
import { TYPE_AAAA, TYPE_SOA } from '@foghorn/core';
import { skipName } from '@foghorn/core/wire';

const TYPE_RRSIG = 46;
const RCODE_NXDOMAIN = 3;

export enum Verdict {
  /** Send it as it is: it has AAAA records, or is a name error (RFC 6147 §5.1.1, §5.1.2). */
  Pass,
  /** Synthesise: an empty answer, or an error other than a name error. */
  Translate,
  /** A signed NXDOMAIN: `response.Typify` checks the signatures, on the decoded message. */
  Decode,
}

/** Whether a wire AAAA reply is translated; `translateAll` translates all but name errors. */
export function aaaaVerdict(wire: Uint8Array, translateAll: boolean): Verdict {
  if (wire.length < 12) return Verdict.Translate;
  const rcode = wire[3]! & 0x0f;
  const qdcount = (wire[4]! << 8) | wire[5]!;
  const ancount = (wire[6]! << 8) | wire[7]!;
  const nscount = (wire[8]! << 8) | wire[9]!;
  const arcount = (wire[10]! << 8) | wire[11]!;
  let offset = 12;
  for (let i = 0; i < qdcount; i++) {
    const end = skipName(wire, offset);
    if (end < 0) return Verdict.Decode;
    offset = end + 4;
  }
  if (rcode === RCODE_NXDOMAIN) {
    // response.Typify: NXDOMAIN is a name error only with an SOA, and only when no signature has
    // expired; the dns-packet decode and core's typify settle a signed one.
    let soa = false;
    for (let i = 0; i < ancount + nscount + arcount; i++) {
      const end = skipName(wire, offset);
      if (end < 0 || end + 10 > wire.length) return Verdict.Decode;
      const type = (wire[end]! << 8) | wire[end + 1]!;
      if (type === TYPE_RRSIG) return Verdict.Decode;
      if (type === TYPE_SOA && i >= ancount && i < ancount + nscount) soa = true;
      offset = end + 10 + ((wire[end + 8]! << 8) | wire[end + 9]!);
    }
    return soa ? Verdict.Pass : Verdict.Translate;
  }
  if (translateAll) return Verdict.Translate;
  for (let i = 0; i < ancount; i++) {
    const end = skipName(wire, offset);
    if (end < 0 || end + 10 > wire.length) return Verdict.Decode;
    if (((wire[end]! << 8) | wire[end + 1]!) === TYPE_AAAA) return Verdict.Pass;
    offset = end + 10 + ((wire[end + 8]! << 8) | wire[end + 9]!);
  }
  return Verdict.Translate;
}
