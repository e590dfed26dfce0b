/**
 * On-the-fly signing of replies: CoreDNS's `Dnssec.Sign` (`plugin/dnssec/dnssec.go`). Every
 * RRset of a reply whose owner is in one of the zones gets an RRSIG per signing key; a denial
 * gets a signed SOA and an NSEC black lie instead of NXDOMAIN; a referral gets its DS signed, or
 * an NSEC proving there is none.
 *
 * Cost: a signature is a public-key operation (about 20 µs for ECDSA P-256 or Ed25519 on an idle
 * core, 1 ms for RSA-2048), so signatures are cached by the canonical form of the RRset they
 * cover (see cache.ts); a cached answer costs the canonical encoding of its RRsets and a lookup.
 */
import { matchZone } from '@foghorn/core';
import { canonicalRRset, ResponseType, typeNumber, typify } from '@foghorn/core/wire';
import type { Answer, Packet } from 'dns-packet';
import { blackLie, Denial } from './black-lies.js';
import { compact, expand, SignatureCache } from './cache.js';
import type { RrsigData, RrsigFields } from './cache.js';
import type { SigningKey } from './key.js';
import type { ServerCells } from './metrics.js';

/**
 * The Original TTL of every signature: the plugin cannot see the TTL an RRset had before a cache
 * or a forwarder counted it down, so it states 3600 (CoreDNS's `origTTL`); validators use it to
 * rebuild what was signed (RFC 4035 §5.3.2), whatever TTL the record arrives with.
 */
export const ORIGINAL_TTL = 3600;
/** Signatures start 3 hours in the past, for clients whose clocks lag (CoreDNS: "daylight saving time and such"). */
export const INCEPTION_OFFSET_SECONDS = 3 * 3600;
/** And last 8 days. */
export const VALIDITY_SECONDS = 8 * 24 * 3600;

const TYPE_NSEC = 47;
const RCODE_MASK = 0x000f;

/** Which keys sign what (RFC 6781 §3.1). */
export interface KeySet {
  readonly keys: readonly SigningKey[];
  /** KSK and ZSK present: KSKs sign the DNSKEY RRset only, ZSKs everything else. Otherwise every key is a CSK. */
  readonly split: boolean;
}

/** A name as zone matching wants it: lower-case, with the trailing dot. */
function fqdn(name: string): string {
  if (name === '.' || name === '') return '.';
  const lower = name.toLowerCase();
  return lower.endsWith('.') ? lower : `${lower}.`;
}

/** The same name as dns-packet writes it: lower-case, no trailing dot ('.' for the root). */
function packetName(name: string): string {
  const lower = name.toLowerCase();
  return lower === '.' || !lower.endsWith('.') ? lower : lower.slice(0, -1);
}

/** RFC 4034 §3.1.3: labels of the owner, the root and a leading wildcard not counted. */
function labelCount(owner: string): number {
  const name = packetName(owner);
  if (name === '.' || name === '') return 0;
  let count = 1;
  for (let i = 0; i < name.length; i++) if (name.charCodeAt(i) === 0x2e) count++;
  return name.startsWith('*.') || name === '*' ? count - 1 : count;
}

/** The signer's name in wire form, lower-case (RFC 4034 §3.1.7, §6.2). */
function signerWire(signer: string): Buffer {
  if (signer === '.') return Buffer.from([0]);
  const labels = signer.slice(0, -1).split('.');
  const out = Buffer.allocUnsafe(signer.length + 1);
  let at = 0;
  for (const label of labels) {
    out[at] = out.write(label, at + 1, 'latin1');
    at += label.length + 1;
  }
  out[at] = 0;
  return out.subarray(0, at + 1);
}

/** The RRsets of a section in the order they first appear, RRSIG and OPT left out (CoreDNS's `rrSets`). */
function rrsets(records: readonly Answer[]): Answer[][] {
  if (records.length === 0) return [];
  if (records.length === 1) {
    const only = records[0]!;
    return only.type === 'RRSIG' || only.type === 'OPT' ? [] : [[only]];
  }
  const sets = new Map<string, Answer[]>();
  for (const rr of records) {
    if (rr.type === 'RRSIG' || rr.type === 'OPT') continue;
    const key = `${packetName(rr.name)} ${rr.type}`;
    const set = sets.get(key);
    if (set) set.push(rr);
    else sets.set(key, [rr]);
  }
  return [...sets.values()];
}

/**
 * The signature cache's key for `rrs` signed by `signer`: what decides the signed data, TTLs
 * left out (the signature states {@link ORIGINAL_TTL}), the owner in lower case, and each
 * record's rdata as JSON, sorted so the records' order does not matter. One key always means one
 * canonical RRset, so one signature; two spellings of the same data (an IPv6 address written two
 * ways) only cost a second entry. Built from the records as they are, it spares a hit the
 * canonical encoding (RFC 4034 §6), which only a miss needs: about half a hit's cost.
 */
function cacheKey(signer: string, rrs: readonly Answer[]): string {
  const first = rrs[0] as Answer & { class?: string };
  const head = `${signer}\n${first.type}\n${first.class ?? 'IN'}\n${fqdn(first.name)}\n`;
  if (rrs.length === 1) return head + JSON.stringify((first as { data?: unknown }).data);
  const datas = rrs.map((rr) => JSON.stringify((rr as { data?: unknown }).data));
  return head + datas.sort().join('\n');
}

function ttlOf(rr: Answer | undefined): number {
  return (rr as { ttl?: number } | undefined)?.ttl ?? 0;
}

export class Signer {
  constructor(
    /** The zones signed, lower-case with the trailing dot. */
    readonly zones: readonly string[],
    private readonly keySet: KeySet,
    readonly cache: SignatureCache,
  ) {}

  /**
   * `msg` as a DO client gets it (CoreDNS's `Sign`); `qname` and `qtype` are the question, `zone`
   * the signed zone it falls in. Returns a new message; `msg` and its records are left as they
   * are (a data source may hand out its own arrays).
   */
  signReply(msg: Packet, qname: string, qtype: number, zone: string, nowSeconds: number, cells: ServerCells): Packet {
    const answers = msg.answers ?? [];
    const authorities = msg.authorities ?? [];
    const additionals = msg.additionals ?? [];
    const kind = typify(msg, nowSeconds);

    if (kind === ResponseType.Delegation) {
      const cut = authorities[0];
      if (cut === undefined) return msg;
      // We either sign the DS RRset or prove with an NSEC at the cut that there is none.
      const ttl = ttlOf(cut);
      const ds = authorities.filter((rr) => rr.type === 'DS');
      const added = ds.length > 0 ? this.signSet(ds, zone, ttl, nowSeconds, cells) : this.nsec(packetName(cut.name), zone, qtype, Denial.Delegation, ttl, nowSeconds, cells);
      return { ...msg, authorities: [...authorities, ...added] };
    }

    if (kind === ResponseType.NameError || kind === ResponseType.NoData) {
      const soa = authorities[0];
      if (authorities.length !== 1 || soa?.type !== 'SOA') return msg;
      const soaZone = matchZone(this.zones, fqdn(soa.name));
      if (soaZone === undefined) return msg;
      // The name denied is the question's, or the end of the CNAME chain the answer holds.
      const denied = this.chainEnd(qname, answers);
      const deniedZone = matchZone(this.zones, denied);
      const ttl = ttlOf(soa);
      const soaSigs = this.signSet([soa], soaZone, ttl, nowSeconds, cells);
      const nsec = deniedZone === undefined ? [] : this.nsec(packetName(denied), deniedZone, qtype, Denial.Negative, ttl, nowSeconds, cells);
      const signedAnswers = answers.length === 0 ? answers : this.signSections(answers, nowSeconds, cells);
      if (nsec.length === 0) return { ...msg, answers: signedAnswers, authorities: [soa, ...soaSigs] };
      // The black lie turns NXDOMAIN into NODATA.
      const flags = (msg.flags ?? 0) & ~RCODE_MASK;
      if (qtype === TYPE_NSEC) return { ...msg, flags, answers: [...signedAnswers, ...nsec], authorities: [] };
      return { ...msg, flags, answers: signedAnswers, authorities: [soa, ...soaSigs, ...nsec] };
    }

    return {
      ...msg,
      answers: this.signSections(answers, nowSeconds, cells),
      authorities: this.signSections(authorities, nowSeconds, cells),
      additionals: this.signSections(additionals, nowSeconds, cells),
    };
  }

  /** The zone's DNSKEY RRset (owner renamed to the zone), signed when `signed` (CoreDNS's `getDNSKEY`). */
  dnskeys(zone: string, signed: boolean, nowSeconds: number, cells: ServerCells): Answer[] {
    const name = packetName(zone);
    const keys: Answer[] = this.keySet.keys.map((key) => ({ name, type: 'DNSKEY', ttl: key.ttl, class: 'IN', data: { flags: key.dnskey.flags, algorithm: key.dnskey.algorithm, key: key.dnskey.key } }));
    if (!signed) return keys;
    return [...keys, ...this.signSet(keys, zone, ORIGINAL_TTL, nowSeconds, cells)];
  }

  /**
   * Every RRset of a section with its signatures after the records, where the owner is in a
   * zone. An OPT record (a plugin below may write one) stays last, where the scrub expects it.
   */
  private signSections(records: readonly Answer[], nowSeconds: number, cells: ServerCells): Answer[] {
    let out: Answer[] | undefined;
    for (const set of rrsets(records)) {
      const signer = matchZone(this.zones, fqdn(set[0]!.name));
      if (signer === undefined) continue;
      const sigs = this.signSet(set, signer, ttlOf(set[0]), nowSeconds, cells);
      if (sigs.length > 0) (out ??= records.filter((rr) => rr.type !== 'OPT')).push(...sigs);
    }
    if (out === undefined) return records as Answer[];
    for (const rr of records) if (rr.type === 'OPT') out.push(rr);
    return out;
  }

  /** Follows the answer's CNAMEs from `qname`; the name the chain ends at (lower-case, fqdn). */
  private chainEnd(qname: string, answers: readonly Answer[]): string {
    let name = qname;
    for (let step = 0; step < answers.length; step++) {
      const cname = answers.find((rr) => rr.type === 'CNAME' && fqdn(rr.name) === name);
      if (cname === undefined) break;
      name = fqdn((cname as { data: string }).data);
    }
    return name;
  }

  /** The black lie for `owner` and its signatures (CoreDNS's `nsec`). */
  private nsec(owner: string, zone: string, qtype: number, denial: Denial, ttl: number, nowSeconds: number, cells: ServerCells): Answer[] {
    const data = blackLie(owner, zone, qtype, denial);
    const nsec: Answer = { name: owner, type: 'NSEC', ttl, class: 'IN', data: { nextDomain: data.nextDomain, rrtypes: [...data.rrtypes] } };
    const sigs = this.signSet([nsec], zone, ttl, nowSeconds, cells);
    return sigs.length === 0 ? [] : [nsec, ...sigs];
  }

  /**
   * RRSIGs over `rrs` by `signer` (lower-case fqdn), with the RRset's `ttl` (CoreDNS's `sign`):
   * from the cache when fresh there, else made and cached. Empty when a key failed to sign.
   */
  private signSet(rrs: readonly Answer[], signer: string, ttl: number, nowSeconds: number, cells: ServerCells): Answer[] {
    const key = cacheKey(signer, rrs);
    const cached = this.cache.get(key, nowSeconds);
    let sigs: readonly RrsigData[];
    if (cached !== undefined) {
      cells.hits.value++;
      sigs = cached.map(expand);
    } else {
      cells.misses.value++;
      sigs = this.makeSignatures(rrs, signer, canonicalRRset(rrs, ORIGINAL_TTL), nowSeconds);
      if (sigs.length > 0) this.cache.set(key, compact(sigs));
    }
    const name = rrs[0]!.name;
    const out: Answer[] = new Array<Answer>(sigs.length);
    for (let i = 0; i < sigs.length; i++) out[i] = { name, type: 'RRSIG', ttl, class: 'IN', data: sigs[i]! };
    return out;
  }

  private makeSignatures(rrs: readonly Answer[], signer: string, data: Buffer, nowSeconds: number): RrsigData[] {
    const isDnskey = rrs[0]!.type === 'DNSKEY';
    const keys = this.keySet.split ? this.keySet.keys.filter((key) => (isDnskey ? key.isKsk : key.isZsk)) : this.keySet.keys;
    try {
      return signRRset(keys, rrs, signer, nowSeconds - INCEPTION_OFFSET_SECONDS, nowSeconds + VALIDITY_SECONDS, data);
    } catch {
      // CoreDNS returns the reply unsigned when a key fails, and caches nothing: so do we.
      return [];
    }
  }
}

/**
 * What an RRSIG's signature is made over (RFC 4034 §3.1.8.1): its rdata without the signature,
 * the signer's name in lower case, then the RRset in canonical form (`data`, when the caller has
 * it already). A validator rebuilds the same bytes to verify.
 */
export function signedData(fields: RrsigFields, rrs: readonly Answer[], data = canonicalRRset(rrs, fields.originalTTL)): Buffer {
  const signerName = signerWire(fqdn(fields.signersName));
  const head = Buffer.allocUnsafe(18 + signerName.length);
  head.writeUInt16BE(typeNumber(fields.typeCovered), 0);
  head[2] = fields.algorithm;
  head[3] = fields.labels;
  head.writeUInt32BE(fields.originalTTL, 4);
  head.writeUInt32BE(fields.expiration, 8);
  head.writeUInt32BE(fields.inception, 12);
  head.writeUInt16BE(fields.keyTag, 16);
  signerName.copy(head, 18);
  return Buffer.concat([head, data]);
}

/**
 * The RRSIG rdata of each key over `rrs`, with {@link ORIGINAL_TTL}. `signer` is lower-case and
 * fully qualified; times are seconds since the epoch. `data` is the canonical RRset when the
 * caller has it already. Throws when a key fails to sign.
 */
export function signRRset(keys: readonly SigningKey[], rrs: readonly Answer[], signer: string, inception: number, expiration: number, data = canonicalRRset(rrs, ORIGINAL_TTL)): RrsigData[] {
  const sigs: RrsigData[] = [];
  for (const key of keys) {
    const fields: RrsigFields = {
      typeCovered: rrs[0]!.type,
      algorithm: key.algorithm,
      labels: labelCount(rrs[0]!.name),
      originalTTL: ORIGINAL_TTL,
      expiration: expiration >>> 0,
      inception: inception >>> 0,
      keyTag: key.tag,
      signersName: packetName(signer),
    };
    sigs.push({ ...fields, signature: key.sign(signedData(fields, rrs, data)) });
  }
  return sigs;
}
