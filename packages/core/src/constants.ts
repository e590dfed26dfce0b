/**
 * The DNS wire vocabulary, in one place: header layout and flag bits (RFC 1035 §4.1.1, RFC 4035
 * §3.2 for AD/CD), the record types and classes Foghorn's plugins name (RFC 1035 §3.2.2–3.2.4 and
 * the IANA registry), and the OPT record's DO bit (RFC 3225). Plugins that read or write wire
 * bytes import these rather than spelling the numbers again.
 */

/** Length of the fixed DNS header; the question starts right after it. */
export const HEADER_LENGTH = 12;

/** Byte offsets of the header's 16-bit fields. */
export const OFFSET_ID = 0;
export const OFFSET_FLAGS = 2;
export const OFFSET_QDCOUNT = 4;
export const OFFSET_ANCOUNT = 6;
export const OFFSET_NSCOUNT = 8;
export const OFFSET_ARCOUNT = 10;

/** Flag bits of the 16-bit header flags word, as dns-packet's `flags` field holds them. */
export const Flags = {
  QR: 0x8000,
  /** The four opcode bits; `(flags & OPCODE) >> 11` is the opcode. */
  OPCODE: 0x7800,
  AA: 0x0400,
  TC: 0x0200,
  RD: 0x0100,
  RA: 0x0080,
  AD: 0x0020,
  CD: 0x0010,
  /** The low four rcode bits (the rest live in OPT, RFC 6891 §6.1.3). */
  RCODE: 0x000f,
} as const;

/** The bits a reply copies from its query: opcode, RD and CD (miekg/dns's `SetReply`). */
export const REPLY_COPIED_FLAGS = Flags.OPCODE | Flags.RD | Flags.CD;

export const OPCODE_QUERY = 0;
export const OPCODE_NOTIFY = 4;

export const TYPE_A = 1;
export const TYPE_NS = 2;
export const TYPE_CNAME = 5;
export const TYPE_SOA = 6;
export const TYPE_PTR = 12;
export const TYPE_HINFO = 13;
export const TYPE_MX = 15;
export const TYPE_TXT = 16;
export const TYPE_AAAA = 28;
export const TYPE_SRV = 33;
export const TYPE_OPT = 41;
export const TYPE_DS = 43;
export const TYPE_IXFR = 251;
export const TYPE_AXFR = 252;
export const TYPE_ANY = 255;

export const CLASS_IN = 1;
export const CLASS_CH = 3;
export const CLASS_ANY = 255;

/** Length of an OPT record without options: root owner (1), type, class (the UDP size), TTL, RDLENGTH (RFC 6891 §6.1.2). */
export const OPT_LENGTH = 11;

/** The DO bit in the OPT record's flags, the low half of its TTL field (RFC 3225). */
export const EDNS_FLAG_DO = 0x8000;

/** Longest name on the wire, in octets (RFC 1035 §2.3.4). */
export const MAX_NAME_LENGTH = 255;
