/**
 * Broken and hostile primaries (testkit's `startPrimary`, a hand-written TCP peer): after a good
 * first transfer, each refresh (started by a NOTIFY from the primary's address) meets one kind
 * of bad transfer. Nothing crashes, the last good zone keeps answering, and each problem is
 * logged once however often it repeats.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import dnsPacket from 'dns-packet';
import type { Answer } from 'dns-packet';
import { OPCODE_NOTIFY } from '@foghorn/core';
import { directivesOf, eventually, formatRr, frame, query, soaRecord, startPrimary, startServer, udpExchange } from '@foghorn/testkit';
import type { AxfrSession, TestServer } from '@foghorn/testkit';
import secondary from '@foghorn/plugin-secondary';

const zone = 'example.org';
const a = (name: string, address: string): Answer => ({ name, type: 'A', class: 'IN', ttl: 60, data: address });
const goodZone = (serial: number, www: string): Answer[] => [soaRecord(zone, serial), { name: zone, type: 'NS', class: 'IN', ttl: 60, data: `ns1.${zone}` }, a(`ns1.${zone}`, '192.0.2.53'), a(`www.${zone}`, www)];

/** Sends the zone in one message, closing SOA included. */
async function sendZone(s: AxfrSession, records: Answer[]): Promise<void> {
  await s.send([...records, records[0]!]);
}

/** `count` A records under the zone, in one message. */
function hosts(count: number, from = 0): Answer[] {
  return Array.from({ length: count }, (_, i) => a(`h${from + i}.${zone}`, `10.0.${((from + i) >> 8) & 255}.${(from + i) & 255}`));
}

interface Hostile {
  readonly name: string;
  /** The serial the SOA check reports. */
  readonly serial?: number;
  readonly axfr: (s: AxfrSession) => Promise<void>;
  /** The problem as logged. */
  readonly logged: string;
}

const cases: Hostile[] = [
  {
    name: 'a transfer cut short after its first message',
    axfr: async (s) => {
      await s.send([soaRecord(zone, 6), ...hosts(10)]);
      s.close();
    },
    logged: 'connection closed before the transfer ended',
  },
  {
    name: 'a message of junk',
    axfr: async (s) => {
      // The query's ID and a reply header claiming one answer, then bytes that are no record.
      const header = Buffer.from([s.id >> 8, s.id & 255, 0x84, 0, 0, 0, 0, 1, 0, 0, 0, 0]);
      await s.write(frame(Buffer.concat([header, Buffer.from([0xc0, 0xff, 0xde, 0xad, 0xbe, 0xef])])));
    },
    logged: 'axfr: malformed message',
  },
  { name: 'a reply with another ID', axfr: async (s) => void (await s.send(goodZone(6, '192.0.2.66'), { id: (s.id + 1) & 0xffff })), logged: 'axfr: id mismatch' },
  { name: 'a transfer that does not open with the SOA', axfr: async (s) => void (await s.send([...hosts(3), soaRecord(zone, 6)])), logged: ': no SOA' },
  { name: 'a refusal', axfr: async (s) => void (await s.send([], { rcode: 5 })), logged: 'bad xfr rcode: 5' },
  {
    name: 'records without end (max_records 1000)',
    axfr: async (s) => {
      await s.send([soaRecord(zone, 6)]);
      for (let i = 0; !s.closed && i < 1000; i++) await s.send(hosts(200, i * 200));
    },
    logged: 'zone has more than 1000 records',
  },
  {
    name: 'huge records without end (1000 records allow 128000 bytes)',
    axfr: async (s) => {
      await s.send([soaRecord(zone, 6)]);
      const big: Answer = { name: `big.${zone}`, type: 'TXT', class: 'IN', ttl: 60, data: Array.from({ length: 200 }, () => 'x'.repeat(255)) };
      for (let i = 0; !s.closed && i < 1000; i++) await s.send([big]);
    },
    logged: 'more than 128000 bytes',
  },
  {
    name: 'a zone older than the one served',
    serial: 6,
    axfr: (s) => sendZone(s, goodZone(3, '192.0.2.3')),
    logged: 'transferred SOA serial 3 is older than the 5 served',
  },
];

async function notify(server: TestServer): Promise<void> {
  const wire = dnsPacket.encode({ type: 'query', id: 1, flags: (OPCODE_NOTIFY << 11) | dnsPacket.AUTHORITATIVE_ANSWER, questions: [{ name: zone, type: 'SOA', class: 'IN' }] });
  assert.ok((await udpExchange({ port: server.port() }, wire)) !== null, 'NOTIFY not acknowledged');
}

for (const c of cases) {
  test(`${c.name}: the last good zone keeps answering and the problem is logged once`, async (t) => {
    let hostile = false;
    const primary = await startPrimary({ serial: 5, axfr: (s) => (hostile ? c.axfr(s) : sendZone(s, goodZone(5, '192.0.2.5'))) });
    t.after(() => primary.close());
    const server = await startServer(`example.org:0 {\n secondary {\n  transfer from ${primary.address}\n  max_records 1000\n }\n}\n`, { directives: directivesOf(secondary) });
    t.after(() => server.close());
    const www = async (): Promise<string[]> => ((await query({ port: server.port() }, `www.${zone}`, 'A')).answers ?? []).map(formatRr);
    await eventually(async () => assert.deepEqual(await www(), ['www.example.org. 60 IN A 192.0.2.5']), 5000);

    hostile = true;
    primary.options.serial = c.serial ?? 6;
    for (let round = 1; round <= 2; round++) {
      const transfers = primary.transfers;
      await notify(server);
      await eventually(() => primary.transfers > transfers, 5000, `transfer ${round}`);
      await eventually(() => server.lines.some((line) => line.includes(c.logged)), 5000, `the log line '${c.logged}'`);
      assert.deepEqual(await www(), ['www.example.org. 60 IN A 192.0.2.5']);
    }
    // The second attempt is over once the secondary let go of the connection: one line for two failures.
    await eventually(() => primary.open === 0, 5000, 'the secondary to close the transfer');
    assert.equal(server.lines.filter((line) => line.includes(c.logged)).length, 1, server.lines.join('\n'));
  });
}

test('records outside the zone are dropped from a transfer, with a warning', async (t) => {
  const primary = await startPrimary({ serial: 5, axfr: (s) => sendZone(s, [...goodZone(5, '192.0.2.5'), a('www.example.net', '203.0.113.1'), a('example.org.evil', '203.0.113.2')]) });
  t.after(() => primary.close());
  const server = await startServer(`example.org:0 {\n secondary {\n  transfer from ${primary.address}\n }\n}\n`, { directives: directivesOf(secondary) });
  t.after(() => server.close());
  await eventually(async () => assert.deepEqual(((await query({ port: server.port() }, `www.${zone}`, 'A')).answers ?? []).map(formatRr), ['www.example.org. 60 IN A 192.0.2.5']), 5000);
  assert.ok(server.lines.some((line) => line.includes('ignored 2 records outside the zone')), server.lines.join('\n'));
});

test('a primary whose serial went backwards is not transferred from', async (t) => {
  const primary = await startPrimary({ serial: 5, axfr: (s) => sendZone(s, goodZone(primary.options.serial, '192.0.2.5')) });
  t.after(() => primary.close());
  const server = await startServer(`example.org:0 {\n secondary {\n  transfer from ${primary.address}\n }\n}\n`, { directives: directivesOf(secondary) });
  t.after(() => server.close());
  await eventually(async () => assert.equal((await query({ port: server.port() }, zone, 'SOA')).answers?.length, 1), 5000);
  primary.options.serial = 4;
  const checks = primary.checks;
  await notify(server);
  await eventually(() => server.lines.some((line) => line.includes('no SOA serial increase seen')), 5000);
  assert.ok(primary.checks > checks);
  assert.equal(primary.transfers, 1, 'only the first transfer');
  const soa = (await query({ port: server.port() }, zone, 'SOA')).answers?.[0];
  assert.equal(soa?.type === 'SOA' ? soa.data.serial : undefined, 5);
});
