/**
 * The SOA timers of a secondary zone against a real primary (Knot, which sends no NOTIFY here):
 * a new serial is found by the refresh timer alone; with the primary gone the zone keeps being
 * served while it retries, turns SERVFAIL at expire, and comes back when the primary does. The
 * zone's timers are one and two seconds, so the whole life takes a few seconds.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { directivesOf, eventually, formatRr, query, rcodeOf, startKnot, startServer } from '@foghorn/testkit';
import secondary from '@foghorn/plugin-secondary';

/** Refresh 1 s, retry 1 s, expire 2 s. */
function zoneText(serial: number, www: string): string {
  return `$ORIGIN example.org.\n$TTL 60\n@ SOA ns1 hostmaster ${serial} 1 1 2 60\n@ NS ns1\nns1 A 192.0.2.53\nwww A ${www}\n`;
}

test('refresh finds a new serial, the zone expires while the primary is gone and recovers when it is back', async (t) => {
  const knot = await startKnot({ zones: { 'example.org.': zoneText(1, '192.0.2.1') } });
  t.after(() => knot.close());
  const server = await startServer(`example.org:0 {\n secondary {\n  transfer from ${knot.address}\n }\n}\n`, { directives: directivesOf(secondary) });
  t.after(() => server.close());
  const target = { port: server.port() };
  const www = async (): Promise<string[]> => ((await query(target, 'www.example.org', 'A')).answers ?? []).map(formatRr);
  await eventually(async () => assert.deepEqual(await www(), ['www.example.org. 60 IN A 192.0.2.1']), 10_000);

  // No NOTIFY is configured: the refresh timer (1 s, plus at most 0.1 s of jitter) finds serial 2.
  await knot.setZone('example.org.', zoneText(2, '192.0.2.2'));
  await eventually(async () => assert.deepEqual(await www(), ['www.example.org. 60 IN A 192.0.2.2']), 5000);

  // The primary goes away: the last zone keeps answering until expire, then SERVFAIL.
  await knot.stop();
  const stoppedAt = Date.now();
  assert.deepEqual(await www(), ['www.example.org. 60 IN A 192.0.2.2']);
  await eventually(async () => assert.equal(rcodeOf(await query(target, 'www.example.org', 'A')), 'SERVFAIL'), 6000);
  const expiredAfterMs = Date.now() - stoppedAt;
  assert.ok(expiredAfterMs < 4000, `expired ${expiredAfterMs} ms after the primary went away; expire is 2 s after the last refresh`);
  // Retries go on (every second) but the expiry and the failed check are each logged once.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  assert.equal(server.lines.filter((line) => line === '[ERROR] plugin/file: Zone example.org. is expired').length, 1, server.lines.join('\n'));
  assert.equal(server.lines.filter((line) => line.includes('Failed refresh check') || line.includes('Failed retry check')).length, 1, server.lines.join('\n'));

  // The primary comes back with the same serial: the next retry makes the zone current again.
  await knot.start();
  await eventually(async () => assert.deepEqual(await www(), ['www.example.org. 60 IN A 192.0.2.2']), 5000);
  assert.ok(server.lines.includes('[INFO] plugin/file: Zone example.org. is current again with 2 SOA serial'), server.lines.join('\n'));
});
