/**
 * *secondary* against a real primary, Knot DNS started by the test: SERVFAIL before the first
 * transfer, the transferred zone answered as *file* answers it, a serial bump at the primary
 * arriving by NOTIFY, NOTIFY from strangers dropped, and the zone transferred on through
 * *transfer* to a second secondary.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import dnsPacket from 'dns-packet';
import { OPCODE_NOTIFY } from '@foghorn/core';
import { checkCases, decodeReply, directivesOf, formatRr, eventually, freeDnsPort, query, rcodeOf, startKnot, startServer, udpExchange } from '@foghorn/testkit';
import type { Case } from '@foghorn/testkit';
import transfer from '@foghorn/plugin-transfer';
import secondary from '@foghorn/plugin-secondary';

const directives = directivesOf(transfer, secondary);

function zoneText(serial: number, www = '192.0.2.80'): string {
  return [
    '$ORIGIN example.org.',
    '$TTL 3600',
    `@ SOA ns1 hostmaster ${serial} 7200 3600 1209600 300`,
    '@ NS ns1',
    '@ NS ns2.example.net.',
    '@ MX 10 mail',
    'ns1 A 192.0.2.53',
    'mail A 192.0.2.25',
    `www A ${www}`,
    'alias CNAME www',
    '*.wild TXT "wildcard"',
    'sub NS ns.sub',
    'ns.sub A 192.0.2.54',
    '',
  ].join('\n');
}

const soa = (serial: number): string => `example.org. 3600 IN SOA ns1.example.org. hostmaster.example.org. ${serial} 7200 3600 1209600 300`;
const apexNs = ['example.org. 3600 IN NS ns1.example.org.', 'example.org. 3600 IN NS ns2.example.net.'];

/** The transferred zone answered as *file* answers it: CoreDNS's lookup rules, authoritative. */
const cases: Case[] = [
  { qname: 'www.example.org.', qtype: 'A', answer: ['www.example.org. 3600 IN A 192.0.2.80'], ns: apexNs },
  { qname: 'alias.example.org.', qtype: 'A', answer: ['alias.example.org. 3600 IN CNAME www.example.org.', 'www.example.org. 3600 IN A 192.0.2.80'], ns: apexNs },
  { qname: 'example.org.', qtype: 'MX', answer: ['example.org. 3600 IN MX 10 mail.example.org.'], ns: apexNs, extra: ['mail.example.org. 3600 IN A 192.0.2.25'] },
  { qname: 'example.org.', qtype: 'SOA', answer: [soa(1)], ns: apexNs },
  { qname: 'a.wild.example.org.', qtype: 'TXT', answer: ['a.wild.example.org. 3600 IN TXT "wildcard"'], ns: apexNs },
  { qname: 'nope.example.org.', qtype: 'A', rcode: 'NXDOMAIN', ns: [soa(1)] },
  { qname: 'www.example.org.', qtype: 'AAAA', ns: [soa(1)] },
  { qname: 'host.sub.example.org.', qtype: 'A', flags: { aa: false }, ns: ['sub.example.org. 3600 IN NS ns.sub.example.org.'], extra: ['ns.sub.example.org. 3600 IN A 192.0.2.54'] },
];

test('a secondary zone is SERVFAIL until its first transfer, then answered from the primary\'s data', async (t) => {
  const knotPort = await freeDnsPort();
  const server = await startServer(`example.org:0 {\n secondary {\n  transfer from 127.0.0.1:${knotPort}\n }\n}\n`, { directives });
  t.after(() => server.close());
  const target = { port: server.port() };
  // Nothing listens at the primary's address yet: the zone has no data.
  assert.equal(rcodeOf(await query(target, 'www.example.org', 'A')), 'SERVFAIL');
  await eventually(() => server.lines.some((line) => line.includes("All 'example.org.' masters failed to transfer")), 5000);

  const knot = await startKnot({ port: knotPort, zones: { 'example.org.': zoneText(1) } });
  t.after(() => knot.close());
  // The initial transfer retries with a doubling backoff; it finds the primary within seconds.
  await eventually(async () => assert.equal(rcodeOf(await query(target, 'www.example.org', 'A')), 'NOERROR'), 15_000);
  await checkCases(target, cases, { transports: ['udp', 'tcp'], flags: { aa: true } });
  assert.ok(server.lines.includes(`[INFO] plugin/file: Transferred: example.org. from 127.0.0.1:${knotPort}`), server.lines.join('\n'));
  // The failure was logged once, though the transfer was tried several times.
  assert.equal(server.lines.filter((line) => line.includes('masters failed to transfer')).length, 1, server.lines.join('\n'));
});

test('a serial bump at the primary reaches the secondary by NOTIFY, long before the refresh', async (t) => {
  const port = await freeDnsPort();
  const knot = await startKnot({ zones: { 'example.org.': zoneText(1) }, notify: [`127.0.0.1:${port}`] });
  t.after(() => knot.close());
  const server = await startServer(`example.org:${port} {\n secondary {\n  transfer from ${knot.address}\n }\n}\n`, { directives });
  t.after(() => server.close());
  const target = { port };
  await eventually(async () => assert.equal(rcodeOf(await query(target, 'www.example.org', 'A')), 'NOERROR'), 15_000);

  // Refresh is 7200 s: only the NOTIFY Knot sends after the reload can bring serial 2 in.
  await knot.setZone('example.org.', zoneText(2, '192.0.2.81'));
  await eventually(async () => {
    const reply = await query(target, 'www.example.org', 'A');
    assert.deepEqual(reply.answers?.map(formatRr), ['www.example.org. 3600 IN A 192.0.2.81']);
  }, 10_000);
  assert.ok(server.lines.some((line) => line.startsWith('[INFO] plugin/file: Notify from 127.0.0.1 for example.org.: checking transfer')), server.lines.join('\n'));
});

test('NOTIFY from an address that is not a primary is dropped without an answer', async (t) => {
  const knot = await startKnot({ zones: { 'example.org.': zoneText(1) } });
  t.after(() => knot.close());
  const server = await startServer(`example.org:0 {\n secondary {\n  transfer from ${knot.address}\n }\n}\n`, { directives });
  t.after(() => server.close());
  const target = { port: server.port() };
  await eventually(async () => assert.equal(rcodeOf(await query(target, 'www.example.org', 'A')), 'NOERROR'), 15_000);
  const notify = dnsPacket.encode({ type: 'query', id: 7, flags: (OPCODE_NOTIFY << 11) | dnsPacket.AUTHORITATIVE_ANSWER, questions: [{ name: 'example.org', type: 'SOA', class: 'IN' }] });
  // From 127.0.0.2, which is not the primary (127.0.0.1).
  assert.equal(await udpExchange({ port: target.port, source: '127.0.0.2' }, notify, 500), null);
  assert.ok(server.lines.includes('[INFO] plugin/file: Dropping notify from 127.0.0.2 for example.org.'), server.lines.join('\n'));
  // From the primary's address it is acknowledged: same ID, opcode NOTIFY, AA.
  const ack = await udpExchange({ port: target.port }, notify, 2000);
  assert.ok(ack !== null);
  const reply = decodeReply(ack);
  assert.equal(reply.id, 7);
  assert.equal(((reply.flags ?? 0) >> 11) & 0xf, OPCODE_NOTIFY);
  assert.equal(reply.flag_aa, true);
});

test('transfer re-exports a secondary zone: a second secondary follows the first by NOTIFY', async (t) => {
  // Knot → first (secondary + transfer to the second) → second.
  const secondPort = await freeDnsPort();
  const firstPort = await freeDnsPort();
  const knot = await startKnot({ zones: { 'example.org.': zoneText(1) }, notify: [`127.0.0.1:${firstPort}`] });
  t.after(() => knot.close());
  const first = await startServer(`example.org:${firstPort} {\n secondary {\n  transfer from ${knot.address}\n }\n transfer {\n  to 127.0.0.1:${secondPort}\n }\n}\n`, { directives });
  t.after(() => first.close());
  const second = await startServer(`example.org:${secondPort} {\n secondary {\n  transfer from 127.0.0.1:${firstPort}\n }\n}\n`, { directives });
  t.after(() => second.close());
  await eventually(async () => assert.equal(rcodeOf(await query({ port: secondPort }, 'www.example.org', 'A')), 'NOERROR'), 15_000);

  await knot.setZone('example.org.', zoneText(2, '192.0.2.82'));
  // Knot notifies the first, which transfers and notifies the second, which transfers from it.
  await eventually(async () => {
    const reply = await query({ port: secondPort }, 'www.example.org', 'A');
    assert.deepEqual(reply.answers?.map(formatRr), ['www.example.org. 3600 IN A 192.0.2.82']);
  }, 10_000);
  assert.ok(second.lines.some((line) => line.startsWith(`[INFO] plugin/file: Notify from 127.0.0.1 for example.org.: checking transfer`)), second.lines.join('\n'));
});
