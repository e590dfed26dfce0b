/**
 * Primaries that stop sending in the middle of a transfer: nothing at all after the query, or
 * half a message. Each message must arrive within miekg/dns's 2 s read timeout, so the transfer
 * is given up then and the last good zone keeps answering.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Answer } from 'dns-packet';
import { directivesOf, eventually, formatRr, query, soaRecord, startPrimary, startServer, udpExchange } from '@foghorn/testkit';
import type { AxfrSession } from '@foghorn/testkit';
import dnsPacket from 'dns-packet';
import { OPCODE_NOTIFY } from '@foghorn/core';
import secondary, { transferTimeoutMs } from '@foghorn/plugin-secondary';

const zone = 'example.org';
const good: Answer[] = [soaRecord(zone, 5), { name: zone, type: 'NS', class: 'IN', ttl: 60, data: `ns1.${zone}` }, { name: `www.${zone}`, type: 'A', class: 'IN', ttl: 60, data: '192.0.2.5' }, soaRecord(zone, 5)];

const stalls: { name: string; axfr: (s: AxfrSession) => Promise<void> }[] = [
  // Never resolves while the connection is open: the double sends nothing more.
  { name: 'a primary that sends nothing after the query', axfr: (s) => new Promise((resolve) => setTimeout(resolve, 60_000).unref()) },
  {
    name: 'a primary that stops in the middle of a message',
    axfr: async (s) => {
      // A length prefix of 1000 bytes, then only the first 20.
      await s.write(Buffer.concat([Buffer.from([0x03, 0xe8]), Buffer.alloc(20)]));
      await new Promise((resolve) => setTimeout(resolve, 60_000).unref());
    },
  },
];

describe('stalled transfers', { concurrency: true }, () => {
  for (const stall of stalls) {
    test(`${stall.name}: given up after the read timeout, the last good zone kept`, async (t) => {
      let hostile = false;
      const primary = await startPrimary({ serial: 5, axfr: (s) => (hostile ? stall.axfr(s) : s.send(good).then(() => undefined)) });
      t.after(() => primary.close());
      const server = await startServer(`example.org:0 {\n secondary {\n  transfer from ${primary.address}\n }\n}\n`, { directives: directivesOf(secondary) });
      t.after(() => server.close());
      const www = async (): Promise<string[]> => ((await query({ port: server.port() }, `www.${zone}`, 'A')).answers ?? []).map(formatRr);
      await eventually(async () => assert.deepEqual(await www(), ['www.example.org. 60 IN A 192.0.2.5']), 5000);

      hostile = true;
      primary.options.serial = 6;
      const wire = dnsPacket.encode({ type: 'query', id: 1, flags: (OPCODE_NOTIFY << 11) | dnsPacket.AUTHORITATIVE_ANSWER, questions: [{ name: zone, type: 'SOA', class: 'IN' }] });
      assert.ok((await udpExchange({ port: server.port() }, wire)) !== null);
      await eventually(() => primary.transfers === 2, 5000);
      const started = Date.now();
      await eventually(() => server.lines.some((line) => line.includes(`i/o timeout after ${transferTimeoutMs / 1000}s`)), transferTimeoutMs + 3000);
      const waited = Date.now() - started;
      assert.ok(waited >= transferTimeoutMs - 100, `gave up after ${waited} ms`);
      await eventually(() => primary.open === 0, 2000, 'the secondary to close the connection');
      assert.deepEqual(await www(), ['www.example.org. 60 IN A 192.0.2.5']);
    });
  }
});
