/**
 * CoreDNS plugin/etcd lookup_test.go, multi_test.go, other_test.go, group_test.go and
 * cname_test.go over real sockets: the services written to a real etcd (Debian's etcd-server,
 * started here on a loopback high port), a server with the real plugin, queries over UDP and TCP.
 *
 * CoreDNS's tables write the SOA of negative answers with zeros or made-up timers: its
 * `test.Section` compares only the SOA's owner and name server. These tables carry the SOA the
 * plugin sends (CoreDNS's `plugin.SOA`), the serial (the current time) aside.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { answerWith, checkCases, query, rcodeOf, startEtcd } from '@foghorn/testkit';
import type { Case, TestEtcd } from '@foghorn/testkit';
import { backend, serveEtcd, soaOf, writeServices } from './helpers.js';
import type { TestService } from './helpers.js';

let etcd: TestEtcd;
before(async () => {
  etcd = await startEtcd();
});
after(() => etcd.close());

const check = { soaSerial: false, transports: ['udp', 'tcp'] as const, flags: { aa: true } };
const zones = 'skydns.test skydns_extra.test skydns_zonea.test skydns_zoneb.test skydns_zonec.test skydns_zoned.test in-addr.arpa';

/** Writes `services`, serves `zones` from them, checks `cases`, and deletes the keys again. */
async function table(t: { after(fn: () => unknown): void }, services: readonly TestService[], cases: readonly Case[], options: { zones?: string; tail?: string } = {}): Promise<void> {
  const keys = await writeServices(etcd, services);
  t.after(async () => {
    for (const key of keys) await etcd.delete(key);
  });
  const server = await serveEtcd(t, `etcd ${options.zones ?? zones} {\n  endpoint ${etcd.url}\n }`, options.tail);
  await checkCases({ port: server.port() }, cases, check);
}

// lookup_test.go: services (keys are DNS names, written at their etcd paths).
const services: TestService[] = [
  { host: 'dev.server1', port: 8080, key: 'a.server1.dev.region1.skydns.test.' },
  { host: '10.0.0.1', port: 8080, key: 'a.server1.prod.region1.skydns.test.' },
  { host: '10.0.0.2', port: 8080, key: 'b.server1.prod.region1.skydns.test.' },
  { host: '::1', port: 8080, key: 'b.server6.prod.region1.skydns.test.' },
  // TXT record in server1.
  { text: 'sometext', key: 'a.txt.server1.prod.region1.skydns.test.' },
  { text: 'moretext', key: 'b.txt.server1.prod.region1.skydns.test.' },
  // Unresolvable internal name.
  { host: 'unresolvable.skydns.test', key: 'cname.prod.region1.skydns.test.' },
  // Priority.
  { host: 'priority.server1', priority: 333, port: 8080, key: 'priority.skydns.test.' },
  // Subdomain.
  { host: 'sub.server1', port: 0, key: 'a.sub.region1.skydns.test.' },
  { host: 'sub.server2', port: 80, key: 'b.sub.region1.skydns.test.' },
  { host: '10.0.0.1', port: 8080, key: 'c.sub.region1.skydns.test.' },
  // TargetStrip.
  { host: '10.0.0.1', port: 8080, key: 'a.targetstrip.skydns.test.', targetstrip: 1 },
  // CNAME loop.
  { host: 'a.cname.skydns.test', key: 'b.cname.skydns.test.' },
  { host: 'b.cname.skydns.test', key: 'a.cname.skydns.test.' },
  // Name servers.
  { host: '10.0.0.2', key: 'a.ns.dns.skydns.test.' },
  { host: '10.0.0.3', key: 'b.ns.dns.skydns.test.' },
  { host: '10.0.0.4', key: 'ns1.c.ns.dns.skydns.test.', targetstrip: 1 },
  { host: '10.0.0.5', key: 'ns2.c.ns.dns.skydns.test.', targetstrip: 1 },
  // Zone name as A record (basic, return all).
  { host: '10.0.0.2', key: 'x.skydns_zonea.test.' },
  { host: '10.0.0.3', key: 'y.skydns_zonea.test.' },
  // Zone name as A (single entry).
  { host: '10.0.0.2', key: 'x.skydns_zoneb.test.' },
  { host: '10.0.0.3', key: 'y.skydns_zoneb.test.' },
  { host: '10.0.0.4', key: 'apex.dns.skydns_zoneb.test.' },
  // A zone record (rr multiple entries).
  { host: '10.0.0.2', key: 'x.skydns_zonec.test.' },
  { host: '10.0.0.3', key: 'y.skydns_zonec.test.' },
  { host: '10.0.0.4', key: 'a1.apex.dns.skydns_zonec.test.' },
  { host: '10.0.0.5', key: 'a2.apex.dns.skydns_zonec.test.' },
  // AAAA zone record (rr multiple entries mixed with A).
  { host: '10.0.0.2', key: 'x.skydns_zoned.test.' },
  { host: '10.0.0.3', key: 'y.skydns_zoned.test.' },
  { host: '10.0.0.4', key: 'a1.apex.dns.skydns_zoned.test.' },
  { host: '10.0.0.5', key: 'a2.apex.dns.skydns_zoned.test.' },
  { host: '2003::8:1', key: 'a3.apex.dns.skydns_zoned.test.' },
  { host: '2003::8:2', key: 'a4.apex.dns.skydns_zoned.test.' },
  // Reverse.
  { host: 'reverse.example.com', key: '1.0.0.10.in-addr.arpa.' },
];

const soa = soaOf('skydns.test.');
const wildcardExtra = [
  'a.server1.prod.region1.skydns.test. 300 IN A 10.0.0.1',
  'b.server1.prod.region1.skydns.test. 300 IN A 10.0.0.2',
  'b.server6.prod.region1.skydns.test. 300 IN AAAA ::1',
];

const lookupCases: Case[] = [
  // SRV, and its case preserved.
  { qname: 'a.server1.dev.region1.skydns.test.', qtype: 'SRV', answer: ['a.server1.dev.region1.skydns.test. 300 IN SRV 10 100 8080 dev.server1.'] },
  { qname: 'a.SERVer1.dEv.region1.skydns.tEst.', qtype: 'SRV', answer: ['a.SERVer1.dEv.region1.skydns.tEst. 300 IN SRV 10 100 8080 dev.server1.'] },
  // NXDOMAIN.
  { qname: 'doesnotexist.skydns.test.', qtype: 'A', rcode: 'NXDOMAIN', ns: [soa] },
  // A.
  { qname: 'a.server1.prod.region1.skydns.test.', qtype: 'A', answer: ['a.server1.prod.region1.skydns.test. 300 IN A 10.0.0.1'] },
  // SRV where the target is an address.
  {
    qname: 'a.server1.prod.region1.skydns.test.', qtype: 'SRV',
    answer: ['a.server1.prod.region1.skydns.test. 300 IN SRV 10 100 8080 a.server1.prod.region1.skydns.test.'],
    extra: ['a.server1.prod.region1.skydns.test. 300 IN A 10.0.0.1'],
  },
  // AAAA.
  { qname: 'b.server6.prod.region1.skydns.test.', qtype: 'AAAA', answer: ['b.server6.prod.region1.skydns.test. 300 IN AAAA ::1'] },
  // Multiple A records.
  { qname: 'server1.prod.region1.skydns.test.', qtype: 'A', answer: ['server1.prod.region1.skydns.test. 300 IN A 10.0.0.1', 'server1.prod.region1.skydns.test. 300 IN A 10.0.0.2'] },
  // Priority.
  { qname: 'priority.skydns.test.', qtype: 'SRV', answer: ['priority.skydns.test. 300 IN SRV 333 100 8080 priority.server1.'] },
  // Subdomain.
  {
    qname: 'sub.region1.skydns.test.', qtype: 'SRV',
    answer: [
      'sub.region1.skydns.test. 300 IN SRV 10 33 0 sub.server1.',
      'sub.region1.skydns.test. 300 IN SRV 10 33 80 sub.server2.',
      'sub.region1.skydns.test. 300 IN SRV 10 33 8080 c.sub.region1.skydns.test.',
    ],
    extra: ['c.sub.region1.skydns.test. 300 IN A 10.0.0.1'],
  },
  // SRV TargetStrip.
  { qname: 'targetstrip.skydns.test.', qtype: 'SRV', answer: ['targetstrip.skydns.test. 300 IN SRV 10 100 8080 targetstrip.skydns.test.'], extra: ['targetstrip.skydns.test. 300 IN A 10.0.0.1'] },
  // CNAME to an unresolvable internal name.
  { qname: 'cname.prod.region1.skydns.test.', qtype: 'A', ns: [soa] },
  // TXT.
  { qname: 'txt.server1.prod.region1.skydns.test.', qtype: 'TXT', answer: ['txt.server1.prod.region1.skydns.test. 300 IN TXT "moretext"', 'txt.server1.prod.region1.skydns.test. 300 IN TXT "sometext"'] },
  // Wildcards.
  {
    qname: '*.region1.skydns.test.', qtype: 'SRV',
    answer: [
      '*.region1.skydns.test. 300 IN SRV 10 12 0 sub.server1.',
      '*.region1.skydns.test. 300 IN SRV 10 12 0 unresolvable.skydns.test.',
      '*.region1.skydns.test. 300 IN SRV 10 12 80 sub.server2.',
      '*.region1.skydns.test. 300 IN SRV 10 12 8080 a.server1.prod.region1.skydns.test.',
      '*.region1.skydns.test. 300 IN SRV 10 12 8080 b.server1.prod.region1.skydns.test.',
      '*.region1.skydns.test. 300 IN SRV 10 12 8080 b.server6.prod.region1.skydns.test.',
      '*.region1.skydns.test. 300 IN SRV 10 12 8080 c.sub.region1.skydns.test.',
      '*.region1.skydns.test. 300 IN SRV 10 12 8080 dev.server1.',
    ],
    extra: [...wildcardExtra, 'c.sub.region1.skydns.test. 300 IN A 10.0.0.1'],
  },
  ...['prod.*.skydns.test.', 'prod.any.skydns.test.'].map((qname): Case => ({
    qname, qtype: 'SRV',
    answer: [
      `${qname} 300 IN SRV 10 25 0 unresolvable.skydns.test.`,
      `${qname} 300 IN SRV 10 25 8080 a.server1.prod.region1.skydns.test.`,
      `${qname} 300 IN SRV 10 25 8080 b.server1.prod.region1.skydns.test.`,
      `${qname} 300 IN SRV 10 25 8080 b.server6.prod.region1.skydns.test.`,
    ],
    extra: wildcardExtra,
  })),
  // CNAME loop detection.
  { qname: 'a.cname.skydns.test.', qtype: 'A', ns: [soa] },
  // NODATA.
  { qname: 'a.server1.dev.region1.skydns.test.', qtype: 'TXT', ns: [soa] },
  { qname: 'a.server1.dev.region1.skydns.test.', qtype: 'HINFO', ns: [soa] },
  // NXDOMAIN.
  { qname: 'a.server1.nonexistent.region1.skydns.test.', qtype: 'HINFO', rcode: 'NXDOMAIN', ns: [soa] },
  { qname: 'skydns.test.', qtype: 'SOA', answer: [soa] },
  // NS.
  {
    qname: 'skydns.test.', qtype: 'NS',
    answer: ['skydns.test. 300 IN NS a.ns.dns.skydns.test.', 'skydns.test. 300 IN NS b.ns.dns.skydns.test.', 'skydns.test. 300 IN NS c.ns.dns.skydns.test.'],
    extra: ['a.ns.dns.skydns.test. 300 IN A 10.0.0.2', 'b.ns.dns.skydns.test. 300 IN A 10.0.0.3', 'c.ns.dns.skydns.test. 300 IN A 10.0.0.4', 'c.ns.dns.skydns.test. 300 IN A 10.0.0.5'],
  },
  { qname: 'a.skydns.test.', qtype: 'NS', rcode: 'NXDOMAIN', ns: [soa] },
  // A records of the NS names.
  { qname: 'ns.dns.skydns.test.', qtype: 'A', answer: ['10.0.0.2', '10.0.0.3', '10.0.0.4', '10.0.0.5'].map((a) => `ns.dns.skydns.test. 300 IN A ${a}`) },
  { qname: 'skydns_extra.test.', qtype: 'SOA', answer: [soaOf('skydns_extra.test.')] },
  // The zone name as an A record: everything below it, or the apex.dns entries.
  { qname: 'skydns_zonea.test.', qtype: 'A', answer: ['skydns_zonea.test. 300 IN A 10.0.0.2', 'skydns_zonea.test. 300 IN A 10.0.0.3'] },
  { qname: 'skydns_zoneb.test.', qtype: 'A', answer: ['skydns_zoneb.test. 300 IN A 10.0.0.4'] },
  { qname: 'skydns_zonec.test.', qtype: 'A', answer: ['skydns_zonec.test. 300 IN A 10.0.0.4', 'skydns_zonec.test. 300 IN A 10.0.0.5'] },
  { qname: 'skydns_zoned.test.', qtype: 'A', answer: ['skydns_zoned.test. 300 IN A 10.0.0.4', 'skydns_zoned.test. 300 IN A 10.0.0.5'] },
  { qname: 'skydns_zoned.test.', qtype: 'AAAA', answer: ['skydns_zoned.test. 300 IN AAAA 2003::8:1', 'skydns_zoned.test. 300 IN AAAA 2003::8:2'] },
  // Reverse.
  { qname: '1.0.0.10.in-addr.arpa.', qtype: 'PTR', answer: ['1.0.0.10.in-addr.arpa. 300 IN PTR reverse.example.com.'] },
];

test('lookup_test.go: SRV, A, AAAA, TXT, NS, SOA, PTR, wildcards, apex records, NODATA and NXDOMAIN', async (t) => {
  await table(t, services, lookupCases);
});

test('multi_test.go: several zones; a name outside them goes to next, and with no next it is SERVFAIL', async (t) => {
  const multi: TestService[] = [
    { host: 'dev.server1', port: 8080, key: 'a.server1.dev.region1.skydns.test.' },
    { host: 'dev.server1', port: 8080, key: 'a.server1.dev.region1.miek.nl.' },
    { host: 'dev.server1', port: 8080, key: 'a.server1.dev.region1.example.org.' },
  ];
  await table(t, multi, [
    { qname: 'a.server1.dev.region1.skydns.test.', qtype: 'SRV', answer: ['a.server1.dev.region1.skydns.test. 300 IN SRV 10 100 8080 dev.server1.'] },
    { qname: 'a.server1.dev.region1.miek.nl.', qtype: 'SRV', answer: ['a.server1.dev.region1.miek.nl. 300 IN SRV 10 100 8080 dev.server1.'] },
  ], { zones: 'skydns.test miek.nl' });
  const server = await serveEtcd(t, `etcd skydns.test miek.nl {\n  endpoint ${etcd.url}\n }`);
  assert.equal(rcodeOf(await query({ port: server.port() }, 'a.server1.dev.region1.example.org.', 'SRV')), 'SERVFAIL');
});

test('other_test.go: MX with address and name targets, TXT sizes, one A for two ports of an address', async (t) => {
  const other: TestService[] = [
    { host: 'dev.server1', port: 8080, key: 'a.server1.dev.region1.skydns.test.' },
    { host: 'mx.skydns.test', priority: 50, mail: true, key: 'a.mail.skydns.test.' },
    { host: 'mx.miek.nl', priority: 50, mail: true, key: 'b.mail.skydns.test.' },
    { host: 'a.ipaddr.skydns.test', priority: 30, mail: true, key: 'a.mx.skydns.test.' },
    { host: 'a.ipaddr.skydns.test', mail: true, key: 'a.mx2.skydns.test.' },
    { host: 'b.ipaddr.skydns.test', mail: true, key: 'b.mx2.skydns.test.' },
    { host: 'a.ipaddr.skydns.test', priority: 20, mail: true, key: 'a.mx3.skydns.test.' },
    { host: 'a.ipaddr.skydns.test', priority: 30, mail: true, key: 'b.mx3.skydns.test.' },
    { host: '172.16.1.1', key: 'a.ipaddr.skydns.test.' },
    { host: '172.16.1.2', key: 'b.ipaddr.skydns.test.' },
    { text: 'abc', key: 'a1.txt.skydns.test.' },
    { text: 'abc abc', key: 'a2.txt.skydns.test.' },
    { text: '0'.repeat(400), key: 'large400.skydns.test.' },
    { text: '0'.repeat(600), key: 'large600.skydns.test.' },
    { text: '0'.repeat(2000), key: 'large2000.skydns.test.' },
    { host: '10.11.11.10', key: 'http.multiport.http.skydns.test.', port: 80 },
    { host: '10.11.11.10', key: 'https.multiport.http.skydns.test.', port: 443 },
  ];
  await table(t, other, [
    // NODATA: not a mail service.
    { qname: 'a.server1.dev.region1.skydns.test.', qtype: 'MX', ns: [soa] },
    {
      qname: 'a.mail.skydns.test.', qtype: 'MX', answer: ['a.mail.skydns.test. 300 IN MX 50 mx.skydns.test.'],
      extra: ['a.ipaddr.skydns.test. 300 IN A 172.16.1.1', 'mx.skydns.test. 300 IN CNAME a.ipaddr.skydns.test.'],
    },
    {
      qname: 'mx2.skydns.test.', qtype: 'MX', answer: ['mx2.skydns.test. 300 IN MX 10 a.ipaddr.skydns.test.', 'mx2.skydns.test. 300 IN MX 10 b.ipaddr.skydns.test.'],
      extra: ['a.ipaddr.skydns.test. 300 IN A 172.16.1.1', 'b.ipaddr.skydns.test. 300 IN A 172.16.1.2'],
    },
    // Different priorities, one host.
    { qname: 'mx3.skydns.test.', qtype: 'MX', answer: ['mx3.skydns.test. 300 IN MX 20 a.ipaddr.skydns.test.', 'mx3.skydns.test. 300 IN MX 30 a.ipaddr.skydns.test.'], extra: ['a.ipaddr.skydns.test. 300 IN A 172.16.1.1'] },
    { qname: 'a1.txt.skydns.test.', qtype: 'TXT', answer: ['a1.txt.skydns.test. 300 IN TXT "abc"'] },
    { qname: 'a2.txt.skydns.test.', qtype: 'TXT', answer: ['a2.txt.skydns.test. 300 IN TXT "abc abc"'] },
    { qname: 'large400.skydns.test.', qtype: 'TXT', answer: [`large400.skydns.test. 300 IN TXT "${'0'.repeat(255)}" "${'0'.repeat(145)}"`] },
    { qname: 'multiport.http.skydns.test.', qtype: 'A', answer: ['multiport.http.skydns.test. 300 IN A 10.11.11.10'] },
  ]);
});

test('group_test.go: the shortest keys\' group selects the services answered', async (t) => {
  const grouped: TestService[] = [
    { host: '127.0.0.1', key: 'a.dom.skydns.test.', group: 'g1' },
    { host: '127.0.0.2', key: 'b.sub.dom.skydns.test.', group: 'g1' },
    { host: '127.0.0.1', key: 'a.dom2.skydns.test.', group: 'g1' },
    { host: '127.0.0.2', key: 'b.sub.dom2.skydns.test.', group: '' },
    { host: '127.0.0.1', key: 'a.dom1.skydns.test.', group: 'g1' },
    { host: '127.0.0.2', key: 'b.sub.dom1.skydns.test.', group: 'g2' },
    { text: 'foo', key: 'a.dom3.skydns.test.', group: 'g1' },
    { text: 'bar', key: 'b.sub.dom3.skydns.test.', group: 'g1' },
  ];
  await table(t, grouped, [
    { qname: 'dom.skydns.test.', qtype: 'A', answer: ['dom.skydns.test. 300 IN A 127.0.0.1', 'dom.skydns.test. 300 IN A 127.0.0.2'] },
    // One has a group, the other not: the one without is always in.
    { qname: 'dom2.skydns.test.', qtype: 'A', answer: ['dom2.skydns.test. 300 IN A 127.0.0.1', 'dom2.skydns.test. 300 IN A 127.0.0.2'] },
    // The groups differ.
    { qname: 'dom1.skydns.test.', qtype: 'A', answer: ['dom1.skydns.test. 300 IN A 127.0.0.1'] },
    { qname: 'dom3.skydns.test.', qtype: 'TXT', answer: ['dom3.skydns.test. 300 IN TXT "bar"', 'dom3.skydns.test. 300 IN TXT "foo"'] },
  ]);
});

test('cname_test.go: CNAME chains inside the zone, in order', async (t) => {
  const chains: TestService[] = [
    { host: 'cname1.region2.skydns.test', key: 'a.server1.dev.region1.skydns.test.' },
    { host: 'cname2.region2.skydns.test', key: 'cname1.region2.skydns.test.' },
    { host: 'cname3.region2.skydns.test', key: 'cname2.region2.skydns.test.' },
    { host: 'cname4.region2.skydns.test', key: 'cname3.region2.skydns.test.' },
    { host: 'cname5.region2.skydns.test', key: 'cname4.region2.skydns.test.' },
    { host: 'cname6.region2.skydns.test', key: 'cname5.region2.skydns.test.' },
    { host: 'endpoint.region2.skydns.test', key: 'cname6.region2.skydns.test.' },
    { host: '10.240.0.1', key: 'endpoint.region2.skydns.test.' },
    { host: 'mainendpoint.region2.skydns.test', key: 'region2.skydns.test.' },
    { host: 'cname2.region3.skydns.test', key: 'cname3.region3.skydns.test.' },
    { host: 'cname1.region3.skydns.test', key: 'cname2.region3.skydns.test.' },
    { host: 'endpoint.region3.skydns.test', key: 'cname1.region3.skydns.test.' },
    { host: '', key: 'endpoint.region3.skydns.test.', text: 'SOME-RECORD-TEXT' },
  ];
  await table(t, chains, [
    {
      qname: 'a.server1.dev.region1.skydns.test.', qtype: 'SRV', answer: ['a.server1.dev.region1.skydns.test. 300 IN SRV 10 100 0 cname1.region2.skydns.test.'],
      extra: [
        'cname1.region2.skydns.test. 300 IN CNAME cname2.region2.skydns.test.',
        'cname2.region2.skydns.test. 300 IN CNAME cname3.region2.skydns.test.',
        'cname3.region2.skydns.test. 300 IN CNAME cname4.region2.skydns.test.',
        'cname4.region2.skydns.test. 300 IN CNAME cname5.region2.skydns.test.',
        'cname5.region2.skydns.test. 300 IN CNAME cname6.region2.skydns.test.',
        'cname6.region2.skydns.test. 300 IN CNAME endpoint.region2.skydns.test.',
        'endpoint.region2.skydns.test. 300 IN A 10.240.0.1',
      ],
    },
    { qname: 'region2.skydns.test.', qtype: 'CNAME', answer: ['region2.skydns.test. 300 IN CNAME mainendpoint.region2.skydns.test.'] },
    { qname: 'endpoint.region3.skydns.test.', qtype: 'CNAME', ns: [soa] },
    {
      qname: 'cname3.region3.skydns.test.', qtype: 'TXT', ordered: true,
      answer: [
        'cname3.region3.skydns.test. 300 IN CNAME cname2.region3.skydns.test.',
        'cname2.region3.skydns.test. 300 IN CNAME cname1.region3.skydns.test.',
        'cname1.region3.skydns.test. 300 IN CNAME endpoint.region3.skydns.test.',
        'endpoint.region3.skydns.test. 300 IN TXT "SOME-RECORD-TEXT"',
      ],
    },
  ]);
});

test('fallthrough passes NXDOMAIN names on; NODATA stays', async (t) => {
  const keys = await writeServices(etcd, [{ host: '10.0.0.1', key: 'a.fall.skydns.test.' }]);
  t.after(async () => {
    for (const key of keys) await etcd.delete(key);
  });
  backend.table.set('nope.skydns.test. A', answerWith('nope.skydns.test. 5 IN A 192.0.2.99'));
  const server = await serveEtcd(t, `etcd skydns.test {\n  endpoint ${etcd.url}\n  fallthrough\n }`, 'backend');
  const target = { port: server.port() };
  assert.deepEqual((await query(target, 'nope.skydns.test.', 'A')).answers?.map((r) => (r as { data?: unknown }).data), ['192.0.2.99']);
  assert.equal((await query(target, 'a.fall.skydns.test.', 'AAAA')).authorities?.[0]?.type, 'SOA');
  const narrow = await serveEtcd(t, `etcd skydns.test {\n  endpoint ${etcd.url}\n  fallthrough other.test\n }`, 'backend');
  assert.equal(rcodeOf(await query({ port: narrow.port() }, 'nope.skydns.test.', 'A')), 'NXDOMAIN');
});

test('a CNAME out of the zone is completed by the rest of the chain; a leased key\'s TTL is its time left, clamped', async (t) => {
  const lease = await etcd.grantLease(100);
  await etcd.put('/skydns/test/skydns/leased', JSON.stringify({ host: '10.0.0.9' }), { lease });
  await etcd.put('/skydns/test/skydns/short', JSON.stringify({ host: '10.0.0.10', ttl: 20 }), { lease });
  await etcd.put('/skydns/test/skydns/out', JSON.stringify({ host: 'target.example.' }));
  t.after(async () => {
    for (const key of ['leased', 'short', 'out']) await etcd.delete(`/skydns/test/skydns/${key}`);
  });
  const server = await serveEtcd(t, `etcd skydns.test {\n  endpoint ${etcd.url}\n }`);
  const ttl = (await query({ port: server.port() }, 'leased.skydns.test.', 'A')).answers?.[0] as { ttl: number } | undefined;
  assert.ok(ttl !== undefined && ttl.ttl >= 95 && ttl.ttl <= 100, `lease TTL ${ttl?.ttl}`);
  assert.equal(((await query({ port: server.port() }, 'short.skydns.test.', 'A')).answers?.[0] as { ttl: number }).ttl, 20);
  const clamped = await serveEtcd(t, `etcd skydns.test {\n  endpoint ${etcd.url}\n  min-lease-ttl 2m\n }`);
  assert.equal(((await query({ port: clamped.port() }, 'leased.skydns.test.', 'A')).answers?.[0] as { ttl: number }).ttl, 120);
  // The chain after etcd knows target.example.
  backend.table.set('target.example. TXT', answerWith('target.example. 60 IN TXT "outside"'));
  const chained = await serveEtcd(t, `etcd skydns.test {\n  endpoint ${etcd.url}\n }`, 'backend');
  await checkCases({ port: chained.port() }, [
    { qname: 'out.skydns.test.', qtype: 'TXT', ordered: true, answer: ['out.skydns.test. 300 IN CNAME target.example.', 'target.example. 60 IN TXT "outside"'] },
  ]);
});

test('a value that is not a SkyDNS service is SERVFAIL with the SOA, and the error names the key', async (t) => {
  await etcd.put('/skydns/test/skydns/broken/a', '{"host": "10.0.0.1", "port": "80"}');
  await etcd.put('/skydns/test/skydns/notjson', 'host=10.0.0.1');
  t.after(async () => {
    await etcd.delete('/skydns/test/skydns/broken/a');
    await etcd.delete('/skydns/test/skydns/notjson');
  });
  const server = await serveEtcd(t, `etcd skydns.test {\n  endpoint ${etcd.url}\n }`);
  await checkCases({ port: server.port() }, [
    { qname: 'broken.skydns.test.', qtype: 'A', rcode: 'SERVFAIL', ns: [soa] },
    { qname: 'notjson.skydns.test.', qtype: 'A', rcode: 'SERVFAIL', ns: [soa] },
  ], check);
  assert.ok(server.lines.includes('[ERROR] plugin/errors: 2 broken.skydns.test. A: plugin/etcd: /skydns/test/skydns/broken/a: json: cannot unmarshal string into Go struct field Service.port of type int'), server.lines.join('\n'));
  assert.ok(server.lines.some((line) => line.startsWith('[ERROR] plugin/errors: 2 notjson.skydns.test. A: plugin/etcd: /skydns/test/skydns/notjson: ')), server.lines.join('\n'));
});
