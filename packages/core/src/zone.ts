/**
 * One loaded zone and its lookup, after CoreDNS's `plugin/file/zone.go` and `lookup.go`: walk the
 * name from the apex down looking for zone cuts and DNAMEs, then answer the name, a wildcard
 * (RFC 4592), a CNAME chased inside the zone, NODATA or NXDOMAIN. `sign` adds what a DO query
 * gets from a signed zone; {@link serveZone} turns a lookup into the reply. The zone plugins
 * (*file*, *auto*, *secondary*) share all of it, as CoreDNS's *auto* and *secondary* embed *file*.
 *
 * The records are indexed by owner name and type once at load; a lookup is a few map reads per
 * label of the query name and allocates only the arrays it returns. The data of one load never
 * changes: a reload or a transfer builds a new ZoneData and swaps it in whole.
 */
import type { Answer } from 'dns-packet';
import { Flags } from './constants.js';
import { isSubdomain } from './keys.js';
import { nextOrFailure } from './plugin.js';
import type { Handler, HandlerResult } from './plugin.js';
import { Rcode } from './rcode.js';
import type { Request } from './request.js';
import { replyTo } from './response.js';
import type { ResponseWriter } from './response.js';
import { typeNumber } from './response-type.js';
import { parseZoneFile } from './zonefile.js';

/** What a lookup found (CoreDNS's `Result`). */
export enum LookupResult {
  Success,
  NameError,
  Delegation,
  NoData,
  ServerFailure,
}

/** The three sections of an answer and what they mean. */
export interface ZoneLookup {
  readonly answer: Answer[];
  readonly ns: Answer[];
  readonly extra: Answer[];
  readonly result: LookupResult;
  /**
   * For DNSSEC (`sign`): the name whose NSEC proves NODATA, or `cover` to prove with the NSEC
   * covering the query name (wildcard answers, NXDOMAIN); `wildcard` adds the wildcard's denial.
   */
  readonly proof?: { readonly at?: string; readonly cover?: boolean; readonly wildcard?: boolean };
  /** The wildcard the answer was synthesised from (`*.example.org.`), for the `zone/wildcard` metadata. */
  readonly wildcard?: string;
}

/** CoreDNS gives up chasing CNAMEs after this many steps (`lookup.go`, the loop key). */
const MAX_CHASE = 8;

type Node = Map<number, Answer[]>;

/** Type numbers the lookup asks for by name. */
const T = { A: 1, NS: 2, CNAME: 5, SOA: 6, MX: 15, AAAA: 28, SRV: 33, DNAME: 39, DS: 43, RRSIG: 46, NSEC: 47 } as const;

/** An answer's rdata; dns-packet's union includes OPT, which a zone never holds. */
function rdata<T = string>(rr: Answer): T {
  return (rr as unknown as { data: T }).data;
}

/** Absolute, lower-case, trailing-dot form of a dns-packet name. */
function fqdn(name: string): string {
  return name === '.' ? '.' : name.toLowerCase() + '.';
}

/** The name without its first label, honouring `\.` escapes; '.' for a single label. */
function parentOf(name: string): string {
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c === 0x5c) i += /\d/.test(name[i + 1] ?? '') ? 3 : 1;
    else if (c === 0x2e) return i + 1 >= name.length ? '.' : name.slice(i + 1);
  }
  return '.';
}

/** Names whose target the additional section resolves (CoreDNS's `additionalProcessing`). */
function targetOf(rr: Answer): string | undefined {
  if (rr.type === 'MX') return fqdn(rr.data.exchange);
  if (rr.type === 'SRV') return fqdn(rr.data.target);
  return undefined;
}

export class ZoneData {
  readonly soa: Answer & { type: 'SOA' };
  /** The apex NS RRset: the authority section of positive answers. */
  readonly ns: Answer[];
  private readonly nodes = new Map<string, Node>();
  /** Every name that has a name strictly below it (empty non-terminals included). */
  private readonly parents = new Set<string>();
  /** The records in file order, for transfers. */
  private readonly records: Answer[];
  private hasSignatures = false;
  /** Owners of NSEC records in canonical order, built on the first DO query that needs them. */
  private nsecOwners: { owner: string; key: string }[] | undefined;

  private constructor(
    readonly origin: string,
    records: Answer[],
    file: string,
  ) {
    this.records = records;
    let soa: (Answer & { type: 'SOA' }) | undefined;
    for (const rr of records) {
      const owner = fqdn(rr.name);
      if (rr.type === 'SOA') {
        // CoreDNS keeps the last SOA of the file (`Zone.Insert`); only the apex one counts.
        if (owner === origin) soa = rr;
        continue;
      }
      let node = this.nodes.get(owner);
      if (!node) {
        node = new Map();
        this.nodes.set(owner, node);
        for (let name = owner; name !== '.' && name !== origin; ) {
          name = parentOf(name);
          if (this.parents.has(name)) break;
          this.parents.add(name);
        }
      }
      const type = typeNumber(rr.type);
      if (type === T.RRSIG) this.hasSignatures = true;
      const set = node.get(type);
      if (set) set.push(rr);
      else node.set(type, [rr]);
    }
    if (!soa) throw new Error(`file "${file}" has no SOA record for origin ${origin}`);
    this.soa = soa;
    this.ns = this.nodes.get(origin)?.get(T.NS) ?? [];
  }

  /** Parses `text` as the zone `origin` read from `file`; throws with `file:line` on bad input. */
  static parse(text: string, origin: string, file: string): ZoneData {
    return new ZoneData(origin, parseZoneFile(text, { origin, file }), file);
  }

  /**
   * The zone `origin` from records received otherwise (a zone transfer): names as dns-packet
   * gives them, any case. `source` names where they came from in the error for a missing SOA.
   */
  static fromRecords(records: Answer[], origin: string, source: string): ZoneData {
    return new ZoneData(origin, records, source);
  }

  get serial(): number {
    return this.soa.data.serial ?? 0;
  }

  /** Number of records, the SOA included. */
  get size(): number {
    return this.records.length;
  }

  /**
   * Answers `qname` (lower-case, inside the zone) for `qtype` (dns-packet's type name).
   * Out-of-zone CNAME targets are left to the client: the CNAME is the whole answer.
   */
  lookup(qname: string, qtype: number, depth = 0): ZoneLookup {
    // A ninth pass through here is a CNAME/DNAME loop: give up, as CoreDNS does.
    if (depth > MAX_CHASE) return { answer: [], ns: [], extra: [], result: LookupResult.ServerFailure };
    if (qname === this.origin) {
      if (qtype === T.SOA) return { answer: [this.soa], ns: this.ns, extra: [], result: LookupResult.Success };
      if (qtype === T.NS) return { answer: this.ns, ns: [], extra: this.glue(this.ns), result: LookupResult.Success };
    }
    // The names from just below the apex down to qname.
    const path: string[] = [];
    for (let name = qname; name !== this.origin && name !== '.'; name = parentOf(name)) path.push(name);

    let node = this.nodes.get(this.origin);
    let found = true;
    let wildName = '';
    let wildNode: Node | undefined;
    for (let i = path.length - 1; i >= 0; i--) {
      const part = path[i]!;
      const here = this.nodes.get(part);
      if (!here) {
        // Not stored: an empty non-terminal or nothing. Remember the closest wildcard seen.
        found = false;
        const wildcard = '*.' + parentOf(part);
        const wild = this.nodes.get(wildcard);
        if (wild || this.parents.has(wildcard)) {
          wildName = wildcard;
          wildNode = wild;
        }
        continue;
      }
      found = true;
      node = here;
      const dname = here.get(T.DNAME)?.[0];
      if (dname && part !== qname) return this.substitute(dname, qname, qtype, depth);
      const referral = this.referral(here, part, qname, qtype);
      if (referral) return referral;
    }

    if (found && node) {
      const cname = node.get(T.CNAME);
      if (cname && qtype !== T.CNAME) return this.chase(cname, qtype, depth);
      const rrs = node.get(qtype);
      if (!rrs) return { answer: [], ns: [this.soa], extra: [], result: LookupResult.NoData, proof: { at: qname } };
      return { answer: rrs, ns: this.ns, extra: this.additional(rrs), result: LookupResult.Success };
    }

    if (wildName !== '' && !this.closerEnclosure(qname, wildName)) {
      if (!wildNode) return { answer: [], ns: [this.soa], extra: [], result: LookupResult.NoData };
      const cname = wildNode.get(T.CNAME);
      if (cname && qtype !== T.CNAME) return { ...this.chase(synthesize(cname, qname, wildName), qtype, depth), wildcard: wildName };
      const rrs = wildNode.get(qtype);
      if (!rrs) return { answer: [], ns: [this.soa], extra: [], result: LookupResult.NoData, proof: { at: wildName }, wildcard: wildName };
      const answer = synthesize(rrs, qname, wildName);
      // RFC 4035 §3.1.3.3: the NSEC that shows the query name itself does not exist.
      return { answer, ns: this.ns, extra: this.additional(answer), result: LookupResult.Success, proof: { cover: true }, wildcard: wildName };
    }

    // An empty non-terminal has no records but exists: NOERROR, not NXDOMAIN (RFC 8020). Like
    // CoreDNS this is a Success without answers, so `fallthrough` still passes it on.
    const result = this.parents.has(qname) ? LookupResult.Success : LookupResult.NameError;
    return { answer: [], ns: [this.soa], extra: [], result, proof: { cover: true, wildcard: result === LookupResult.NameError } };
  }

  /** A referral when `node` is a zone cut above qname, or qname itself unless DS is asked. */
  private referral(node: Node, name: string, qname: string, qtype: number): ZoneLookup | undefined {
    const ns = node.get(T.NS);
    if (!ns || (qtype === T.DS && name === qname)) return undefined;
    return { answer: [], ns, extra: this.glue(ns), result: LookupResult.Delegation };
  }

  /** RFC 6672 §2.2: the DNAME and the CNAME it synthesises, then the new name's answer. */
  private substitute(dname: Answer, qname: string, qtype: number, depth: number): ZoneLookup {
    const owner = fqdn(dname.name);
    const target = fqdn(rdata(dname));
    const name = qname.slice(0, qname.length - owner.length) + (target === '.' ? '' : target);
    // A substitution that does not change the name can only loop.
    if (name === qname) return { answer: [], ns: [], extra: [], result: LookupResult.ServerFailure };
    const cname: Answer = { name: qname.slice(0, -1), type: 'CNAME', class: 'IN', ttl: (dname as { ttl?: number }).ttl ?? 0, data: name === '.' ? '.' : name.slice(0, -1) };
    if (qtype === T.CNAME) return { answer: [dname, cname], ns: this.ns, extra: [], result: LookupResult.Success };
    const rest = this.chase([cname], qtype, depth);
    return { ...rest, answer: [dname, ...rest.answer] };
  }

  /**
   * Follows a CNAME chain (CoreDNS's `externalLookup`). CoreDNS asks its upstream for a target
   * it does not hold; here a target inside the zone is looked up in the zone itself (what that
   * upstream, this server, would answer) and one outside is left to the client.
   */
  private chase(cname: Answer[], qtype: number, depth: number): ZoneLookup {
    const answer = [...cname];
    let target = fqdn(rdata(cname[0]!));
    for (let step = 0; ; step++) {
      if (!isSubdomain(target, this.origin) || step > MAX_CHASE) break;
      const node = this.nodes.get(target);
      const cut = this.cutAbove(target, qtype);
      if (cut) return { answer, ns: cut.ns, extra: cut.extra, result: LookupResult.Delegation };
      if (!node || qtype === T.NS || (qtype === T.SOA && target === this.origin)) {
        const rest = this.lookup(target, qtype, depth + 1);
        answer.push(...rest.answer);
        const negative = rest.result === LookupResult.NameError || rest.result === LookupResult.NoData;
        return { answer, ns: negative ? [this.soa] : this.ns, extra: this.additional(answer), result: rest.result };
      }
      const next = node.get(T.CNAME);
      if (next) {
        answer.push(...next);
        target = fqdn(rdata(next[0]!));
        continue;
      }
      const rrs = node.get(qtype);
      if (rrs) answer.push(...rrs);
      break;
    }
    return { answer, ns: this.ns, extra: this.additional(answer), result: LookupResult.Success };
  }

  /** The first zone cut between the apex and `name` (CoreDNS's `findDelegation`). */
  private cutAbove(name: string, qtype: number): ZoneLookup | undefined {
    const path: string[] = [];
    for (let n = name; n !== this.origin && n !== '.'; n = parentOf(n)) path.push(n);
    for (let i = path.length - 1; i >= 0; i--) {
      const node = this.nodes.get(path[i]!);
      if (!node) continue;
      const referral = this.referral(node, path[i]!, name, qtype);
      if (referral) return referral;
    }
    return undefined;
  }

  /** Addresses of NS targets the zone holds (CoreDNS's `tree.Glue`). */
  private glue(ns: readonly Answer[]): Answer[] {
    const extra: Answer[] = [];
    for (const rr of ns) {
      const node = this.nodes.get(fqdn(rdata(rr)));
      if (!node) continue;
      const a = node.get(T.A);
      const aaaa = node.get(T.AAAA);
      if (a) extra.push(...a);
      if (aaaa) extra.push(...aaaa);
    }
    return extra;
  }

  /** A/AAAA of in-zone MX and SRV targets, each target once. */
  private additional(answer: readonly Answer[]): Answer[] {
    let extra: Answer[] | undefined;
    let seen: Set<string> | undefined;
    for (const rr of answer) {
      const target = targetOf(rr);
      if (target === undefined || !isSubdomain(target, this.origin)) continue;
      if (seen?.has(target)) continue;
      (seen ??= new Set()).add(target);
      const node = this.nodes.get(target);
      if (!node) continue;
      const a = node.get(T.A);
      const aaaa = node.get(T.AAAA);
      if (a) (extra ??= []).push(...a);
      if (aaaa) (extra ??= []).push(...aaaa);
    }
    return extra ?? [];
  }

  /**
   * RFC 4592 §3.3.1: an empty non-terminal between the wildcard's parent and qname is a closer
   * encloser, and the wildcard does not apply (CoreDNS's `closerENTExists`).
   */
  private closerEnclosure(qname: string, wildName: string): boolean {
    const parent = wildName.slice(2);
    for (let name = parentOf(qname); name !== parent && isSubdomain(name, parent); name = parentOf(name)) {
      if (this.parents.has(name)) return true;
    }
    return false;
  }

  /** The zone holds signatures: DO queries get them (CoreDNS serves signed zones as stored). */
  get signed(): boolean {
    return this.hasSignatures;
  }

  /**
   * Adds what a DO query gets from a signed zone (RFC 4035 §3.1, as CoreDNS's lookup does): the
   * RRSIGs of every RRset in the three sections, and the NSEC records (with theirs) that prove
   * NODATA, NXDOMAIN or a wildcard answer. Signatures are not made here, only served.
   */
  sign(found: ZoneLookup, qname: string): ZoneLookup {
    const ns = [...found.ns];
    const proof = found.proof;
    if (proof?.at !== undefined) ns.push(...(this.nodes.get(proof.at)?.get(T.NSEC) ?? []));
    if (proof?.cover) {
      const deny = this.previous(qname);
      if (deny !== undefined) ns.push(...this.nodes.get(deny)!.get(T.NSEC)!);
      if (proof.wildcard) {
        // RFC 4035 §3.1.3.2: and the NSEC showing no wildcard at the closest encloser.
        const denial = this.previous('*.' + this.closestEncloser(qname));
        if (denial !== undefined && denial !== deny) ns.push(...this.nodes.get(denial)!.get(T.NSEC)!);
      }
    }
    if (found.result === LookupResult.Delegation) {
      // A signed referral carries the child's DS (RFC 4035 §3.1.4).
      const cut = found.ns[0] === undefined ? undefined : this.nodes.get(fqdn(found.ns[0].name));
      ns.push(...(cut?.get(T.DS) ?? []));
    }
    return { ...found, answer: this.withSignatures(found.answer), ns: this.withSignatures(ns), extra: this.withSignatures(found.extra) };
  }

  /** `rrs` with each RRset followed by the RRSIGs that cover it at its owner. */
  private withSignatures(rrs: readonly Answer[]): Answer[] {
    const out: Answer[] = [];
    for (let i = 0; i < rrs.length; i++) {
      const rr = rrs[i]!;
      out.push(rr);
      const next = rrs[i + 1];
      if (next !== undefined && next.name === rr.name && next.type === rr.type) continue;
      const wildcard = synthesizedFrom.get(rr);
      const node = this.nodes.get(wildcard ?? fqdn(rr.name));
      const type = typeNumber(rr.type);
      for (const sig of node?.get(T.RRSIG) ?? []) {
        if (typeNumber(rdata<{ typeCovered: string }>(sig).typeCovered) !== type) continue;
        out.push(wildcard === undefined ? sig : { ...sig, name: rr.name });
      }
    }
    return out;
  }

  /** The owner of the NSEC that covers `name`: the closest name before it in canonical order. */
  private previous(name: string): string | undefined {
    this.nsecOwners ??= [...this.nodes.entries()]
      .filter(([, node]) => node.has(T.NSEC))
      .map(([owner]) => ({ owner, key: canonicalKey(owner) }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const key = canonicalKey(name);
    let low = 0;
    let high = this.nsecOwners.length - 1;
    let best: string | undefined;
    while (low <= high) {
      const mid = (low + high) >> 1;
      const entry = this.nsecOwners[mid]!;
      if (entry.key < key) {
        best = entry.owner;
        low = mid + 1;
      } else high = mid - 1;
    }
    return best;
  }

  /** The longest existing ancestor of `qname`, the apex at worst (CoreDNS's `ClosestEncloser`). */
  private closestEncloser(qname: string): string {
    for (let name = parentOf(qname); name !== this.origin && name !== '.'; name = parentOf(name)) {
      if (this.nodes.has(name)) return name;
    }
    return this.origin;
  }

  /**
   * The zone for AXFR in batches: SOA and apex NS first, then every other record in file order,
   * then the SOA again (RFC 5936 §2.2). With the zone's own serial, IXFR gets only the SOA.
   */
  *transfer(serial: number): Generator<readonly Answer[]> {
    if (serial !== 0 && serial === this.serial) {
      yield [this.soa];
      return;
    }
    yield [this.soa, ...this.ns];
    const batch: Answer[] = [];
    for (const rr of this.records) {
      if (rr.type === 'SOA' || (rr.type === 'NS' && fqdn(rr.name) === this.origin)) continue;
      batch.push(rr);
      if (batch.length === 500) yield batch.splice(0);
    }
    if (batch.length > 0) yield batch;
    yield [this.soa];
  }
}

/** The wildcard each synthesised record came from, so `sign` finds its signatures. */
const synthesizedFrom = new WeakMap<Answer, string>();

/** Wildcard records answered under the query name (RFC 4592 §3.3.1). */
function synthesize(rrs: readonly Answer[], qname: string, wildcard: string): Answer[] {
  const name = qname.slice(0, -1);
  return rrs.map((rr) => {
    const copy = { ...rr, name };
    synthesizedFrom.set(copy, wildcard);
    return copy;
  });
}

/** A name's labels from the right, joined so string order is RFC 4034 §6.1 canonical order. */
function canonicalKey(name: string): string {
  return name === '.' ? '' : name.slice(0, -1).split('.').reverse().join('\x00');
}

/** RFC 1982 §3.2: serial arithmetic on 32 bits, where a serial is newer up to 2^31 - 1 ahead. */
const MAX_SERIAL_INCREMENT = 0x7fffffff;

/**
 * Whether `serial` is newer than `than` in RFC 1982 serial arithmetic (CoreDNS's `less(than,
 * serial)`): 2 is newer than 1, and 1 is newer than 4000000000, because serials wrap.
 */
export function serialNewer(serial: number, than: number): boolean {
  if (than < serial) return serial - than <= MAX_SERIAL_INCREMENT;
  return than - serial > MAX_SERIAL_INCREMENT;
}

/** What {@link serveZone} needs besides the zone: who the reply is from and what follows it. */
export interface ZoneServing {
  /** The handler's name, for `nextOrFailure`. */
  readonly name: string;
  readonly next: Handler | null;
  /** `fallthrough` zones: an empty answer for a name under one goes to `next`. Empty when off. */
  readonly fallthrough: readonly string[];
}

/**
 * Answers `req` from `data` the way CoreDNS's `File.ServeDNS` does once it has the zone:
 * authoritative, NXDOMAIN for a name error, a referral without AA, SERVFAIL for a lookup that
 * failed, and `fallthrough` for empty answers under its zones. Transfers and NOTIFY are the
 * caller's to handle first.
 */
export function serveZone(req: Request, w: ResponseWriter, data: ZoneData, serving: ZoneServing): HandlerResult {
  let found = data.lookup(req.qname, req.qtype);
  // CoreDNS's `zone/wildcard` metadata: the wildcard that synthesised the answer.
  if (found.wildcard !== undefined) req.metadata?.set('zone/wildcard', found.wildcard);
  // A DO query gets the zone's signatures, and a referral the child's DS even from an unsigned
  // zone (CoreDNS's lookup adds it for `do`): *dnssec* above signs it.
  if (req.dnssecOk && (data.signed || found.result === LookupResult.Delegation)) found = data.sign(found, req.qname);
  if (found.answer.length === 0 && (found.result === LookupResult.NameError || found.result === LookupResult.Success) && fallsThrough(serving.fallthrough, req.qname)) {
    return nextOrFailure(serving.name, serving.next, req, w);
  }
  const msg = replyTo(req);
  msg.flags |= Flags.AA;
  msg.answers = found.answer;
  msg.authorities = found.ns;
  msg.additionals = found.extra;
  switch (found.result) {
    case LookupResult.NameError:
      msg.flags |= Rcode.NXDOMAIN;
      break;
    case LookupResult.Delegation:
      // A referral is not authoritative; a partial answer with an in-zone alias keeps AA.
      if (found.answer.length === 0) msg.flags &= ~Flags.AA;
      break;
    case LookupResult.ServerFailure:
      if (found.answer.length === 0) return Rcode.SERVFAIL;
      msg.flags |= Rcode.SERVFAIL;
      break;
  }
  w.write(msg);
  return Rcode.NOERROR;
}

function fallsThrough(zones: readonly string[], qname: string): boolean {
  for (const zone of zones) if (isSubdomain(qname, zone)) return true;
  return false;
}
