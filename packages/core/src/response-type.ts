/**
 * What kind of reply a message is: CoreDNS's `response.Typify` and `response.Classify`
 * (plugin/pkg/response), shared by *log* (`class success|denial|error`), *cache* (what to keep
 * and for how long) and anyone else who sorts replies.
 */
import type { Answer, Packet } from 'dns-packet';
import * as classes from 'dns-packet/classes.js';
import * as types from 'dns-packet/types.js';
import { EDNS_FLAG_DO } from './constants.js';

/** CoreDNS's `response.Type`. */
export enum ResponseType {
  /** NOERROR with answers, or with nothing that says otherwise. */
  NoError,
  /** NXDOMAIN with an SOA in authority. */
  NameError,
  /** NOERROR, no answers, SOA in authority. */
  NoData,
  /** NOERROR, no answers, NS in authority. */
  Delegation,
  /** SERVFAIL or NOTIMP. */
  ServerError,
  /** Everything else: REFUSED, FORMERR, NXDOMAIN without SOA, expired signatures, no reply. */
  OtherError,
  /** Zone transfers and NOTIFY. */
  Meta,
  /** Dynamic updates. */
  Update,
}

/** CoreDNS's `Type.String`, by {@link ResponseType}: `NOERROR`, `NXDOMAIN`, `SERVERERROR`, ... */
const typeNames: Readonly<Record<ResponseType, string>> = {
  [ResponseType.NoError]: 'NOERROR',
  [ResponseType.NameError]: 'NXDOMAIN',
  [ResponseType.NoData]: 'NODATA',
  [ResponseType.Delegation]: 'DELEGATION',
  [ResponseType.ServerError]: 'SERVERERROR',
  [ResponseType.OtherError]: 'OTHERERROR',
  [ResponseType.Meta]: 'META',
  [ResponseType.Update]: 'UPDATE',
};

/** A response type as CoreDNS prints it (the *log* plugin's `log/type` metadata). */
export function responseTypeName(type: ResponseType): string {
  return typeNames[type];
}

/** CoreDNS's `response.Class`: what `log`'s `class` option selects. */
export type ResponseClass = 'success' | 'denial' | 'error';

/** Success for NOERROR and DELEGATION, denial for NXDOMAIN and NODATA, error for the rest. */
export function responseClass(type: ResponseType): ResponseClass {
  switch (type) {
    case ResponseType.NoError:
    case ResponseType.Delegation:
      return 'success';
    case ResponseType.NameError:
    case ResponseType.NoData:
      return 'denial';
    default:
      return 'error';
  }
}

const typeNumbers = new Map<string, number>();

/** dns-packet's type name as a number: `A` → 1, `UNKNOWN_65534` or `TYPE65534` → 65534. */
export function typeNumber(name: string | undefined): number {
  if (name === undefined) return 0;
  let n = typeNumbers.get(name);
  if (n === undefined) {
    n = name.startsWith('UNKNOWN_') ? Number(name.slice(8)) : /^TYPE\d+$/.test(name) ? Number(name.slice(4)) : types.toType(name);
    typeNumbers.set(name, n);
  }
  return n;
}

const classNumbers = new Map<string, number>();

/** dns-packet's class name as a number: `IN` → 1, `UNKNOWN_7` or `CLASS7` → 7; no class is IN. */
export function classNumber(name: string | undefined): number {
  if (name === undefined) return 1;
  let n = classNumbers.get(name);
  if (n === undefined) {
    n = name.startsWith('UNKNOWN_') ? Number(name.slice(8)) : /^CLASS\d+$/.test(name) ? Number(name.slice(5)) : classes.toClass(name);
    classNumbers.set(name, n);
  }
  return n;
}

const OPCODE_NOTIFY = 4;
const OPCODE_UPDATE = 5;
const RCODE_NOERROR = 0;
const RCODE_SERVFAIL = 2;
const RCODE_NXDOMAIN = 3;
const RCODE_NOTIMP = 4;
/** RFC 1982 serial arithmetic window of miekg/dns's `RRSIG.ValidityPeriod`. */
const YEAR68 = 2 ** 31;

/**
 * The type of a reply (`response.Typify`); `msg` undefined (nothing written) is OtherError.
 * Signatures are checked against `nowSeconds` when the reply's OPT has DO, or, without an OPT
 * in the reply, when `dnssecOk` (the request's DO bit) is set.
 */
export function typify(msg: Packet | undefined, nowSeconds: number, dnssecOk = false): ResponseType {
  if (msg === undefined) return ResponseType.OtherError;
  const flags = msg.flags ?? 0;
  const opcode = (flags >> 11) & 0xf;
  if (opcode === OPCODE_UPDATE) return ResponseType.Update;
  if (opcode === OPCODE_NOTIFY) return ResponseType.Meta;
  const qtype = msg.questions?.[0]?.type;
  if (qtype === 'AXFR' || qtype === 'IXFR') return ResponseType.Meta;
  const rcode = flags & 0xf;
  const answers = msg.answers ?? [];
  const authorities = msg.authorities ?? [];
  const additionals = msg.additionals ?? [];
  if (
    (replyDnssecOk(additionals) ?? dnssecOk) &&
    (hasExpired(answers, nowSeconds) || hasExpired(authorities, nowSeconds) || hasExpired(additionals, nowSeconds))
  ) {
    return ResponseType.OtherError;
  }
  if (answers.length > 0 && rcode === RCODE_NOERROR) return ResponseType.NoError;
  let soa = false;
  let ns = 0;
  for (const rr of authorities) {
    if (rr.type === 'SOA') soa = true;
    else if (rr.type === 'NS') ns++;
  }
  if (soa && rcode === RCODE_NOERROR) return ResponseType.NoData;
  if (soa && rcode === RCODE_NXDOMAIN) return ResponseType.NameError;
  if (rcode === RCODE_SERVFAIL || rcode === RCODE_NOTIMP) return ResponseType.ServerError;
  if (ns > 0 && rcode === RCODE_NOERROR) return ResponseType.Delegation;
  if (rcode === RCODE_NOERROR) return ResponseType.NoError;
  return ResponseType.OtherError;
}

/** The DO bit of the reply's OPT, or undefined when it has none. */
function replyDnssecOk(additionals: readonly Answer[]): boolean | undefined {
  for (const rr of additionals) {
    if (rr.type === 'OPT') return ((rr.flags ?? 0) & EDNS_FLAG_DO) !== 0 || rr.flag_do === true;
  }
  return undefined;
}

/** RFC 4034 §3.1.5: a signature is valid from inception to expiration. */
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
