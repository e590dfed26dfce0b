/**
 * Response classes for `class success|denial|error`: CoreDNS's `response.Typify` and
 * `response.Classify` (plugin/pkg/response), on dns-packet messages.
 */
import type { Answer, Packet } from 'dns-packet';

/** A class a rule can select. `all` selects every response. */
export type LogClass = 'all' | 'success' | 'denial' | 'error';

/** Classes as bits, so the per-query check is one AND. */
export const ClassBit = { success: 1, denial: 2, error: 4, all: 7 } as const satisfies Record<LogClass, number>;

/** CoreDNS's response types (the `log/type` metadata values). */
export type ResponseType = 'NOERROR' | 'NXDOMAIN' | 'SERVERERROR' | 'NODATA' | 'DELEGATION' | 'META' | 'UPDATE' | 'OTHERERROR';

const OPCODE_NOTIFY = 4;
const OPCODE_UPDATE = 5;
const RCODE_NOERROR = 0;
const RCODE_SERVFAIL = 2;
const RCODE_NXDOMAIN = 3;
const RCODE_NOTIMP = 4;
/** RFC 1982 serial arithmetic window of miekg/dns's `RRSIG.ValidityPeriod`. */
const YEAR68 = 2 ** 31;

/**
 * The type of a reply; `msg` undefined (nothing written) is OTHERERROR. `nowSeconds` is the Unix
 * time RRSIG validity is checked against when DO is set.
 */
export function typify(msg: Packet | undefined, nowSeconds: number): ResponseType {
  if (msg === undefined) return 'OTHERERROR';
  const flags = msg.flags ?? 0;
  const opcode = (flags >> 11) & 0xf;
  if (opcode === OPCODE_UPDATE) return 'UPDATE';
  if (opcode === OPCODE_NOTIFY) return 'META';
  const qtype = msg.questions?.[0]?.type;
  if (qtype === 'AXFR' || qtype === 'IXFR') return 'META';
  const rcode = flags & 0xf;
  const answers = msg.answers ?? [];
  const authorities = msg.authorities ?? [];
  const additionals = msg.additionals ?? [];
  if (dnssecOk(additionals) && (hasExpired(answers, nowSeconds) || hasExpired(authorities, nowSeconds) || hasExpired(additionals, nowSeconds))) {
    return 'OTHERERROR';
  }
  if (answers.length > 0 && rcode === RCODE_NOERROR) return 'NOERROR';
  let soa = false;
  let ns = 0;
  for (const rr of authorities) {
    if (rr.type === 'SOA') soa = true;
    else if (rr.type === 'NS') ns++;
  }
  if (soa && rcode === RCODE_NOERROR) return 'NODATA';
  if (soa && rcode === RCODE_NXDOMAIN) return 'NXDOMAIN';
  if (rcode === RCODE_SERVFAIL || rcode === RCODE_NOTIMP) return 'SERVERERROR';
  if (ns > 0 && rcode === RCODE_NOERROR) return 'DELEGATION';
  if (rcode === RCODE_NOERROR) return 'NOERROR';
  return 'OTHERERROR';
}

/** Success for NOERROR and DELEGATION, denial for NXDOMAIN and NODATA, error for the rest. */
export function classify(type: ResponseType): Exclude<LogClass, 'all'> {
  switch (type) {
    case 'NOERROR':
    case 'DELEGATION':
      return 'success';
    case 'NXDOMAIN':
    case 'NODATA':
      return 'denial';
    default:
      return 'error';
  }
}

function dnssecOk(additionals: readonly Answer[]): boolean {
  for (const rr of additionals) {
    if (rr.type === 'OPT') return ((rr.flags ?? 0) & 0x8000) !== 0 || rr.flag_do === true;
  }
  return false;
}

function hasExpired(records: readonly Answer[], now: number): boolean {
  for (const rr of records) {
    if (rr.type !== 'RRSIG') continue;
    const { inception, expiration } = rr.data;
    // miekg/dns compares in serial-number space so that signatures straddling 2106 still work.
    const ti = inception + Math.trunc((inception - now) / YEAR68) * YEAR68;
    const te = expiration + Math.trunc((expiration - now) / YEAR68) * YEAR68;
    if (!(ti <= now && now <= te)) return true;
  }
  return false;
}
