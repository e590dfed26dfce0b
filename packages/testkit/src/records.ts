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
import { formatRR, fqdn, parseRR } from '@foghorn/core/wire';
import { query } from './index.js';
import type { Reply, Target } from './index.js';
import { errorMessage } from '@foghorn/core';

/** A resource record as dns-packet has it, OPT aside (OPT is EDNS's header, not a record). */
export type ResourceRecord = Exclude<Answer, OptAnswer>;

/** Splits a zone-file line into fields; `"quoted strings"` stay one field, quotes removed. */
function fields(line: string): string[] {
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|(\S+)/g;
  for (let m = re.exec(line); m !== null; m = re.exec(line)) out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]!);
  return out;
}

function int(text: string | undefined, line: string): number {
  if (text === undefined || !/^\d+$/.test(text)) throw new Error(`rr: expected a number, got ${String(text)} in '${line}'`);
  return Number(text);
}

/**
 * CAA and DS, which core's `parseRR` (the types generated records use) does not read: the
 * owner, TTL and class come from `parseRR` on the line with a stand-in A record.
 */
function extraType(line: string): ResourceRecord | undefined {
  const f = fields(line);
  // The type follows the owner and at most a TTL (it starts with a digit) and a class.
  let at = 1;
  while (at <= 2 && f[at] !== undefined && (/^\d/.test(f[at]!) || /^(IN|CH|HS|CS|NONE|ANY)$/i.test(f[at]!))) at++;
  if (f[at]?.toUpperCase() !== 'CAA' && f[at]?.toUpperCase() !== 'DS') return undefined;
  const head = parseRR(`${f.slice(0, at).join(' ')} A 0.0.0.0`) as ResourceRecord & { ttl: number; class: RecordClass };
  const base = { name: fqdn(head.name), ttl: head.ttl, class: head.class };
  const rdata = f.slice(at + 1);
  const type = f[at]!.toUpperCase();
  const need = rdata.length === (type === 'CAA' ? 3 : 4);
  if (!need) throw new Error(`rr: ${type} takes ${type === 'CAA' ? 3 : 4} rdata fields, got ${rdata.length} in '${line}'`);
  if (type === 'CAA') return { ...base, type, data: { flags: int(rdata[0], line), tag: rdata[1]! as 'issue', value: rdata[2]! } };
  return { ...base, type: 'DS', data: { keyTag: int(rdata[0], line), algorithm: int(rdata[1], line), digestType: int(rdata[2], line), digest: Buffer.from(rdata[3]!, 'hex') } };
}

/**
 * Parses one zone-file line, `OWNER [TTL] [CLASS] TYPE RDATA...`, into a dns-packet record (what
 * a test plugin writes or an upstream answers), with core's `parseRR` (miekg/dns's `NewRR`):
 * TTL defaults to 3600 and class to IN. Names keep their trailing dot. Types: A, AAAA, CNAME, NS,
 * PTR, DNAME, MX, SRV, TXT, SOA, and CAA and DS besides.
 *
 * @example rr('a.example. 5 IN A 192.0.2.1') // { name: 'a.example.', ttl: 5, class: 'IN', type: 'A', data: '192.0.2.1' }
 */
export function rr(line: string): ResourceRecord {
  let record: ResourceRecord;
  try {
    const extra = extraType(line.trim());
    if (extra) return extra;
    record = parseRR(line) as ResourceRecord;
  } catch (error) {
    throw new Error(`rr: ${errorMessage(error).replace(/^rr: /, '')} in '${line}'`);
  }
  const r = record as ResourceRecord & { data: unknown };
  const data = r.data as unknown as Record<string, unknown>;
  switch (r.type) {
    case 'CNAME':
    case 'NS':
    case 'PTR':
    case 'DNAME':
      return { ...r, name: fqdn(r.name), data: fqdn(String(r.data)) } as ResourceRecord;
    case 'MX':
      return { ...r, name: fqdn(r.name), data: { ...data, exchange: fqdn(String(data.exchange)) } } as ResourceRecord;
    case 'SRV':
      return { ...r, name: fqdn(r.name), data: { ...data, target: fqdn(String(data.target)) } } as ResourceRecord;
    case 'SOA':
      return { ...r, name: fqdn(r.name), data: { ...data, mname: fqdn(String(data.mname)), rname: fqdn(String(data.rname)) } } as ResourceRecord;
    default:
      return { ...r, name: fqdn(r.name) } as ResourceRecord;
  }
}

/** How {@link checkResponse} and {@link checkCases} compare and ask. */
export interface CheckOptions {
  /** Compare SOA serials; default true. CoreDNS's `test.Section` compares only the SOA's name server. */
  readonly soaSerial?: boolean;
  /** Flags every reply must have where the case names none itself, e.g. `{ aa: true, tc: false }`. */
  readonly flags?: Case['flags'];
  /** The transports each case is asked over, in turn; default `['udp']`. */
  readonly transports?: readonly ('udp' | 'tcp')[];
  /** Queries over UDP carry an OPT with this buffer size. */
  readonly udpSize?: number;
}

/**
 * One record as a zone-file line with single spaces, `a.example. 5 IN A 192.0.2.1`: the form
 * {@link checkResponse} compares, so a failure shows both sections as text (core's `formatRR`).
 */
export function formatRr(record: Answer | string): string {
  return format(record, true);
}

function format(record: Answer | string, soaSerial: boolean): string {
  const line = formatRR(typeof record === 'string' ? rr(record) : record);
  if (soaSerial || !line.includes(' SOA ')) return line;
  // Without the serial: OWNER TTL CLASS SOA MNAME RNAME SERIAL ..., the seventh field goes.
  const fields = line.split(' ');
  return fields[3] === 'SOA' ? fields.filter((_, k) => k !== 6).join(' ') : line;
}

/** A section as sorted lines (as given with `ordered`); OPT is left out (it is the EDNS header, not a record). */
export function sortedSection(records: readonly (Answer | string)[] | undefined, options: Pick<CheckOptions, 'soaSerial'> & { ordered?: boolean } = {}): string[] {
  const lines = (records ?? [])
    .filter((record) => typeof record === 'string' || record.type !== 'OPT')
    .map((record) => format(record, options.soaSerial !== false));
  return options.ordered ? lines : lines.sort();
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
  /** The answer section must come in this exact order (CoreDNS's `CNAMEOrder`), not sorted. */
  readonly ordered?: boolean;
  readonly ns?: readonly (string | Answer)[];
  /** The additional section without OPT. */
  readonly extra?: readonly (string | Answer)[];
  /** Header bits that must be set (true) or clear (false); the others are not checked. */
  readonly flags?: { readonly aa?: boolean; readonly tc?: boolean; readonly ra?: boolean; readonly ad?: boolean };
}

/** Asserts that `reply` is what `c` expects: rcode, the named flags, and every section sorted. */
export function checkResponse(reply: Packet, c: Case, options: CheckOptions = {}): void {
  const what = `${c.qname} ${c.qtype}`;
  const decoded = reply as Reply;
  assert.equal(decoded.rcode ?? 'NOERROR', c.rcode ?? 'NOERROR', `${what}: rcode`);
  for (const [flag, want] of Object.entries({ ...options.flags, ...c.flags })) {
    assert.equal((decoded as unknown as Record<string, boolean>)[`flag_${flag}`], want, `${what}: flag ${flag}`);
  }
  const answer = { ...options, ordered: c.ordered === true };
  assert.deepEqual(sortedSection(reply.answers, answer), sortedSection(c.answer, answer), `${what}: answer section`);
  assert.deepEqual(sortedSection(reply.authorities, options), sortedSection(c.ns, options), `${what}: authority section`);
  assert.deepEqual(sortedSection(reply.additionals, options), sortedSection(c.extra, options), `${what}: additional section`);
}

/**
 * Asks each case's question (with DO when the case says so) over each of `options.transports`
 * (UDP by default) and checks the reply; a failure names the transport.
 */
export async function checkCases(target: Target, cases: readonly Case[], options: CheckOptions = {}): Promise<void> {
  for (const c of cases) {
    for (const transport of options.transports ?? ['udp']) {
      const udpSize = transport === 'udp' ? options.udpSize : undefined;
      const reply = await query(target, c.qname, c.qtype, { transport, ...(c.do ? { dnssecOk: true } : {}), ...(udpSize !== undefined ? { udpSize } : {}) });
      try {
        checkResponse(reply, c, options);
      } catch (error) {
        if (error instanceof assert.AssertionError && options.transports !== undefined) error.message = `over ${transport}: ${error.message}`;
        throw error;
      }
    }
  }
}
