/**
 * CoreDNS's test vocabulary (plugin/test/helpers.go), so answer tests are data tables: records
 * written as zone-file lines with {@link rr}, a {@link Case} per question, and
 * {@link checkResponse} comparing each section sorted, as `test.SortAndCheck` does.
 *
 * @example
 * const cases: Case[] = [
 *   { qname: 'a.example.', qtype: 'A', answer: ['a.example. 5 IN A 192.0.2.1'] },
 *   { qname: 'nx.example.', qtype: 'A', rcode: 'NXDOMAIN', ns: ['example. 5 IN SOA ns. host. 1 7200 1800 86400 5'] },
 * ];
 * await checkCases({ port: server.port() }, cases);
 */
import assert from 'node:assert/strict';
import type { Answer, OptAnswer, Packet, RecordClass, RecordType } from 'dns-packet';
import { formatRR } from '@foghorn/core';
import { query } from './index.js';
import type { Reply, Target } from './index.js';

/** A resource record as dns-packet has it, OPT aside (OPT is EDNS's header, not a record). */
export type ResourceRecord = Exclude<Answer, OptAnswer>;

/** Record classes a zone-file line may name between TTL and type. */
const classes = new Set(['IN', 'CH', 'HS', 'CS', 'ANY']);

/** Splits a zone-file line into fields; `"quoted strings"` stay one field, quotes removed. */
function fields(line: string): { text: string; quoted: boolean }[] {
  const out: { text: string; quoted: boolean }[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|(\S+)/g;
  for (let m = re.exec(line); m !== null; m = re.exec(line)) {
    out.push(m[1] !== undefined ? { text: m[1].replace(/\\(.)/g, '$1'), quoted: true } : { text: m[2]!, quoted: false });
  }
  return out;
}

function int(text: string | undefined, line: string): number {
  if (text === undefined || !/^\d+$/.test(text)) throw new Error(`rr: expected a number, got ${String(text)} in '${line}'`);
  return Number(text);
}

/**
 * Parses one zone-file line, `OWNER [TTL] [CLASS] TYPE RDATA...`, into a dns-packet record (what
 * a test plugin writes or an upstream answers). TTL defaults to 3600 and class to IN, as in
 * miekg/dns. Types: A, AAAA, CNAME, NS, PTR, DNAME, MX, SRV, TXT, SOA, CAA, DS.
 *
 * @example rr('a.example. 5 IN A 192.0.2.1') // { name: 'a.example.', ttl: 5, class: 'IN', type: 'A', data: '192.0.2.1' }
 */
export function rr(line: string): ResourceRecord {
  const f = fields(line.trim());
  const name = f[0]?.text;
  if (name === undefined) throw new Error('rr: empty line');
  let i = 1;
  let ttl = 3600;
  if (f[i] !== undefined && /^\d+$/.test(f[i]!.text)) ttl = Number(f[i++]!.text);
  let klass = 'IN';
  if (f[i] !== undefined && classes.has(f[i]!.text.toUpperCase())) klass = f[i++]!.text.toUpperCase();
  const type = f[i++]?.text.toUpperCase();
  if (type === undefined) throw new Error(`rr: no type in '${line}'`);
  const rdata = f.slice(i).map((field) => field.text);
  const head = { name, ttl, class: klass as RecordClass };
  const need = (count: number): void => {
    if (rdata.length !== count) throw new Error(`rr: ${type} takes ${count} rdata fields, got ${rdata.length} in '${line}'`);
  };
  switch (type) {
    case 'A':
    case 'AAAA':
    case 'CNAME':
    case 'NS':
    case 'PTR':
    case 'DNAME':
      need(1);
      return { ...head, type, data: rdata[0]! } as ResourceRecord;
    case 'MX':
      need(2);
      return { ...head, type, data: { preference: int(rdata[0], line), exchange: rdata[1]! } };
    case 'SRV':
      need(4);
      return { ...head, type, data: { priority: int(rdata[0], line), weight: int(rdata[1], line), port: int(rdata[2], line), target: rdata[3]! } };
    case 'TXT':
      if (rdata.length === 0) throw new Error(`rr: TXT needs at least one string in '${line}'`);
      return { ...head, type, data: rdata };
    case 'SOA':
      need(7);
      return {
        ...head,
        type,
        data: {
          mname: rdata[0]!,
          rname: rdata[1]!,
          serial: int(rdata[2], line),
          refresh: int(rdata[3], line),
          retry: int(rdata[4], line),
          expire: int(rdata[5], line),
          minimum: int(rdata[6], line),
        },
      };
    case 'CAA':
      need(3);
      return { ...head, type, data: { flags: int(rdata[0], line), tag: rdata[1]! as 'issue', value: rdata[2]! } };
    case 'DS':
      need(4);
      return { ...head, type, data: { keyTag: int(rdata[0], line), algorithm: int(rdata[1], line), digestType: int(rdata[2], line), digest: Buffer.from(rdata[3]!, 'hex') } };
    default:
      throw new Error(`rr: type ${type} is not supported in '${line}'`);
  }
}

/**
 * One record as a zone-file line with single spaces, `a.example. 5 IN A 192.0.2.1`: the form
 * {@link checkResponse} compares, so a failure shows both sections as text (core's `formatRR`).
 */
export function formatRr(record: Answer | string): string {
  return formatRR(typeof record === 'string' ? rr(record) : record);
}

/** A section as sorted lines; OPT is left out (it is the EDNS header, not a record). */
export function sortedSection(records: readonly (Answer | string)[] | undefined): string[] {
  return (records ?? [])
    .filter((record) => typeof record === 'string' || record.type !== 'OPT')
    .map(formatRr)
    .sort();
}

/**
 * One question and the reply it must get: CoreDNS's `test.Case`. A section left out must be
 * empty; records are zone-file lines (or {@link rr} results) compared sorted, TTLs included.
 */
export interface Case {
  readonly qname: string;
  readonly qtype: RecordType;
  /** Expected rcode name; NOERROR by default. */
  readonly rcode?: string;
  /** Send the query with the DO bit (and OPT). */
  readonly do?: boolean;
  readonly answer?: readonly (string | Answer)[];
  readonly ns?: readonly (string | Answer)[];
  /** The additional section without OPT. */
  readonly extra?: readonly (string | Answer)[];
  /** Header bits that must be set (true) or clear (false); the others are not checked. */
  readonly flags?: { readonly aa?: boolean; readonly tc?: boolean; readonly ra?: boolean; readonly ad?: boolean };
}

/** Asserts that `reply` is what `c` expects: rcode, the named flags, and every section sorted. */
export function checkResponse(reply: Packet, c: Case): void {
  const what = `${c.qname} ${c.qtype}`;
  const decoded = reply as Reply;
  assert.equal(decoded.rcode ?? 'NOERROR', c.rcode ?? 'NOERROR', `${what}: rcode`);
  for (const [flag, want] of Object.entries(c.flags ?? {})) {
    assert.equal((decoded as unknown as Record<string, boolean>)[`flag_${flag}`], want, `${what}: flag ${flag}`);
  }
  assert.deepEqual(sortedSection(reply.answers), sortedSection(c.answer), `${what}: answer section`);
  assert.deepEqual(sortedSection(reply.authorities), sortedSection(c.ns), `${what}: authority section`);
  assert.deepEqual(sortedSection(reply.additionals), sortedSection(c.extra), `${what}: additional section`);
}

/** Asks each case's question over UDP (with DO when the case says so) and checks the reply. */
export async function checkCases(target: Target, cases: readonly Case[]): Promise<void> {
  for (const c of cases) {
    const reply = await query(target, c.qname, c.qtype, c.do ? { dnssecOk: true } : {});
    checkResponse(reply, c);
  }
}
