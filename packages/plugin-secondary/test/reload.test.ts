/**
 * A Corefile reload keeps a secondary zone: the new configuration answers from the data the old
 * one transferred, checks the primary's serial once, and transfers only when it changed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Answer } from 'dns-packet';
import { directivesOf, eventually, formatRr, query, soaRecord, startPrimary, startServer } from '@foghorn/testkit';
import secondary from '@foghorn/plugin-secondary';

const zone = 'example.org';
const records = (serial: number, www: string): Answer[] => [soaRecord(zone, serial), { name: zone, type: 'NS', class: 'IN', ttl: 60, data: `ns1.${zone}` }, { name: `www.${zone}`, type: 'A', class: 'IN', ttl: 60, data: www }, soaRecord(zone, serial)];

test('a reloaded Corefile answers the secondary zone at once and does not transfer it again', async (t) => {
  const primary = await startPrimary({ serial: 1, axfr: async (s) => void (await s.send(records(primary.options.serial, `192.0.2.${primary.options.serial}`))) });
  t.after(() => primary.close());
  const corefile = `example.org:0 {\n secondary {\n  transfer from ${primary.address}\n }\n}\n`;
  const server = await startServer(corefile, { directives: directivesOf(secondary) });
  t.after(() => server.close());
  const www = async (): Promise<string[]> => ((await query({ port: server.port() }, `www.${zone}`, 'A')).answers ?? []).map(formatRr);
  await eventually(async () => assert.deepEqual(await www(), ['www.example.org. 60 IN A 192.0.2.1']), 5000);

  const checks = primary.checks;
  assert.equal(await server.reload(corefile), true);
  // No SERVFAIL window: the first query after the reload is answered from the carried zone.
  assert.deepEqual(await www(), ['www.example.org. 60 IN A 192.0.2.1']);
  await eventually(() => primary.checks > checks, 5000, 'the SOA check after the reload');
  assert.equal(primary.transfers, 1, 'the same serial is not transferred again');

  // A new serial at the next reload is found by that check and transferred.
  primary.options.serial = 2;
  assert.equal(await server.reload(corefile), true);
  await eventually(async () => assert.deepEqual(await www(), ['www.example.org. 60 IN A 192.0.2.2']), 5000);
  assert.equal(primary.transfers, 2);
});
