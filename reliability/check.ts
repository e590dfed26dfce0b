/**
 * What a reply to a (possibly mutated) query must look like, shared by the property tests and
 * `npm run fuzz`. The rules are miekg/dns's accept filter and CoreDNS's server: a reply carries
 * the query's ID, QR set and its opcode; a query the filter rejects gets FORMERR or NOTIMP, with
 * the question when it was read and nothing else; every reply decodes.
 */
import dnsPacket from 'dns-packet';

/** The verdict a reply breaks, or undefined when it is a valid reply to `query`. */
export function replyProblem(query: Uint8Array, reply: Uint8Array): string | undefined {
  if (reply.length < 12) return `reply of ${reply.length} bytes`;
  if (reply[0] !== query[0] || reply[1] !== query[1]) return 'reply ID differs from the query ID';
  if ((reply[2]! & 0x80) === 0) return 'reply without QR';
  if ((reply[2]! & 0x78) !== (query[2]! & 0x78)) return 'reply opcode differs from the query opcode';
  const rcode = reply[3]! & 0x0f;
  const counts = [4, 6, 8, 10].map((at) => (reply[at]! << 8) | reply[at + 1]!);
  // FORMERR carries at most the question, as miekg/dns writes it for a message it could not unpack.
  if (rcode === 1 && (counts[0]! > 1 || counts[1]! + counts[2]! + counts[3]! > 0)) return 'FORMERR with records';
  try {
    dnsPacket.decode(Buffer.from(reply.buffer, reply.byteOffset, reply.length));
  } catch (error) {
    return `reply does not decode: ${(error as Error).message}`;
  }
  return undefined;
}

/** Rcode of a reply (with the extended bits of OPT ignored). */
export function rcodeOf(reply: Uint8Array): number {
  return reply[3]! & 0x0f;
}

/** Frames a message for TCP (RFC 1035 §4.2.2). */
export function frame(wire: Uint8Array): Buffer {
  const out = Buffer.alloc(wire.length + 2);
  out.writeUInt16BE(wire.length, 0);
  out.set(wire, 2);
  return out;
}
