/**
 * What kind of reply a message is, and for how long it may be cached: CoreDNS's
 * `response.Typify` and `dnsutil.MinimalTTL` (spec 3.5, "Miss" and "never cached").
 */
import type { Answer, Packet } from 'dns-packet';
import * as types from 'dns-packet/types.js';

/** CoreDNS's `response.Type`, restricted to what the cache tells apart. */
export enum Kind {
  /** NOERROR with an answer to the question, or with nothing at all. */
  NoError,
  /** NXDOMAIN with an SOA in authority. */
  NameError,
  /** NOERROR, no usable answer, SOA in authority. */
  NoData,
  /** NOERROR, no answer, NS in authority. */
  Delegation,
  /** SERVFAIL or NOTIMP. */
  ServerError,
  /** Never cached: REFUSED, FORMERR, NXDOMAIN without SOA or with answers, expired signatures, ... */
  OtherError,
  /** Never cached: zone transfers, NOTIFY. */
  Meta,
  /** Never cached: UPDATE. */
  Update,
}

const TYPE_SOA = 6;
const TYPE_NS = 2;
const TYPE_CNAME = 5;
const TYPE_OPT = 41;
const TYPE_RRSIG = 46;
const TYPE_IXFR = 251;
const TYPE_AXFR = 252;
const TYPE_ANY = 255;
const OPCODE_NOTIFY = 4;
const OPCODE_UPDATE = 5;
const RCODE_NOERROR = 0;
const RCODE_SERVFAIL = 2;
const RCODE_NXDOMAIN = 3;
const RCODE_NOTIMP = 4;

/** `dnsutil.MinimalDefaultTTL`: the TTL of replies with nothing to take a TTL from. */
export const minimalDefaultTtlSeconds = 5;
/** `dnsutil.MaximumDefaulTTL`: no record keeps a reply longer than this. */
export const maximumDefaultTtlSeconds = 3600;

const typeNumbers = new Map<string, number>();
/** dns-packet's type name as a number (`A` → 1, `UNKNOWN_65534` → 65534). */
export function typeNumber(name: string | undefined): number {
  if (name === undefined) return 0;
  let n = typeNumbers.get(name);
  if (n === undefined) {
    n = name.startsWith('UNKNOWN_') ? Number(name.slice(8)) : name.startsWith('TYPE') ? Number(name.slice(4)) : types.toType(name);
    typeNumbers.set(name, n);
  }
  return n;
}

/** Lower-case, fully qualified: dns-packet leaves the trailing dot out of decoded names. */
export function canonicalName(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith('.') ? lower : lower + '.';
}

/** RR type of a record, as a number. */
function rrType(rr: Answer): number {
  return typeNumber(rr.type);
}

/** The 12-bit-free rcode in the header flags. */
export function rcodeOf(msg: Packet): number {
  return (msg.flags ?? 0) & 0x0f;
}

function opcodeOf(msg: Packet): number {
  return ((msg.flags ?? 0) >> 11) & 0x0f;
}

/**
 * Whether the answer section answers `qname`/`qtype`: a record of the type at the name, or at
 * the end of the CNAME chain that starts there. A chain that never reaches the type does not.
 */
export function answersQuestion(answers: readonly Answer[], qname: string, qtype: number): boolean {
  let name = qname;
  // Each step follows one CNAME; a chain longer than the section is a loop.
  for (let step = 0; step <= answers.length; step++) {
    let next: string | undefined;
    for (const rr of answers) {
      if (canonicalName(rr.name) !== name) continue;
      const type = rrType(rr);
      if (type === qtype || qtype === TYPE_ANY) return true;
      if (type === TYPE_CNAME && next === undefined) next = canonicalName(String((rr as { data: unknown }).data));
    }
    if (next === undefined) return false;
    name = next;
  }
  return false;
}

/** RFC 4034 §3.1.5: a signature is valid from inception to expiration, in epoch seconds. */
function hasExpiredSignature(msg: Packet, nowMs: number): boolean {
  const now = Math.floor(nowMs / 1000);
  for (const section of [msg.answers, msg.authorities, msg.additionals]) {
    for (const rr of section ?? []) {
      if (rrType(rr) !== TYPE_RRSIG) continue;
      const sig = (rr as { data?: { expiration?: number; inception?: number } }).data;
      if (sig === undefined) continue;
      if ((sig.expiration !== undefined && sig.expiration < now) || (sig.inception !== undefined && sig.inception > now)) return true;
    }
  }
  return false;
}

/** The DO bit of the reply's OPT, or undefined without OPT. */
function replyDo(msg: Packet): boolean | undefined {
  for (const rr of msg.additionals ?? []) {
    if (rr.type === 'OPT') {
      const opt = rr as { flags?: number; flag_do?: boolean };
      return opt.flag_do === true || ((opt.flags ?? 0) & 0x8000) !== 0;
    }
  }
  return undefined;
}

/**
 * Classifies a reply to `qname`/`qtype` (CoreDNS's `Typify`). `dnssecOk` is the request's DO
 * bit, used when the reply carries no OPT of its own.
 */
export function classify(msg: Packet, qname: string, qtype: number, dnssecOk: boolean, nowMs: number): Kind {
  const opcode = opcodeOf(msg);
  if (opcode === OPCODE_UPDATE) return Kind.Update;
  if (opcode === OPCODE_NOTIFY) return Kind.Meta;
  const question = msg.questions?.[0];
  const questionType = question ? typeNumber(question.type) : qtype;
  if (questionType === TYPE_AXFR || questionType === TYPE_IXFR) return Kind.Meta;
  if ((replyDo(msg) ?? dnssecOk) && hasExpiredSignature(msg, nowMs)) return Kind.OtherError;
  const rcode = rcodeOf(msg);
  const answers = msg.answers ?? [];
  let soa = false;
  let ns = 0;
  for (const rr of msg.authorities ?? []) {
    const type = rrType(rr);
    if (type === TYPE_SOA) soa = true;
    else if (type === TYPE_NS) ns++;
  }
  if (answers.length > 0 && rcode === RCODE_NOERROR) {
    if (answersQuestion(answers, qname, qtype)) return Kind.NoError;
    // A chain that doesn't reach the type: NODATA when the SOA says so, else not cacheable.
    return soa ? Kind.NoData : Kind.OtherError;
  }
  if (soa && rcode === RCODE_NOERROR) return Kind.NoData;
  if (soa && rcode === RCODE_NXDOMAIN) return answers.length > 0 ? Kind.OtherError : Kind.NameError;
  if (rcode === RCODE_SERVFAIL || rcode === RCODE_NOTIMP) return Kind.ServerError;
  if (ns > 0 && rcode === RCODE_NOERROR) return Kind.Delegation;
  if (rcode === RCODE_NOERROR) return Kind.NoError;
  return Kind.OtherError;
}

/** True for the kinds kept in the denial cache. */
export function isDenial(kind: Kind): boolean {
  return kind === Kind.NameError || kind === Kind.NoData || kind === Kind.ServerError;
}

/**
 * The lowest TTL of the message in seconds (`dnsutil.MinimalTTL`): over every record but OPT,
 * starting from one hour; 5 s for delegations, errors and replies with no records.
 */
export function minimalTtl(msg: Packet, kind: Kind): number {
  if (kind !== Kind.NoError && kind !== Kind.NameError && kind !== Kind.NoData) return minimalDefaultTtlSeconds;
  let min = maximumDefaultTtlSeconds;
  let records = 0;
  for (const section of [msg.answers, msg.authorities, msg.additionals]) {
    for (const rr of section ?? []) {
      if (rrType(rr) === TYPE_OPT) continue;
      records++;
      const ttl = (rr as { ttl?: number }).ttl ?? 0;
      if (ttl < min) min = ttl;
    }
  }
  return records === 0 ? minimalDefaultTtlSeconds : min;
}

/** clamp(x, min, max) = min(max(x, min), max): when MINTTL > TTL, the maximum wins. */
export function clampTtl(ttl: number, minTtl: number, maxTtl: number): number {
  return Math.min(Math.max(ttl, minTtl), maxTtl);
}
