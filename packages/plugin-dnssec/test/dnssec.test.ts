import { test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Answer } from 'dns-packet';
import { Rcode, replyTo } from '@foghorn/core';
import bind from '@foghorn/plugin-bind';
import cache from '@foghorn/plugin-cache';
import file from '@foghorn/plugin-file';
import forward from '@foghorn/plugin-forward';
import whoami from '@foghorn/plugin-whoami';
import { delv, directivesOf, FakeBackend, formatRr, metric, query, rcodeOf, reply as reply_, rr, startServer, testPlugin, upstreamFor, writeDnssecKey } from '@foghorn/testkit';
import type { Reply, TestServer, TrustAnchor } from '@foghorn/testkit';
import dnssec from '../src/index.js';

// CoreDNS's plugin/dnssec/handler_test.go: its zone, served by file, and its key (dnssec_test.go),
// a CSK with the SEP bit (tag 18512).
const dbMiekNL = `
$TTL    30M
$ORIGIN miek.nl.
@       IN      SOA     linode.atoom.net. miek.miek.nl. (
                             1282630057 ; Serial
                             4H         ; Refresh
                             1H         ; Retry
                             7D         ; Expire
                             4H )       ; Negative Cache TTL
                IN      NS      linode.atoom.net.

                IN      MX      1  aspmx.l.google.com.

                IN      A       139.162.196.78
                IN      AAAA    2a01:7e00::f03c:91ff:fef1:6735

a               IN      A       139.162.196.78
                IN      AAAA    2a01:7e00::f03c:91ff:fef1:6735
www             IN      CNAME   a
deleg			IN		NS		ns01.deleg
				IN		DS		18512 13 2 D4E806322598BC97A003EF1ACDFF352EEFF7B42DBB0D41B8224714C36AEF08D9
unsigned		IN		NS		ns01.deleg
gone            IN      CNAME   nowhere
`;
const pubKey = 'miek.nl. IN DNSKEY 257 3 13 0J8u0XJ9GNGFEBXuAmLu04taHG4BXPP3gwhetiOUMnGA+x09nqzgF5IY OyjWB7N3rXqQbnOSILhH1hnuyh7mmA==';
const privKey = `Private-key-format: v1.3
Algorithm: 13 (ECDSAP256SHA256)
PrivateKey: /4BZk8AFvyW5hL3cOLSVxIp1RTqHSAEloWUxj86p3gs=
Created: 20160423195532
Publish: 20160423195532
Activate: 20160423195532
`;
const miekAnchor: TrustAnchor = { zone: 'miek.nl.', flags: 257, algorithm: 13, publicKey: Buffer.from('0J8u0XJ9GNGFEBXuAmLu04taHG4BXPP3gwhetiOUMnGA+x09nqzgF5IYOyjWB7N3rXqQbnOSILhH1hnuyh7mmA==', 'base64') };

/** What plays CoreDNS's `test.ErrorHandler`: every query that reaches it fails with SERVFAIL. */
const errorHandler = testPlugin('errorhandler', () => ({ name: 'errorhandler', serveDNS: () => Rcode.SERVFAIL }));
const backend = new FakeBackend();
const directives = directivesOf(bind, cache, dnssec, file, forward, whoami, backend.plugin(), errorHandler);

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'foghorn-dnssec-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** CoreDNS's key as `Kmiek.nl.+013+18512` and its zone as `db.miek.nl` in `dir`. */
function miekFiles(dir: string): { key: string; zone: string } {
  const key = join(dir, 'Kmiek.nl.+013+18512');
  writeFileSync(`${key}.key`, `${pubKey}\n`);
  writeFileSync(`${key}.private`, privKey);
  writeFileSync(join(dir, 'db.miek.nl'), dbMiekNL);
  return { key, zone: join(dir, 'db.miek.nl') };
}

async function serve(t: TestContext, corefile: string): Promise<TestServer> {
  const server = await startServer(corefile, { directives });
  t.after(() => server.close());
  return server;
}

/**
 * A record as the tables write it: zone-file text, with an RRSIG's validity times and signature
 * left out (ECDSA signatures are random; delv checks them instead).
 */
function shape(record: Answer): string {
  if (record.type !== 'RRSIG') return formatRr(record);
  const sig = record.data;
  return `${record.name}. ${record.ttl ?? 0} IN RRSIG ${sig.typeCovered} ${sig.algorithm} ${sig.labels} ${sig.originalTTL} ${sig.keyTag} ${sig.signersName}.`;
}

const section = (records: readonly Answer[] | undefined): string[] => (records ?? []).filter((r) => r.type !== 'OPT').map(shape).sort();

interface Shaped {
  readonly qname: string;
  readonly qtype: 'A' | 'AAAA' | 'NS' | 'MX' | 'DS' | 'DNSKEY' | 'HINFO' | 'TXT' | 'NSEC' | 'CNAME';
  readonly do?: boolean;
  readonly rcode?: string;
  readonly answer?: readonly string[];
  readonly ns?: readonly string[];
  readonly extra?: readonly string[];
}

async function check(port: number, c: Shaped, transport: 'udp' | 'tcp' = 'udp'): Promise<Reply> {
  const reply = (await query({ port }, c.qname, c.qtype, { transport, ...(c.do ? { dnssecOk: true } : {}) })) as Reply;
  const what = `${c.qname} ${c.qtype}${c.do ? ' +dnssec' : ''} over ${transport}`;
  assert.equal(rcodeOf(reply), c.rcode ?? 'NOERROR', `${what}: rcode`);
  assert.deepEqual(section(reply.answers), [...(c.answer ?? [])].sort(), `${what}: answer`);
  assert.deepEqual(section(reply.authorities), [...(c.ns ?? [])].sort(), `${what}: authority`);
  assert.deepEqual(section(reply.additionals), [...(c.extra ?? [])].sort(), `${what}: additional`);
  return reply;
}

const soa = 'miek.nl. 1800 IN SOA linode.atoom.net. miek.miek.nl. 1282630057 14400 3600 604800 14400';
const ns = 'miek.nl. 1800 IN NS linode.atoom.net.';
const sig = (owner: string, ttl: number, covered: string, labels: number): string => `${owner} ${ttl} IN RRSIG ${covered} 13 ${labels} 3600 18512 miek.nl.`;
const zoneTypes = 'HINFO TXT AAAA LOC SRV CERT SSHFP RRSIG NSEC TLSA HIP TYPE61 SPF';
const delegationTypes = 'A NS HINFO TXT AAAA LOC SRV CERT SSHFP RRSIG NSEC TLSA HIP TYPE61 SPF';

// handler_test.go's dnsTestCases, with every field of each RRSIG and NSEC spelled out (CoreDNS's
// table compares an RRSIG's covered type, labels and signer, an NSEC's next name): the original
// TTL is always 3600, the RRSIG's own TTL the RRset's.
const lookupCases: Shaped[] = [
  { qname: 'miek.nl.', qtype: 'DNSKEY', answer: ['miek.nl. 3600 IN DNSKEY 257 3 13 0J8u0XJ9GNGFEBXuAmLu04taHG4BXPP3gwhetiOUMnGA+x09nqzgF5IYOyjWB7N3rXqQbnOSILhH1hnuyh7mmA=='] },
  { qname: 'miek.nl.', qtype: 'NS', do: true, answer: [ns, sig('miek.nl.', 1800, 'NS', 2)] },
  { qname: 'deleg.miek.nl.', qtype: 'NS', do: true, ns: ['deleg.miek.nl. 1800 IN DS 18512 13 2 D4E806322598BC97A003EF1ACDFF352EEFF7B42DBB0D41B8224714C36AEF08D9', 'deleg.miek.nl. 1800 IN NS ns01.deleg.miek.nl.', sig('deleg.miek.nl.', 1800, 'DS', 3)] },
  { qname: 'unsigned.miek.nl.', qtype: 'NS', do: true, ns: ['unsigned.miek.nl. 1800 IN NS ns01.deleg.miek.nl.', `unsigned.miek.nl. 1800 IN NSEC unsigned\\000.miek.nl. ${delegationTypes}`, sig('unsigned.miek.nl.', 1800, 'NSEC', 3)] },
  // DS should not come from dnssec plugin.
  { qname: 'deleg.miek.nl.', qtype: 'DS', answer: ['deleg.miek.nl. 1800 IN DS 18512 13 2 D4E806322598BC97A003EF1ACDFF352EEFF7B42DBB0D41B8224714C36AEF08D9'], ns: [ns] },
  { qname: 'unsigned.miek.nl.', qtype: 'DS', ns: [soa] },
  { qname: 'miek.nl.', qtype: 'DS', do: true, ns: ['miek.nl. 1800 IN NSEC \\000.miek.nl. A NS SOA HINFO MX TXT AAAA LOC SRV CERT SSHFP RRSIG NSEC DNSKEY TLSA HIP TYPE61 SPF', sig('miek.nl.', 1800, 'NSEC', 2), sig('miek.nl.', 1800, 'SOA', 2), soa] },
  { qname: 'deleg.miek.nl.', qtype: 'DS', do: true, answer: ['deleg.miek.nl. 1800 IN DS 18512 13 2 D4E806322598BC97A003EF1ACDFF352EEFF7B42DBB0D41B8224714C36AEF08D9', sig('deleg.miek.nl.', 1800, 'DS', 3)], ns: [ns, sig('miek.nl.', 1800, 'NS', 2)] },
  { qname: 'unsigned.miek.nl.', qtype: 'DS', do: true, ns: [sig('miek.nl.', 1800, 'SOA', 2), soa, `unsigned.miek.nl. 1800 IN NSEC \\000.unsigned.miek.nl. ${delegationTypes}`, sig('unsigned.miek.nl.', 1800, 'NSEC', 3)] },
  { qname: 'miek.nl.', qtype: 'MX', answer: ['miek.nl. 1800 IN MX 1 aspmx.l.google.com.'], ns: [ns] },
  { qname: 'miek.nl.', qtype: 'MX', do: true, answer: ['miek.nl. 1800 IN MX 1 aspmx.l.google.com.', sig('miek.nl.', 1800, 'MX', 2)], ns: [ns, sig('miek.nl.', 1800, 'NS', 2)] },
  {
    qname: 'www.miek.nl.', qtype: 'AAAA', do: true,
    answer: ['a.miek.nl. 1800 IN AAAA 2a01:7e00::f03c:91ff:fef1:6735', sig('a.miek.nl.', 1800, 'AAAA', 3), 'www.miek.nl. 1800 IN CNAME a.miek.nl.', sig('www.miek.nl.', 1800, 'CNAME', 3)],
    ns: [ns, sig('miek.nl.', 1800, 'NS', 2)],
  },
  // NXDOMAIN turned into NODATA by the black lie.
  { qname: 'wwwww.miek.nl.', qtype: 'AAAA', do: true, ns: [sig('miek.nl.', 1800, 'SOA', 2), soa, `wwwww.miek.nl. 1800 IN NSEC \\000.wwwww.miek.nl. A ${zoneTypes.replace('AAAA ', '')}`, sig('wwwww.miek.nl.', 1800, 'NSEC', 3)] },
  { qname: 'miek.nl.', qtype: 'HINFO', do: true, ns: ['miek.nl. 1800 IN NSEC \\000.miek.nl. A NS SOA MX TXT AAAA LOC SRV CERT SSHFP RRSIG NSEC DNSKEY TLSA HIP TYPE61 SPF', sig('miek.nl.', 1800, 'NSEC', 2), sig('miek.nl.', 1800, 'SOA', 2), soa] },
  { qname: 'www.example.org.', qtype: 'AAAA', do: true, rcode: 'SERVFAIL' },
];

test("dnssec signs file's answers as CoreDNS's handler_test.go expects, over UDP and TCP", async (t) => {
  const { key, zone } = miekFiles(tempDir(t));
  const server = await serve(t, `.:0 {\n    bind 127.0.0.1\n    dnssec miek.nl {\n        key file ${key}\n    }\n    file ${zone} miek.nl\n    errorhandler\n}\n`);
  for (const transport of ['udp', 'tcp'] as const) {
    for (const c of lookupCases) {
      const reply = await check(server.port(), c, transport);
      // No NSEC denying the name or type may claim the type asked for.
      const denial = reply.authorities?.some((rr) => rr.type === 'SOA');
      for (const rr of reply.authorities ?? []) if (denial && rr.type === 'NSEC') assert.ok(!rr.data.rrtypes.includes(c.qtype), `${c.qname} ${c.qtype}: the NSEC lists ${c.qtype}`);
    }
  }
});

test("dnssec's signatures over file's answers validate with BIND's delv and CoreDNS's key as the trust anchor", async (t) => {
  const { key, zone } = miekFiles(tempDir(t));
  const server = await serve(t, `miek.nl:0 {\n    bind 127.0.0.1\n    dnssec {\n        key file ${key}\n    }\n    file ${zone}\n}\n`);
  // A positive answer, a CNAME, a black lie for NXDOMAIN and NODATA, DS and its absence at a cut,
  // and a CNAME to a name the zone does not have (the CNAME signed, the black lie for its target).
  // test/system/dnssec.test.ts runs every algorithm and key split past delv and drill.
  const questions: [string, string][] = [
    ['miek.nl.', 'MX'], ['www.miek.nl.', 'AAAA'], ['wwwww.miek.nl.', 'AAAA'], ['a.miek.nl.', 'TXT'],
    ['deleg.miek.nl.', 'DS'], ['unsigned.miek.nl.', 'DS'], ['gone.miek.nl.', 'A'],
  ];
  const results = await Promise.all(questions.map(([name, type]) => delv(server.port(), name, type, [miekAnchor])));
  results.forEach((result, i) => assert.ok(result.validated, `${questions[i]!.join(' ')}:\n${result.output}`));
});

test('dnssec answers DNSKEY at the apex itself, authoritatively, signed only for DO queries (TestLookupDNSKEY)', async (t) => {
  const { key } = miekFiles(tempDir(t));
  const server = await serve(t, `miek.nl:0 {\n    bind 127.0.0.1\n    dnssec {\n        key file ${key}\n    }\n    errorhandler\n}\n`);
  const dnskey = 'miek.nl. 3600 IN DNSKEY 257 3 13 0J8u0XJ9GNGFEBXuAmLu04taHG4BXPP3gwhetiOUMnGA+x09nqzgF5IYOyjWB7N3rXqQbnOSILhH1hnuyh7mmA==';
  const plain = await check(server.port(), { qname: 'miek.nl.', qtype: 'DNSKEY', answer: [dnskey] });
  const signed = await check(server.port(), { qname: 'miek.nl.', qtype: 'DNSKEY', do: true, answer: [dnskey, sig('miek.nl.', 3600, 'DNSKEY', 2)] });
  assert.equal(plain.flag_aa, true);
  assert.equal(signed.flag_aa, true);
  // Below the apex DNSKEY is not synthesised: the query goes on (to SERVFAIL here).
  await check(server.port(), { qname: 'a.miek.nl.', qtype: 'DNSKEY', do: true, rcode: 'SERVFAIL' });
});

test('dnssec leaves replies to queries without DO, and names outside its zones, unsigned', async (t) => {
  const { key, zone } = miekFiles(tempDir(t));
  backend.table.set('www.example.org. A', (req) => ({ ...replyTo(req), answers: [rr('www.example.org. 60 IN A 192.0.2.1')] }));
  const server = await serve(t, `.:0 {\n    bind 127.0.0.1\n    dnssec miek.nl {\n        key file ${key}\n    }\n    file ${zone} miek.nl\n    backend\n}\n`);
  await check(server.port(), { qname: 'wwwww.miek.nl.', qtype: 'A', rcode: 'NXDOMAIN', ns: [soa] });
  await check(server.port(), { qname: 'www.example.org.', qtype: 'A', do: true, answer: ['www.example.org. 60 IN A 192.0.2.1'] });
});

test('dnssec counts cache hits and misses per RRset signed, and the entries it holds', async (t) => {
  const { key, zone } = miekFiles(tempDir(t));
  const server = await serve(t, `miek.nl:0 {\n    bind 127.0.0.1\n    dnssec {\n        key file ${key}\n        cache_capacity 100\n    }\n    file ${zone}\n}\n`);
  const label = { server: 'dns://127.0.0.1:0' };
  await query({ port: server.port() }, 'miek.nl', 'MX', { dnssecOk: true });
  assert.deepEqual([await metric(server, 'coredns_dnssec_cache_misses_total', label), await metric(server, 'coredns_dnssec_cache_hits_total', label)], [2, 0]);
  // The same RRsets with the name in another case: the canonical form is the same, so is the key.
  await query({ port: server.port() }, 'MIEK.nl', 'MX', { dnssecOk: true });
  assert.deepEqual([await metric(server, 'coredns_dnssec_cache_misses_total', label), await metric(server, 'coredns_dnssec_cache_hits_total', label)], [2, 2]);
  assert.equal(await metric(server, 'coredns_dnssec_cache_entries', { ...label, type: 'signature' }), 2);
  // Without DO nothing is signed or counted.
  await query({ port: server.port() }, 'miek.nl', 'MX');
  assert.equal(await metric(server, 'coredns_dnssec_cache_hits_total', label), 2);
});

test('dnssec: a signed reply too big for UDP is truncated with TC set and arrives whole, signatures included, over TCP', async (t) => {
  const dir = tempDir(t);
  const { key } = miekFiles(dir);
  const records = Array.from({ length: 20 }, (_, i) => `big IN TXT "${'x'.repeat(20)}${i}"`).join('\n');
  writeFileSync(join(dir, 'db.big'), `${dbMiekNL}\n${records}\n`);
  const server = await serve(t, `miek.nl:0 {\n    bind 127.0.0.1\n    dnssec {\n        key file ${key}\n    }\n    file ${join(dir, 'db.big')}\n}\n`);
  const udp = await query({ port: server.port() }, 'big.miek.nl', 'TXT', { dnssecOk: true, udpSize: 512 });
  assert.equal(udp.flag_tc, true);
  const tcp = await query({ port: server.port() }, 'big.miek.nl', 'TXT', { dnssecOk: true, transport: 'tcp' });
  assert.equal(tcp.flag_tc, false);
  assert.deepEqual(section(tcp.answers).filter((line) => line.includes(' RRSIG ')), [sig('big.miek.nl.', 1800, 'TXT', 3)]);
  assert.equal(tcp.answers?.filter((r) => r.type === 'TXT').length, 20);
});

test('dnssec signs replies written as wire bytes: whoami, and forward, which delv validates', async (t) => {
  const dir = tempDir(t);
  const ksk = writeDnssecKey(dir, 'example.org', { ksk: true });
  const whoamiServer = await serve(t, `example.org:0 {\n    bind 127.0.0.1\n    dnssec {\n        key file ${ksk.base}\n    }\n    whoami\n}\n`);
  const reply = await query({ port: whoamiServer.port() }, 'example.org', 'A', { dnssecOk: true });
  // whoami's records are in the additional section, each RRset signed after them.
  assert.deepEqual(section(reply.additionals), [
    'example.org. 0 IN A 127.0.0.1',
    `example.org. 0 IN RRSIG A 13 2 3600 ${ksk.tag} example.org.`,
    `_udp.example.org. 0 IN RRSIG SRV 13 3 3600 ${ksk.tag} example.org.`,
    `_udp.example.org. 0 IN SRV 0 0 ${(reply.additionals?.find((r) => r.type === 'SRV')?.data as { port: number }).port} .`,
  ].sort());
  assert.equal(reply.additionals?.at(-1)?.type, 'OPT');

  // forward hands the upstream's bytes on: an unsigned zone, signed on its way to the client.
  const upstream = await upstreamFor(t, (q) => {
    const name = q.questions[0]!.name.toLowerCase();
    if (name === 'www.example.org' && q.questions[0]!.type === 'A') return [reply_(q, { answers: [rr('www.example.org. 300 IN A 192.0.2.80')] })];
    return [{ ...reply_(q, { rcode: name === 'example.org' ? 0 : 3 }), authorities: [rr('example.org. 300 IN SOA ns.example.org. admin.example.org. 1 7200 3600 1209600 300')] }];
  });
  const server = await serve(t, `example.org:0 {\n    bind 127.0.0.1\n    dnssec {\n        key file ${ksk.base}\n    }\n    forward . ${upstream.address}\n}\n`);
  const results = await Promise.all([['www.example.org.', 'A'], ['nx.example.org.', 'A']].map(([name, type]) => delv(server.port(), name!, type!, [ksk])));
  for (const result of results) assert.ok(result.validated, result.output);
});

test('dnssec below cache: repeats come from the cache, signed, and validate', async (t) => {
  const { key, zone } = miekFiles(tempDir(t));
  const server = await serve(t, `miek.nl:0 {\n    bind 127.0.0.1\n    cache\n    dnssec {\n        key file ${key}\n    }\n    file ${zone}\n}\n`);
  const label = { server: 'dns://127.0.0.1:0' };
  const first = await query({ port: server.port() }, 'a.miek.nl', 'A', { dnssecOk: true });
  const second = await query({ port: server.port() }, 'a.miek.nl', 'A', { dnssecOk: true });
  assert.deepEqual(section(second.answers), section(first.answers));
  assert.equal(await metric(server, 'coredns_cache_hits_total', label), 1);
  // Only the first reply was signed: two RRsets, two misses, no hit.
  assert.deepEqual([await metric(server, 'coredns_dnssec_cache_misses_total', label), await metric(server, 'coredns_dnssec_cache_hits_total', label)], [2, 0]);
  // A client without DO gets its own entry, unsigned.
  assert.deepEqual(section((await query({ port: server.port() }, 'a.miek.nl', 'A')).answers), ['a.miek.nl. 1800 IN A 139.162.196.78']);
  assert.ok((await delv(server.port(), 'a.miek.nl.', 'A', [miekAnchor])).validated);
});

test('dnssec signs a CNAME to a name outside its zones, and only the CNAME (TestSigningCnameOutOfZone)', async (t) => {
  const { key } = miekFiles(tempDir(t));
  backend.table.set('www.miek.nl. A', (req) => ({ ...replyTo(req), answers: [rr('www.miek.nl. 1800 IN CNAME target.example.com.'), rr('target.example.com. 1800 IN A 127.0.0.1')] }));
  const server = await serve(t, `.:0 {\n    bind 127.0.0.1\n    dnssec miek.nl {\n        key file ${key}\n    }\n    backend\n}\n`);
  await check(server.port(), { qname: 'www.miek.nl.', qtype: 'A', do: true, answer: ['www.miek.nl. 1800 IN CNAME target.example.com.', 'target.example.com. 1800 IN A 127.0.0.1', sig('www.miek.nl.', 1800, 'CNAME', 3)] });
});

test('dnssec signs each RRset with the apex of the zone that holds it (TestSigningCnameCrossZone)', async (t) => {
  const dir = tempDir(t);
  const miek = writeDnssecKey(dir, 'miek.nl');
  const org = writeDnssecKey(dir, 'example.org');
  backend.table.set('www.miek.nl. A', (req) => ({ ...replyTo(req), answers: [rr('www.miek.nl. 1800 IN CNAME db.example.org.'), rr('db.example.org. 1800 IN A 127.0.0.1')] }));
  const server = await serve(t, `.:0 {\n    bind 127.0.0.1\n    dnssec miek.nl example.org {\n        key file ${miek.base} ${org.base}\n    }\n    backend\n}\n`);
  // Keys are CSKs: every key signs every RRset, whatever zone it was made for (CoreDNS: "a key
  // created for zone A can be safely used for zone B").
  const reply = await query({ port: server.port() }, 'www.miek.nl', 'A', { dnssecOk: true });
  const sigs = section(reply.answers).filter((line) => line.includes(' RRSIG '));
  assert.deepEqual(sigs, [
    `db.example.org. 1800 IN RRSIG A 13 3 3600 ${miek.tag} example.org.`,
    `db.example.org. 1800 IN RRSIG A 13 3 3600 ${org.tag} example.org.`,
    `www.miek.nl. 1800 IN RRSIG CNAME 13 3 3600 ${miek.tag} miek.nl.`,
    `www.miek.nl. 1800 IN RRSIG CNAME 13 3 3600 ${org.tag} miek.nl.`,
  ].sort());
});

test('dnssec with a KSK and a ZSK signs DNSKEY with the KSK only and everything else with the ZSK only', async (t) => {
  const dir = tempDir(t);
  const { zone } = miekFiles(dir);
  const ksk = writeDnssecKey(dir, 'miek.nl', { ksk: true, algorithm: 15 });
  const zsk = writeDnssecKey(dir, 'miek.nl', { algorithm: 15 });
  const server = await serve(t, `miek.nl:0 {\n    bind 127.0.0.1\n    dnssec {\n        key file ${ksk.base}\n        key file ${zsk.base}\n    }\n    file ${zone}\n}\n`);
  const tags = async (name: string, type: 'DNSKEY' | 'MX' | 'HINFO'): Promise<string[]> => {
    const reply = await query({ port: server.port() }, name, type, { dnssecOk: true });
    return [...(reply.answers ?? []), ...(reply.authorities ?? [])].flatMap((r) => (r.type === 'RRSIG' ? [`${r.data.typeCovered} ${r.data.keyTag}`] : [])).sort();
  };
  assert.deepEqual(await tags('miek.nl', 'DNSKEY'), [`DNSKEY ${ksk.tag}`]);
  assert.deepEqual(await tags('miek.nl', 'MX'), [`MX ${zsk.tag}`, `NS ${zsk.tag}`]);
  assert.deepEqual(await tags('miek.nl', 'HINFO'), [`NSEC ${zsk.tag}`, `SOA ${zsk.tag}`]);
});

test('dnssec with two CSKs signs every RRset with both (TestZoneSigningDouble)', async (t) => {
  const dir = tempDir(t);
  const { zone } = miekFiles(dir);
  const one = writeDnssecKey(dir, 'miek.nl', { ksk: true });
  const two = writeDnssecKey(dir, 'miek.nl', { ksk: true, algorithm: 15 });
  const server = await serve(t, `miek.nl:0 {\n    bind 127.0.0.1\n    dnssec {\n        key file ${one.base} ${two.base}\n    }\n    file ${zone}\n}\n`);
  const reply = await query({ port: server.port() }, 'miek.nl', 'MX', { dnssecOk: true });
  assert.equal(reply.answers?.filter((r) => r.type === 'RRSIG').length, 2);
  assert.deepEqual(reply.answers?.flatMap((r) => (r.type === 'RRSIG' ? [r.data.keyTag] : [])).sort(), [one.tag, two.tag].sort());
  assert.equal(reply.authorities?.filter((r) => r.type === 'RRSIG').length, 2);
});

test('dnssec answers an NSEC query for a name without one with the black lie itself (TestBlackLiesNsec)', async (t) => {
  const { key, zone } = miekFiles(tempDir(t));
  const server = await serve(t, `miek.nl:0 {\n    bind 127.0.0.1\n    dnssec {\n        key file ${key}\n    }\n    file ${zone}\n}\n`);
  await check(server.port(), { qname: 'miek.nl.', qtype: 'NSEC', do: true, answer: ['miek.nl. 1800 IN NSEC \\000.miek.nl. A NS SOA HINFO MX TXT AAAA LOC SRV CERT SSHFP RRSIG NSEC DNSKEY TLSA HIP TYPE61 SPF', sig('miek.nl.', 1800, 'NSEC', 2)] });
  await check(server.port(), { qname: 'nx.miek.nl.', qtype: 'NSEC', do: true, answer: [`nx.miek.nl. 1800 IN NSEC \\000.nx.miek.nl. A ${zoneTypes}`, sig('nx.miek.nl.', 1800, 'NSEC', 3)] });
});
