import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { RecordType } from 'dns-packet';
import { directivesOf, query, rcodeOf, startServer, eventually } from '@foghorn/testkit';
import file from '@foghorn/plugin-file';
import { sections } from './show.js';
import { dbAdditional, dbSigned, dbMiekNL, dbMiekNLDelegation, doubleWildcard, emptyNonTerminalWildcard, exampleOrg } from './zones.js';

/** One query and the reply it must get; sections are compared as sorted `show` lines. */
interface Case {
  qname: string;
  qtype: RecordType;
  rcode?: string;
  aa?: boolean;
  /** Sets the DO bit. */
  dnssec?: boolean;
  answer?: string[];
  ns?: string[];
  extra?: string[];
}

const dir = mkdtempSync(join(tmpdir(), 'foghorn-file-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

function zoneFile(nameOf: string, text: string): string {
  const path = join(dir, nameOf);
  writeFileSync(path, text);
  return path;
}

const soa = 'miek.nl. 1800 SOA linode.atoom.net. miek.miek.nl. 1282630057 14400 3600 604800 14400';
const miekAuth = ['miek.nl. 1800 NS ext.ns.whyscream.net.', 'miek.nl. 1800 NS linode.atoom.net.', 'miek.nl. 1800 NS ns-ext.nlnetlabs.nl.', 'miek.nl. 1800 NS omval.tednet.nl.'];
const aGlue = ['a.miek.nl. 1800 A 139.162.196.78', 'a.miek.nl. 1800 AAAA 2a01:7e00::f03c:91ff:fef1:6735'];

/** CoreDNS's lookup_test.go dnsTestCases. */
const lookupCases: Case[] = [
  { qname: 'www.miek.nl.', qtype: 'A', answer: ['a.miek.nl. 1800 A 139.162.196.78', 'www.miek.nl. 1800 CNAME a.miek.nl.'], ns: miekAuth },
  { qname: 'www.miek.nl.', qtype: 'AAAA', answer: ['a.miek.nl. 1800 AAAA 2a01:7e00::f03c:91ff:fef1:6735', 'www.miek.nl. 1800 CNAME a.miek.nl.'], ns: miekAuth },
  { qname: 'miek.nl.', qtype: 'SOA', answer: [soa], ns: miekAuth },
  { qname: 'miek.nl.', qtype: 'AAAA', answer: ['miek.nl. 1800 AAAA 2a01:7e00::f03c:91ff:fef1:6735'], ns: miekAuth },
  { qname: 'mIeK.NL.', qtype: 'AAAA', answer: ['miek.nl. 1800 AAAA 2a01:7e00::f03c:91ff:fef1:6735'], ns: miekAuth },
  {
    qname: 'miek.nl.',
    qtype: 'MX',
    answer: ['1 aspmx.l.google.com.', '10 aspmx2.googlemail.com.', '10 aspmx3.googlemail.com.', '5 alt1.aspmx.l.google.com.', '5 alt2.aspmx.l.google.com.'].map((mx) => `miek.nl. 1800 MX ${mx}`),
    ns: miekAuth,
  },
  { qname: 'a.miek.nl.', qtype: 'SRV', ns: [soa] },
  { qname: 'b.miek.nl.', qtype: 'A', rcode: 'NXDOMAIN', ns: [soa] },
  { qname: 'srv.miek.nl.', qtype: 'SRV', answer: ['srv.miek.nl. 1800 SRV 10 10 8080 a.miek.nl.'], extra: aGlue, ns: miekAuth },
  { qname: 'mx.miek.nl.', qtype: 'MX', answer: ['mx.miek.nl. 1800 MX 10 a.miek.nl.'], extra: aGlue, ns: miekAuth },
  { qname: 'asterisk.x.miek.nl.', qtype: 'CNAME', answer: ['asterisk.x.miek.nl. 1800 CNAME www.miek.nl.'], ns: miekAuth },
  { qname: 'a.b.x.miek.nl.', qtype: 'CNAME', rcode: 'NXDOMAIN', ns: [soa] },
  { qname: 'asterisk.y.miek.nl.', qtype: 'A', answer: ['asterisk.y.miek.nl. 1800 A 139.162.196.78'], ns: miekAuth },
  { qname: 'foo.dname.miek.nl.', qtype: 'CNAME', answer: ['dname.miek.nl. 1800 DNAME x.miek.nl.', 'foo.dname.miek.nl. 1800 CNAME foo.x.miek.nl.'], ns: miekAuth },
  // CoreDNS asks its upstream for an out-of-zone target (SERVFAIL in its test, without one);
  // an authoritative server leaves the target to the client's resolver.
  { qname: 'ext-cname.miek.nl.', qtype: 'A', answer: ['ext-cname.miek.nl. 1800 CNAME example.com.'], ns: miekAuth },
  { qname: 'txt.miek.nl.', qtype: 'TXT', answer: ['txt.miek.nl. 1800 TXT "v=spf1 a mx ~all"'], ns: miekAuth },
  { qname: 'caa.miek.nl.', qtype: 'CAA', answer: ['caa.miek.nl. 1800 CAA 0 issue letsencrypt.org'], ns: miekAuth },
  // TestLookUpNoDataResult: NODATA at a name and at a wildcard.
  { qname: 'a.miek.nl.', qtype: 'MX', ns: [soa] },
  { qname: 'wildcard.nodata.miek.nl.', qtype: 'MX', ns: [soa] },
  // Chasing a wildcard CNAME through another CNAME inside the zone.
  {
    qname: 'foo.x.miek.nl.',
    qtype: 'A',
    answer: ['foo.x.miek.nl. 1800 CNAME www.miek.nl.', 'www.miek.nl. 1800 CNAME a.miek.nl.', 'a.miek.nl. 1800 A 139.162.196.78'],
    ns: miekAuth,
  },
  { qname: 'miek.nl.', qtype: 'NS', answer: miekAuth },
];

const delegation = ['delegated.miek.nl. 1800 NS a.delegated.miek.nl.', 'delegated.miek.nl. 1800 NS ns-ext.nlnetlabs.nl.'];
const delegationGlue = ['a.delegated.miek.nl. 1800 A 139.162.196.78', 'a.delegated.miek.nl. 1800 AAAA 2a01:7e00::f03c:91ff:fef1:6735'];

/** CoreDNS's delegation_test.go delegationTestCases: referrals are not authoritative. */
const delegationCases: Case[] = [
  { qname: 'a.delegated.miek.nl.', qtype: 'TXT', aa: false, ns: delegation, extra: delegationGlue },
  { qname: 'delegated.miek.nl.', qtype: 'NS', aa: false, ns: delegation, extra: delegationGlue },
  { qname: 'foo.delegated.miek.nl.', qtype: 'A', aa: false, ns: delegation, extra: delegationGlue },
  { qname: 'foo.delegated.miek.nl.', qtype: 'TXT', aa: false, ns: delegation, extra: delegationGlue },
  { qname: 'foo.delegated.miek.nl.', qtype: 'SOA', aa: false, ns: delegation, extra: delegationGlue },
  { qname: 'miek.nl.', qtype: 'SOA', answer: [soa], ns: miekAuth },
  { qname: 'miek.nl.', qtype: 'AAAA', ns: [soa] },
  // ds_test.go: DS below a cut is the child's (referral), DS at the apex is NODATA.
  { qname: 'a.delegated.miek.nl.', qtype: 'DS', aa: false, ns: delegation, extra: delegationGlue },
  { qname: '_udp.delegated.miek.nl.', qtype: 'DS', aa: false, ns: delegation, extra: delegationGlue },
  { qname: '_udp.miek.nl.', qtype: 'DS', rcode: 'NXDOMAIN', ns: [soa] },
  { qname: 'miek.nl.', qtype: 'DS', ns: [soa] },
  // DS at the cut itself is answered by the parent, from the zone, as stored.
  { qname: 'secure.miek.nl.', qtype: 'DS', answer: ['secure.miek.nl. 1800 DS {"keyTag":60485,"algorithm":5,"digestType":1,"digest":"2bb183af5f22588179a53b0a98631fad1a292118"}'], ns: miekAuth },
  { qname: 'www.secure.miek.nl.', qtype: 'A', aa: false, ns: ['secure.miek.nl. 1800 NS ns.secure.example.net.'] },
];

const exampleNs = ['example.org. 1800 NS ns.example.org.'];
const exampleSoa = ['example.org. 1800 SOA ns.example.org. admin.example.org. 2024010100 14400 3600 604800 14400'];
const host = ['host.example.org. 1800 A 192.0.2.10', 'host.example.org. 1800 AAAA 2001:db8::10'];
const srv = ['srv.example.org. 1800 SRV 10 50 8080 host.example.org.', 'srv.example.org. 1800 SRV 20 50 8080 host.example.org.'];

/** CoreDNS's additionalTestCases (lookup_test.go), plus wildcard rules of RFC 4592. */
const additionalCases: Case[] = [
  { qname: 'mx.example.org.', qtype: 'MX', answer: ['mx.example.org. 1800 MX 10 host.example.org.', 'mx.example.org. 1800 MX 20 host.example.org.'], ns: exampleNs, extra: host },
  { qname: 'srv.example.org.', qtype: 'SRV', answer: srv, ns: exampleNs, extra: host },
  {
    qname: 'two.example.org.',
    qtype: 'MX',
    answer: ['two.example.org. 1800 MX 10 host.example.org.', 'two.example.org. 1800 MX 20 other.example.org.'],
    ns: exampleNs,
    extra: [...host, 'other.example.org. 1800 A 192.0.2.20', 'other.example.org. 1800 AAAA 2001:db8::20'],
  },
  { qname: 'cname-srv.example.org.', qtype: 'SRV', answer: ['cname-srv.example.org. 1800 CNAME srv.example.org.', ...srv], ns: exampleNs, extra: host },
  { qname: 'foo.wild.example.org.', qtype: 'SRV', answer: ['foo.wild.example.org. 1800 CNAME srv.example.org.', ...srv], ns: exampleNs, extra: host },
  {
    qname: 'srv.dname.example.org.',
    qtype: 'SRV',
    answer: ['dname.example.org. 1800 DNAME dsub.example.org.', 'srv.dname.example.org. 1800 CNAME srv.dsub.example.org.', 'srv.dsub.example.org. 1800 SRV 10 50 8080 host.example.org.'],
    ns: exampleNs,
    extra: host,
  },
  // An empty non-terminal is NOERROR without answers, not NXDOMAIN.
  { qname: 'b.ent.example.org.', qtype: 'A', ns: exampleSoa },
  { qname: 'ent.example.org.', qtype: 'A', ns: exampleSoa },
  // The wildcard answers names it covers, under their own name...
  { qname: 'q.w.example.org.', qtype: 'TXT', answer: ['q.w.example.org. 1800 TXT "wild"'], ns: exampleNs },
  // ...but not below an existing name (y.w is an empty non-terminal: the closest encloser).
  { qname: 'z.y.w.example.org.', qtype: 'TXT', rcode: 'NXDOMAIN', ns: exampleSoa },
  { qname: 'x.y.w.example.org.', qtype: 'TXT', answer: ['x.y.w.example.org. 1800 TXT "below"'], ns: exampleNs },
];

const exampleAuth = ['example.org. 3600 NS a.iana-servers.net.', 'example.org. 3600 NS b.iana-servers.net.'];
const bNs = ['example.org. 3600 NS b.iana-servers.net.'];

/** wildcard_test.go: TestLookupDoubleWildcard. */
const wildcardCases: Case[] = [
  { qname: 'wild.w.example.org.', qtype: 'TXT', answer: ['wild.w.example.org. 3600 TXT "Wildcard"'], ns: exampleAuth },
  { qname: 'wild.c.example.org.', qtype: 'TXT', answer: ['wild.c.example.org. 3600 TXT "c Wildcard"'], ns: exampleAuth },
  { qname: 'wild.d.example.org.', qtype: 'TXT', answer: ['alias.example.org. 3600 TXT "Wildcard CNAME expansion"', 'wild.d.example.org. 3600 CNAME alias.example.org.'], ns: exampleAuth },
  { qname: 'alias.example.org.', qtype: 'TXT', answer: ['alias.example.org. 3600 TXT "Wildcard CNAME expansion"'], ns: exampleAuth },
  // b.c.w is an empty non-terminal: the *.w wildcard does not reach below it (RFC 4592 §2.2.2).
  { qname: 'x.b.c.w.example.org.', qtype: 'TXT', rcode: 'NXDOMAIN', ns: ['example.org. 3600 SOA sns.dns.icann.org. noc.dns.icann.org. 2015082541 7200 3600 1209600 3600'] },
];

const doubleSoa = ['example.org. 3600 SOA sns.dns.icann.org. noc.dns.icann.org. 2015082541 7200 3600 1209600 3600'];
/** wildcard_test.go: TestLookupApexWildcard, TestLookupMultiWildcard, closer empty non-terminal. */
const apexWildcardCases: Case[] = [
  { qname: 'foo.example.org.', qtype: 'A', answer: ['foo.example.org. 3600 A 127.0.0.54'], ns: bNs },
  { qname: 'bar.example.org.', qtype: 'A', answer: ['bar.example.org. 3600 A 127.0.0.53'], ns: bNs },
  { qname: 'bar.intern.example.org.', qtype: 'A', answer: ['bar.intern.example.org. 3600 A 127.0.1.52'], ns: bNs },
  { qname: 'nonexistent.deeper.example.org.', qtype: 'A', rcode: 'NXDOMAIN', ns: doubleSoa },
  { qname: 'nonexistent.example.org.', qtype: 'A', answer: ['nonexistent.example.org. 3600 A 127.0.0.53'], ns: bNs },
];

const entSoa = ['example.org. 3600 SOA ns.example.org. hostmaster.example.org. 1 7200 3600 1209600 3600'];
/** wildcard_test.go: TestLookupEmptyNonTerminalWildcard. */
const entWildcardCases: Case[] = [
  { qname: 'something.e.example.org.', qtype: 'A', ns: entSoa },
  { qname: 'something.e.example.org.', qtype: 'AAAA', ns: entSoa },
  { qname: 'something.somewhere.e.example.org.', qtype: 'A', ns: entSoa },
  { qname: 'f.*.e.example.org.', qtype: 'A', answer: ['f.*.e.example.org. 3600 A 192.0.2.1'], ns: ['example.org. 3600 NS ns.example.org.'] },
  { qname: 'missing.*.e.example.org.', qtype: 'A', rcode: 'NXDOMAIN', ns: entSoa },
  { qname: 'missing.deep.e.example.org.', qtype: 'A', rcode: 'NXDOMAIN', ns: entSoa },
  { qname: 'something.ordinary.example.org.', qtype: 'A', answer: ['something.ordinary.example.org. 3600 A 192.0.2.4'], ns: ['example.org. 3600 NS ns.example.org.'] },
];

/** Each server reads its own file. */
let served = 0;

const sig = (covered: string, labels: number, owner = 'example.org.', ttl = 1800): string => `${owner} ${ttl} RRSIG ${covered} 13 ${labels} ${ttl} 49035 example.org.`;
const signedNs = ['example.org. 1800 NS a.iana-servers.net.', 'example.org. 1800 NS b.iana-servers.net.', sig('NS', 2)];
const signedSoa = ['example.org. 1800 SOA a.iana-servers.net. devnull.example.org. 1282630057 14400 3600 604800 14400', sig('SOA', 2)];
/** An NSEC and its signature; a wildcard owner's labels do not count the `*` (RFC 4034 §3.1.3). */
const nsec = (owner: string, next: string, types: string): string[] => [`${owner} 14400 NSEC ${next} ${types}`, sig('NSEC', owner.replace(/^\*\./, '').split('.').length - 1, owner, 14400)];

/** A signed zone with DO, as CoreDNS's dnssec_test.go, wildcard_test.go and secure delegations. */
const signedCases: Case[] = [
  { qname: 'www.example.org.', qtype: 'A', dnssec: true, answer: ['www.example.org. 1800 A 192.0.2.80', sig('A', 3, 'www.example.org.')], ns: signedNs },
  { qname: 'www.example.org.', qtype: 'A', answer: ['www.example.org. 1800 A 192.0.2.80'], ns: signedNs.slice(0, 2) },
  { qname: 'example.org.', qtype: 'SOA', dnssec: true, answer: signedSoa, ns: signedNs },
  // NODATA: the name's own NSEC shows the type is absent.
  { qname: 'www.example.org.', qtype: 'MX', dnssec: true, ns: [...signedSoa, ...nsec('www.example.org.', 'example.org.', 'A RRSIG NSEC')] },
  // NXDOMAIN: the NSEC covering the name, and the one showing no *.example.org wildcard.
  {
    qname: 'nope.example.org.',
    qtype: 'A',
    dnssec: true,
    rcode: 'NXDOMAIN',
    ns: [...signedSoa, ...nsec('delegated.example.org.', '*.w.example.org.', 'NS DS RRSIG NSEC'), ...nsec('example.org.', 'a.example.org.', 'NS SOA RRSIG NSEC DNSKEY')],
  },
  // Below an existing name, one NSEC both covers the name and denies the wildcard.
  { qname: 'b.a.example.org.', qtype: 'A', dnssec: true, rcode: 'NXDOMAIN', ns: [...signedSoa, ...nsec('a.example.org.', 'delegated.example.org.', 'A RRSIG NSEC')] },
  // A wildcard answer: its signature under the query name, and the NSEC covering that name.
  {
    qname: 'x.w.example.org.',
    qtype: 'TXT',
    dnssec: true,
    answer: ['x.w.example.org. 1800 TXT "wild"', sig('TXT', 3, 'x.w.example.org.')],
    ns: [...signedNs, ...nsec('*.w.example.org.', 'www.example.org.', 'TXT RRSIG NSEC')],
  },
  // A secure referral carries the DS and its signature.
  {
    qname: 'foo.delegated.example.org.',
    qtype: 'A',
    dnssec: true,
    aa: false,
    ns: ['delegated.example.org. 1800 NS ns.delegated.example.org.', 'delegated.example.org. 1800 DS {"keyTag":10056,"algorithm":5,"digestType":1,"digest":"ee72cabd1927759cdda92a10dbf431504b9e1f13"}', sig('DS', 3, 'delegated.example.org.')],
    extra: ['ns.delegated.example.org. 1800 A 192.0.2.53'],
  },
];

async function serve(t: { after(fn: () => Promise<void>): void }, zone: string, text: string, extra = ''): Promise<number> {
  const path = zoneFile(`db.${zone}.${++served}`, text);
  const server = await startServer(`${zone}:0 {\n file ${path}${extra}\n}\n`, { directives: directivesOf(file) });
  t.after(() => server.close());
  return server.port();
}

async function check(port: number, tc: Case, transport: 'udp' | 'tcp'): Promise<void> {
  const reply = await query({ port }, tc.qname, tc.qtype, tc.dnssec ? { transport, dnssecOk: true } : { transport });
  assert.equal(rcodeOf(reply), tc.rcode ?? 'NOERROR');
  assert.equal(reply.flag_aa, tc.aa ?? true, 'AA bit');
  assert.deepEqual(sections(reply), { answer: [...(tc.answer ?? [])].sort(), ns: [...(tc.ns ?? [])].sort(), extra: [...(tc.extra ?? [])].sort() });
}

for (const [title, zone, text, cases] of [
  ['lookup_test.go', 'miek.nl', dbMiekNL, lookupCases],
  ['delegation_test.go', 'miek.nl', dbMiekNLDelegation, delegationCases],
  ['additional processing and wildcards', 'example.org', dbAdditional, additionalCases],
  ['wildcard_test.go double wildcard', 'example.org', exampleOrg, wildcardCases],
  ['wildcard_test.go apex and multi wildcard', 'example.org', doubleWildcard, apexWildcardCases],
  ['wildcard_test.go empty non-terminal wildcard', 'example.org', emptyNonTerminalWildcard, entWildcardCases],
  ['DNSSEC (DO) on a signed zone', 'example.org', dbSigned, signedCases],
] as const) {
  test(`file answers CoreDNS's ${title} cases over UDP and TCP`, async (t) => {
    const port = await serve(t, zone, text);
    for (const transport of ['udp', 'tcp'] as const) {
      for (const tc of cases) await t.test(`${transport} ${tc.qname} ${tc.qtype}`, () => check(port, tc, transport));
    }
  });
}

test('file refuses a zone transfer that no transfer plugin took', async (t) => {
  const port = await serve(t, 'miek.nl', dbMiekNL, ' miek.nl');
  const axfr = await query({ port }, 'miek.nl.', 'AXFR', { transport: 'tcp' });
  assert.equal(rcodeOf(axfr), 'REFUSED');
});

test('file falls through to the next plugin for names it has not, with fallthrough', async (t) => {
  const path = zoneFile('db.fall', dbMiekNL);
  const { testPlugin } = await import('@foghorn/testkit');
  const next = testPlugin('whoami', () => ({ name: 'whoami', serveDNS: () => 5 }));
  const server = await startServer(`miek.nl:0 {\n file ${path} {\n  fallthrough\n }\n whoami\n}\n`, { directives: directivesOf(file, next) });
  t.after(() => server.close());
  assert.equal(rcodeOf(await query({ port: server.port() }, 'doesnotexist.miek.nl.', 'A')), 'REFUSED');
  assert.equal(rcodeOf(await query({ port: server.port() }, 'a.miek.nl.', 'A')), 'NOERROR');
  // NODATA is an answer, not a miss: no fallthrough (CoreDNS lookup_test.go TestLookupFallthrough).
  assert.equal(rcodeOf(await query({ port: server.port() }, 'a.miek.nl.', 'MX')), 'NOERROR');
});

test('file reloads a zone when its SOA serial changes, and only then', async (t) => {
  const path = zoneFile('db.reload', '$ORIGIN example.org.\n@ 3600 IN SOA ns1 admin 1 7200 3600 1209600 3600\n@ 3600 IN NS ns1\nwww 60 IN A 192.0.2.1\n');
  const server = await startServer(`example.org:0 {\n file ${path} {\n  reload 50ms\n }\n}\n`, { directives: directivesOf(file) });
  t.after(() => server.close());
  const answer = async (): Promise<string> => {
    const reply = await query({ port: server.port() }, 'www.example.org.', 'A');
    return (reply.answers?.[0] as { data: string } | undefined)?.data ?? '';
  };
  assert.equal(await answer(), '192.0.2.1');
  // Same serial, new data: not reloaded (CoreDNS compares serials, not contents).
  writeFileSync(path, '$ORIGIN example.org.\n@ 3600 IN SOA ns1 admin 1 7200 3600 1209600 3600\n@ 3600 IN NS ns1\nwww 60 IN A 192.0.2.9\n');
  // A broken file is logged and the served zone stays.
  writeFileSync(path, '$ORIGIN example.org.\n@ 3600 IN SOA ns1 admin 3 7200 3600 1209600 3600\nwww 60 IN A 192.0.2.300\n');
  await eventually(() => server.lines.some((line) => line.includes('Parsing zone "example.org."') && line.includes(':3: A bad address')), 5000);
  assert.equal(await answer(), '192.0.2.1');
  writeFileSync(path, '$ORIGIN example.org.\n@ 3600 IN SOA ns1 admin 2 7200 3600 1209600 3600\n@ 3600 IN NS ns1\nwww 60 IN A 192.0.2.2\n');
  await eventually(() => server.lines.some((line) => line.includes('Successfully reloaded zone "example.org."') && line.includes('with 2 SOA serial')), 5000);
  assert.equal(await answer(), '192.0.2.2');
});

test('reload_by_mtime reloads a newer file even with the same serial, and a file missing at start is served once it appears', async (t) => {
  const path = join(dir, 'db.mtime');
  const missing = join(dir, 'db.later');
  writeFileSync(path, '$ORIGIN example.org.\n@ 3600 IN SOA ns1 admin 1 7200 3600 1209600 3600\nwww 60 IN A 192.0.2.1\n');
  const corefile = `example.org:0 {\n file ${path} {\n  reload 50ms\n  reload_by_mtime\n }\n}\nexample.net:0 {\n file ${missing} {\n  reload 50ms\n }\n}\n`;
  const server = await startServer(corefile, { directives: directivesOf(file) });
  t.after(() => server.close());
  const port = server.port('example.org.');
  const answer = async (name: string): Promise<string> => {
    const reply = await query({ port }, name, 'A');
    return `${rcodeOf(reply)} ${(reply.answers?.[0] as { data: string } | undefined)?.data ?? ''}`;
  };
  assert.equal(await answer('www.example.org.'), 'NOERROR 192.0.2.1');
  // No zone data yet: SERVFAIL, as CoreDNS answers for a zone it could not load.
  assert.equal(await answer('www.example.net.'), 'SERVFAIL ');
  writeFileSync(path, '$ORIGIN example.org.\n@ 3600 IN SOA ns1 admin 1 7200 3600 1209600 3600\nwww 60 IN A 192.0.2.7\n');
  // Newer for sure, whatever the file system's timestamp granularity.
  const later = new Date(Date.now() + 10_000);
  utimesSync(path, later, later);
  writeFileSync(missing, '$ORIGIN example.net.\n@ 3600 IN SOA ns1 admin 1 7200 3600 1209600 3600\nwww 60 IN A 192.0.2.8\n');
  await eventually(() => server.lines.filter((line) => line.includes('Successfully reloaded zone')).length >= 2, 5000);
  assert.equal(await answer('www.example.org.'), 'NOERROR 192.0.2.7');
  assert.equal(await answer('www.example.net.'), 'NOERROR 192.0.2.8');
});
