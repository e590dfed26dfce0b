/**
 * What kind of reply a message is, and for how long it may be cached: CoreDNS's
 * `response.Typify` and `dnsutil.MinimalTTL` (CoreDNS's plugin/cache/cache.go and plugin/pkg/response).
 */
import type { Answer, Packet } from 'dns-packet';
import { Rcode, TYPE_ANY, TYPE_CNAME, TYPE_OPT, TYPE_SOA } from '@foghorn/core';
import { packetRcode, ResponseType, typeNumber, typify } from '@foghorn/core/wire';

/** `dnsutil.MinimalDefaultTTL`: the TTL of replies with nothing to take a TTL from. */
export const minimalDefaultTtlSeconds = 5;
/** `dnsutil.MaximumDefaulTTL`: no record keeps a reply longer than this. */
export const maximumDefaultTtlSeconds = 3600;

/** Lower-case, fully qualified: dns-packet leaves the trailing dot out of decoded names. */
export function canonicalName(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith('.') ? lower : lower + '.';
}

/** RR type of a record, as a number. */
function rrType(rr: Answer): number {
  return typeNumber(rr.type);
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

/**
 * Classifies a reply to `qname`/`qtype` for caching: CoreDNS's `Typify`, plus the cache's own
 * refusals — an answer section that does not answer the question (a CNAME chain that never
 * reaches the type) is NODATA when an SOA says so and uncacheable otherwise, and an NXDOMAIN
 * that carries answers is never cached. `dnssecOk` is the request's DO bit.
 */
export function classify(msg: Packet, qname: string, qtype: number, dnssecOk: boolean, nowMs: number): ResponseType {
  const type = typify(msg, Math.floor(nowMs / 1000), dnssecOk);
  const answers = msg.answers ?? [];
  if (answers.length === 0) return type;
  if (type === ResponseType.NoError && packetRcode(msg) === Rcode.NOERROR && !answersQuestion(answers, qname, qtype)) {
    return (msg.authorities ?? []).some((rr) => rrType(rr) === TYPE_SOA) ? ResponseType.NoData : ResponseType.OtherError;
  }
  if (type === ResponseType.NameError) return ResponseType.OtherError;
  return type;
}

/** True for the kinds kept in the denial cache. */
export function isDenial(kind: ResponseType): boolean {
  return kind === ResponseType.NameError || kind === ResponseType.NoData || kind === ResponseType.ServerError;
}

/**
 * The lowest TTL of the message in seconds (`dnsutil.MinimalTTL`): over every record but OPT,
 * starting from one hour; 5 s for delegations, errors and replies with no records.
 */
export function minimalTtl(msg: Packet, kind: ResponseType): number {
  if (kind !== ResponseType.NoError && kind !== ResponseType.NameError && kind !== ResponseType.NoData) return minimalDefaultTtlSeconds;
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
