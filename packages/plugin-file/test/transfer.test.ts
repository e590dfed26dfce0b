import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import dgram from 'node:dgram';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import dnsPacket from 'dns-packet';
import type { Answer, Packet } from 'dns-packet';
import { directivesOf, makeQuery, query, rcodeOf, startServer, eventually } from '@foghorn/testkit';
import type { Reply, TestServer } from '@foghorn/testkit';
import file from '@foghorn/plugin-file';
import transfer from '@foghorn/plugin-transfer';
import { show } from './show.js';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'foghorn-xfr-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

/** Hosts enough for several ~63 kB envelopes. */
const HOSTS = 3000;

function zoneText(serial: number, address = '10.0'): string {
  let text = `$ORIGIN example.org.\n$TTL 3600\n@ IN SOA ns1 hostmaster ( ${serial} 7200 3600 1209600 3600 )\n  IN NS ns1\n  IN NS ns2.example.net.\nns1 IN A 192.0.2.53\n`;
  text += '@ IN MX 10 mail\nmail IN A 192.0.2.25\ntxt IN TXT "a \\"quoted\\" string; with a semicolon" second\n*.wild IN A 192.0.2.99\n';
  text += 'sub IN NS ns.sub\nns.sub IN A 192.0.2.54\n';
  for (let i = 0; i < HOSTS; i++) text += `host${i} IN A ${address}.${i >> 8}.${i & 255}\n`;
  return text;
}
/** Records in the zone: SOA, 2 NS, A, MX, A, TXT, wildcard A, delegation NS and glue, the hosts. */
const RECORDS = 10 + HOSTS;

async function serveZone(t: { after(fn: () => Promise<void>): void }, name: string, to: string, extra = ''): Promise<{ server: TestServer; path: string }> {
  const path = join(dir, name);
  writeFileSync(path, zoneText(1));
  const corefile = `example.org:0 {\n file ${path}${extra}\n transfer {\n  to ${to}\n }\n}\n`;
  const server = await startServer(corefile, { directives: directivesOf(transfer, file) });
  t.after(() => server.close());
  return { server, path };
}

/** A zone transfer client: sends `wire` over TCP and reads messages until the closing SOA. */
function transferOverTcp(port: number, wire: Buffer): Promise<Reply[]> {
  return new Promise((resolve, reject) => {
    const messages: Reply[] = [];
    let soas = 0;
    let pending = Buffer.alloc(0);
    const socket = net.connect(port, '127.0.0.1', () => {
      const frame = Buffer.alloc(2);
      frame.writeUInt16BE(wire.length);
      socket.write(Buffer.concat([frame, wire]));
    });
    const timer = setTimeout(() => finish(new Error(`transfer incomplete after ${messages.length} messages`)), 5000);
    const finish = (error?: Error): void => {
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(messages);
    };
    socket.on('error', finish);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 2 && pending.length >= pending.readUInt16BE(0) + 2) {
        const length = pending.readUInt16BE(0);
        const reply = dnsPacket.decode(pending.subarray(2, length + 2)) as unknown as Reply;
        pending = pending.subarray(length + 2);
        messages.push(reply);
        for (const rr of reply.answers ?? []) if (rr.type === 'SOA') soas++;
        // Done at the closing SOA, at an error, or at a lone SOA (an up-to-date IXFR).
        const lone = messages.length === 1 && reply.answers?.length === 1 && soas === 1;
        if (soas >= 2 || rcodeOf(reply) !== 'NOERROR' || lone) return finish();
      }
    });
  });
}

function ixfrQuery(serial: number): Buffer {
  const packet: Packet = {
    type: 'query',
    id: 4321,
    flags: 0,
    questions: [{ name: 'example.org', type: 'IXFR', class: 'IN' }],
    authorities: [{ name: 'example.org', type: 'SOA', ttl: 0, data: { mname: 'ns1.example.org', rname: 'hostmaster.example.org', serial, refresh: 0, retry: 0, expire: 0, minimum: 0 } }],
  };
  return dnsPacket.encode(packet);
}

const records = (messages: Reply[]): Answer[] => messages.flatMap((m) => m.answers ?? []);

test('a zone served from a file is transferred with AXFR over TCP in several messages, SOA first and last', async (t) => {
  const { server } = await serveZone(t, 'db.axfr', '*');
  const messages = await transferOverTcp(server.port(), makeQuery('example.org.', 'AXFR', { flags: 0 }));
  assert.ok(messages.length >= 2, `${messages.length} messages: a zone this size needs several`);
  for (const m of messages) {
    assert.equal(rcodeOf(m), 'NOERROR');
    assert.equal(m.flag_aa, true);
    assert.equal(m.questions?.[0]?.name, 'example.org');
  }
  const rrs = records(messages);
  assert.equal(rrs.length, RECORDS + 1, 'every record once, and the SOA twice');
  assert.equal(rrs[0]!.type, 'SOA');
  assert.equal(rrs.at(-1)!.type, 'SOA');
  assert.deepEqual(rrs.slice(1, 3).map(show), ['example.org. 3600 NS ns1.example.org.', 'example.org. 3600 NS ns2.example.net.']);
  const lines = new Set(rrs.map(show));
  for (const line of [
    'txt.example.org. 3600 TXT "a \\"quoted\\" string; with a semicolon" "second"',
    '*.wild.example.org. 3600 A 192.0.2.99',
    'sub.example.org. 3600 NS ns.sub.example.org.',
    `host${HOSTS - 1}.example.org. 3600 A 10.0.11.183`,
  ]) {
    assert.ok(lines.has(line), `missing ${line}`);
  }
  assert.ok(server.lines.some((line) => line.includes(`plugin/transfer: Outgoing transfer of ${RECORDS + 1} records of zone "example.org." to 127.0.0.1 for 1 SOA serial`)));
});

// Two clients we did not write: Knot's kdig and BIND's dig, each with its options for records only.
for (const [client, options] of [
  ['kdig', ['+nocomments', '+nostats']],
  ['dig', ['+noall', '+answer']],
] as const) {
  test(`${client} transfers the zone with AXFR and gets the records the Node client got`, async (t) => {
    const { server } = await serveZone(t, `db.${client}`, '*');
    const { stdout } = await run(client, [`@127.0.0.1`, '-p', String(server.port()), 'AXFR', 'example.org.', ...options]);
    const lines = stdout.split('\n').filter((line) => line !== '' && !line.startsWith(';'));
    assert.equal(lines.length, RECORDS + 1, stdout.slice(0, 500));
    assert.match(lines[0]!, /^example\.org\.\s+3600\s+IN\s+SOA\s+ns1\.example\.org\. hostmaster\.example\.org\. 1 7200 3600 1209600 3600$/);
    assert.match(lines.at(-1)!, /^example\.org\.\s+3600\s+IN\s+SOA\s/);
    assert.ok(lines.some((line) => /^txt\.example\.org\.\s+3600\s+IN\s+TXT\s+"a \\"quoted\\" string; with a semicolon" "second"$/.test(line)), 'TXT with escapes');
    assert.ok(lines.some((line) => /^host2999\.example\.org\.\s+3600\s+IN\s+A\s+10\.0\.11\.183$/.test(line)));
  });
}

test('kdig IXFR with the current serial gets the SOA alone, with an older one the whole zone', async (t) => {
  const { server } = await serveZone(t, 'db.ixfr', '*');
  const port = String(server.port());
  const upToDate = await run('kdig', ['@127.0.0.1', '-p', port, 'IXFR=1', 'example.org.', '+nocomments', '+nostats']);
  const current = upToDate.stdout.split('\n').filter((line) => line !== '' && !line.startsWith(';'));
  assert.equal(current.length, 1, upToDate.stdout);
  assert.match(current[0]!, /\sSOA\s.* 1 7200 3600 1209600 3600$/);
  const messages = await transferOverTcp(server.port(), ixfrQuery(0x7fffffff));
  assert.equal(records(messages).length, RECORDS + 1, 'a serial not the zone’s falls back to AXFR');
  const lone = await transferOverTcp(server.port(), ixfrQuery(1));
  assert.deepEqual(records(lone).map((rr) => rr.type), ['SOA']);
});

test('zone transfers are refused over UDP, and to clients not listed in to', async (t) => {
  const open = await serveZone(t, 'db.udp', '*');
  assert.equal(rcodeOf(await query({ port: open.server.port() }, 'example.org.', 'AXFR')), 'REFUSED');
  const closed = await serveZone(t, 'db.closed', '192.0.2.1');
  const refused = await transferOverTcp(closed.server.port(), makeQuery('example.org.', 'AXFR'));
  assert.deepEqual(refused.map(rcodeOf), ['REFUSED']);
  await assert.rejects(run('kdig', ['@127.0.0.1', '-p', String(closed.server.port()), 'AXFR', 'example.org.']), (error: Error & { stderr: string }) => {
    assert.match(error.stderr, /server replied with error 'REFUSED'/);
    return true;
  });
  // Ordinary queries still get the zone.
  assert.equal(rcodeOf(await query({ port: closed.server.port() }, 'ns1.example.org.', 'A', { transport: 'tcp' })), 'NOERROR');
});

test('the secondaries in to get NOTIFY at startup and when a reload finds a new serial, then transfer the new zone', async (t) => {
  const secondary = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => secondary.bind(0, '127.0.0.1', resolve));
  t.after(() => secondary.close());
  const notifies: Packet[] = [];
  secondary.on('message', (msg, rinfo) => {
    const packet = dnsPacket.decode(msg);
    notifies.push(packet);
    // Acknowledge as a secondary does (RFC 1996 §4.7).
    secondary.send(dnsPacket.encode({ type: 'response', id: packet.id ?? 0, flags: (4 << 11) | dnsPacket.AUTHORITATIVE_ANSWER, questions: packet.questions ?? [] }), rinfo.port, rinfo.address);
  });
  const { server, path } = await serveZone(t, 'db.notify', `127.0.0.1:${secondary.address().port}`, ' {\n  reload 50ms\n }');
  await eventually(() => notifies.length >= 1, 5000);
  const first = notifies[0]!;
  assert.equal(((first.flags ?? 0) >> 11) & 0xf, 4, 'opcode NOTIFY');
  assert.deepEqual(first.questions, [{ name: 'example.org', type: 'SOA', class: 'IN' }]);

  writeFileSync(path, zoneText(2, '10.1'));
  await eventually(() => notifies.length >= 2, 5000);
  assert.ok(server.lines.some((line) => line.includes('Successfully reloaded zone "example.org."') && line.includes('with 2 SOA serial')));
  // 127.0.0.1 is in `to`, so this test may transfer too: it gets the new zone.
  const rrs = records(await transferOverTcp(server.port(), makeQuery('example.org.', 'AXFR')));
  assert.equal((rrs[0] as Answer & { data: { serial: number } }).data.serial, 2);
  assert.ok(rrs.map(show).includes(`host${HOSTS - 1}.example.org. 3600 A 10.1.11.183`));
  assert.ok(!server.lines.some((line) => line.includes('Failed sending notifies')), server.lines.join('\n'));
});
