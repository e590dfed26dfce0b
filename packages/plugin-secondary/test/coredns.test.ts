/**
 * CoreDNS's test/secondary_test.go over real sockets, with Foghorn's own *file* and *transfer*
 * as the primary where CoreDNS uses CoreDNS: fallthrough to forward, SERVFAIL for a zone that
 * never transferred, the transfer itself, IXFR with the current serial, and NOTIFY along a chain
 * of two secondaries after the primary's file was reloaded.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { directivesOf, eventually, formatRr, freeDnsPort, query, rcodeOf, startServer, tempFile } from '@foghorn/testkit';
import transfer from '@foghorn/plugin-transfer';
import file from '@foghorn/plugin-file';
import forward from '@foghorn/plugin-forward';
import secondary from '@foghorn/plugin-secondary';

const directives = directivesOf(transfer, file, secondary, forward);

const zone = (serial: number, body: string): string =>
  `$ORIGIN example.org.\n@ 3600 IN SOA sns.dns.icann.org. noc.dns.icann.org. (\n ${serial} ; serial\n 7200 3600 1209600 3600 )\n\n  3600 IN NS a.iana-servers.net.\n  3600 IN NS b.iana-servers.net.\n\n${body}`;

test('TestSecondaryFallthrough: names the transferred zone lacks go to forward', async (t) => {
  const primary = await startServer(`example.org:0 {\n file ${tempFile(t, zone(2017042745, 'www IN A 127.0.0.1\n'), 'primary')}\n transfer {\n  to *\n }\n}\n`, { directives });
  t.after(() => primary.close());
  const fallback = await startServer(`example.org:0 {\n file ${tempFile(t, zone(2017042745, 'other IN A 10.10.10.10\n'), 'fallback')}\n}\n`, { directives });
  t.after(() => fallback.close());
  const sec = await startServer(`example.org:0 {\n secondary {\n  transfer from 127.0.0.1:${primary.port()}\n  fallthrough\n }\n forward . 127.0.0.1:${fallback.port()}\n}\n`, { directives });
  t.after(() => sec.close());
  const target = { port: sec.port() };
  await eventually(async () => assert.equal((await query(target, 'example.org', 'SOA')).answers?.length, 1), 5000);
  assert.deepEqual((await query(target, 'www.example.org', 'A')).answers?.map(formatRr), ['www.example.org. 3600 IN A 127.0.0.1']);
  const other = await query(target, 'other.example.org', 'A');
  assert.equal(rcodeOf(other), 'NOERROR');
  assert.deepEqual(other.answers?.map(formatRr), ['other.example.org. 3600 IN A 10.10.10.10']);
});

test('TestEmptySecondaryZone: a zone that never transferred is SERVFAIL', async (t) => {
  const sec = await startServer('example.org:0 {\n secondary {\n  transfer from 127.0.0.1:1717\n }\n}\n', { directives });
  t.after(() => sec.close());
  assert.equal(rcodeOf(await query({ port: sec.port() }, 'www.example.org', 'A')), 'SERVFAIL');
});

test('TestSecondaryZoneTransfer: a zone transferred from file and transfer', async (t) => {
  const primary = await startServer(`example.org:0 {\n file ${tempFile(t, zone(2015082541, 'www IN A 127.0.0.1\n'))} {\n }\n transfer {\n  to *\n }\n}\n`, { directives });
  t.after(() => primary.close());
  const sec = await startServer(`example.org:0 {\n secondary {\n  transfer from 127.0.0.1:${primary.port()}\n }\n}\n`, { directives });
  t.after(() => sec.close());
  await eventually(async () => assert.deepEqual((await query({ port: sec.port() }, 'example.org', 'SOA')).answers?.map(formatRr), ['example.org. 3600 IN SOA sns.dns.icann.org. noc.dns.icann.org. 2015082541 7200 3600 1209600 3600']), 5000);
});

test('TestSecondaryZoneNotify: a reloaded primary file reaches the end of a chain of secondaries', async (t) => {
  const [primaryPort, middlePort, lastPort] = [await freeDnsPort(), await freeDnsPort(), await freeDnsPort()];
  const path = tempFile(t, zone(2017042745, ''));
  const primary = await startServer(`example.org:${primaryPort} {\n file ${path} {\n  reload 0.01s\n }\n transfer {\n  to 127.0.0.1:${middlePort}\n }\n}\n`, { directives });
  t.after(() => primary.close());
  const middle = await startServer(`example.org:${middlePort} {\n secondary {\n  transfer from 127.0.0.1:${primaryPort}\n }\n transfer {\n  to 127.0.0.1:${lastPort}\n }\n}\n`, { directives });
  t.after(() => middle.close());
  const last = await startServer(`example.org:${lastPort} {\n secondary {\n  transfer from 127.0.0.1:${middlePort}\n }\n}\n`, { directives });
  t.after(() => last.close());
  const target = { port: lastPort };
  await eventually(async () => assert.equal((await query(target, 'example.org', 'SOA')).answers?.length, 1), 10_000);
  assert.deepEqual((await query(target, 'www.example.org', 'A')).answers, []);

  writeFileSync(path, zone(2017042746, 'www IN A 127.0.0.1\n'));
  await eventually(async () => assert.deepEqual((await query(target, 'www.example.org', 'A')).answers?.map(formatRr), ['www.example.org. 3600 IN A 127.0.0.1']), 5000);
});
