/**
 * *auto* over real sockets: CoreDNS's test/auto_test.go (zones appearing and disappearing, no
 * zone loaded, AXFR through *transfer*), the walk rules of plugin/auto's walk_test.go and
 * watcher_test.go (symlinked files and directories, the first file of an origin wins), and
 * reloads: a new serial is served, a broken file keeps the old zone and is logged once.
 */
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import dnsPacket from 'dns-packet';
import { checkCases, directivesOf, eventually, formatRr, makeQuery, query, rcodeOf, startServer, tcpExchange } from '@foghorn/testkit';
import transfer from '@foghorn/plugin-transfer';
import auto from '@foghorn/plugin-auto';

const directives = directivesOf(transfer, auto);

/** CoreDNS's test/auto_test.go zone. */
const zoneContent = (serial = 2016082534, www = '127.0.0.1'): string =>
  `; testzone\n@   IN SOA sns.dns.icann.org. noc.dns.icann.org. ${serial} 7200 3600 1209600 3600\n    IN NS  a.iana-servers.net.\n    IN NS  b.iana-servers.net.\n\nwww IN A   ${www}\n`;

function scratch(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'foghorn-auto-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const wwwOf = async (port: number, name = 'www.example.org'): Promise<string[]> => ((await query({ port }, name, 'A')).answers ?? []).map(formatRr);

test('TestAuto: a zone file appears and is served, disappears and is refused', async (t) => {
  const dir = scratch(t);
  const server = await startServer(`org:0 {\n auto {\n  directory ${dir} db\\.(.*) {1}\n  reload 0.01s\n }\n}\n`, { directives });
  t.after(() => server.close());
  const port = server.port();
  assert.equal(rcodeOf(await query({ port }, 'www.example.org', 'A')), 'REFUSED');
  writeFileSync(join(dir, 'db.example.org'), zoneContent());
  await eventually(async () => assert.deepEqual(await wwwOf(port), ['www.example.org. 3600 IN A 127.0.0.1']));
  await checkCases({ port }, [
    { qname: 'www.example.org.', qtype: 'A', answer: ['www.example.org. 3600 IN A 127.0.0.1'], ns: ['example.org. 3600 IN NS a.iana-servers.net.', 'example.org. 3600 IN NS b.iana-servers.net.'] },
    { qname: 'nope.example.org.', qtype: 'A', rcode: 'NXDOMAIN', ns: ['example.org. 3600 IN SOA sns.dns.icann.org. noc.dns.icann.org. 2016082534 7200 3600 1209600 3600'] },
  ], { transports: ['udp', 'tcp'], flags: { aa: true } });
  assert.ok(server.lines.includes(`[INFO] plugin/auto: Inserting zone \`example.org.' from: ${join(dir, 'db.example.org')}`), server.lines.join('\n'));

  unlinkSync(join(dir, 'db.example.org'));
  await eventually(async () => assert.equal(rcodeOf(await query({ port }, 'www.example.org', 'A')), 'REFUSED'));
  assert.ok(server.lines.includes("[INFO] plugin/auto: Deleting zone `example.org.'"), server.lines.join('\n'));
});

test('TestAutoNonExistentZone: a name in no loaded zone is refused', async (t) => {
  const dir = scratch(t);
  const server = await startServer(`.:0 {\n auto {\n  directory ${dir} (.*) {1}\n  reload 0.01s\n }\n}\n`, { directives });
  t.after(() => server.close());
  assert.equal(rcodeOf(await query({ port: server.port() }, 'example.org', 'A')), 'REFUSED');
});

test('TestAutoAXFR: a picked-up zone transfers through transfer, which is sent NOTIFY for it', async (t) => {
  const dir = scratch(t);
  const secondary = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => secondary.bind(0, '127.0.0.1', resolve));
  t.after(() => secondary.close());
  const notified: string[] = [];
  secondary.on('message', (msg, rinfo) => {
    const packet = dnsPacket.decode(msg);
    notified.push(packet.questions?.[0]?.name ?? '');
    secondary.send(dnsPacket.encode({ type: 'response', id: packet.id, flags: (4 << 11) | dnsPacket.AUTHORITATIVE_ANSWER, questions: packet.questions }), rinfo.port, rinfo.address);
  });
  const server = await startServer(`org:0 {\n auto {\n  directory ${dir} db\\.(.*) {1}\n  reload 0.01s\n }\n transfer {\n  to * 127.0.0.1:${secondary.address().port}\n }\n}\n`, { directives });
  t.after(() => server.close());
  writeFileSync(join(dir, 'db.example.org'), zoneContent());
  await eventually(() => notified.includes('example.org'), 3000, 'a NOTIFY for example.org');
  const replies = await tcpExchange({ port: server.port() }, makeQuery('example.org', 'AXFR'), 2000);
  const records = replies.flatMap((reply) => dnsPacket.decode(reply).answers ?? []);
  // SOA, two NS, www, SOA.
  assert.equal(records.length, 5);
});

test('the walk follows symlinked files and a symlinked directory, and drops a zone whose file went', async (t) => {
  // walk_test.go and watcher_test.go: db.example.org, aa.example.org and two symlinks to the first.
  const real = scratch(t);
  writeFileSync(join(real, 'db.example.org'), zoneContent(1, '192.0.2.1'));
  writeFileSync(join(real, 'aa.example.org'), zoneContent(1, '192.0.2.2'));
  symlinkSync(join(real, 'db.example.org'), join(real, 'db.example.com'));
  symlinkSync(join(real, 'db.example.org'), join(real, 'aa.example.com'));
  // The directory itself is a symlink, as a Kubernetes ConfigMap mount is.
  const link = join(scratch(t), 'zones');
  symlinkSync(real, link);
  const server = await startServer(`.:0 {\n auto {\n  directory ${link}\n  reload 0.01s\n }\n}\n`, { directives });
  t.after(() => server.close());
  const port = server.port();
  assert.deepEqual(await wwwOf(port), ['www.example.org. 3600 IN A 192.0.2.1']);
  assert.deepEqual(await wwwOf(port, 'www.example.com'), ['www.example.com. 3600 IN A 192.0.2.1']);

  unlinkSync(join(real, 'db.example.com'));
  await eventually(async () => assert.equal(rcodeOf(await query({ port }, 'www.example.com', 'A')), 'REFUSED'));
  assert.deepEqual(await wwwOf(port), ['www.example.org. 3600 IN A 192.0.2.1']);
});

test('two files for one origin: the first in walk order is served and the other warned about once', async (t) => {
  const dir = scratch(t);
  writeFileSync(join(dir, 'example.org.zone'), zoneContent(1, '192.0.2.1'));
  writeFileSync(join(dir, 'example.org.zone.bak-20260528'), zoneContent(1, '192.0.2.99'));
  mkdirSync(join(dir, 'sub'));
  writeFileSync(join(dir, 'sub', 'example.net.zone'), zoneContent(1, '192.0.2.3'));
  const server = await startServer(`.:0 {\n auto {\n  directory ${dir} (.*)\\.zone {1}\n  reload 0.01s\n }\n}\n`, { directives });
  t.after(() => server.close());
  const port = server.port();
  assert.deepEqual(await wwwOf(port), ['www.example.org. 3600 IN A 192.0.2.1']);
  // Subdirectories are walked too.
  assert.deepEqual(await wwwOf(port, 'www.example.net'), ['www.example.net. 3600 IN A 192.0.2.3']);
  // Several walks later, still one warning.
  await new Promise((resolve) => setTimeout(resolve, 100));
  const warnings = server.lines.filter((line) => line.startsWith('[WARNING] plugin/auto: Multiple zone files match origin "example.org."'));
  assert.deepEqual(warnings, [`[WARNING] plugin/auto: Multiple zone files match origin "example.org.": using "${join(dir, 'example.org.zone')}" instead of "${join(dir, 'example.org.zone.bak-20260528')}"`]);
});

test('a zone is re-read when its serial changes; a broken file keeps the old zone and is logged once', async (t) => {
  const dir = scratch(t);
  const path = join(dir, 'db.example.org');
  writeFileSync(path, zoneContent(1, '192.0.2.1'));
  const server = await startServer(`.:0 {\n auto {\n  directory ${dir}\n  reload 0.01s\n }\n}\n`, { directives });
  t.after(() => server.close());
  const port = server.port();
  assert.deepEqual(await wwwOf(port), ['www.example.org. 3600 IN A 192.0.2.1']);

  // Same serial: the change is not served (CoreDNS reloads on a new serial only).
  writeFileSync(path, zoneContent(1, '192.0.2.9'));
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(await wwwOf(port), ['www.example.org. 3600 IN A 192.0.2.1']);
  writeFileSync(path, zoneContent(2, '192.0.2.2'));
  await eventually(async () => assert.deepEqual(await wwwOf(port), ['www.example.org. 3600 IN A 192.0.2.2']));

  writeFileSync(path, zoneContent(3, '192.0.2.300'));
  await eventually(() => server.lines.some((line) => line.includes('Parsing zone "example.org."')));
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(await wwwOf(port), ['www.example.org. 3600 IN A 192.0.2.2']);
  assert.equal(server.lines.filter((line) => line.includes('Parsing zone "example.org."')).length, 1, server.lines.join('\n'));
});

test('only names under the directive\'s zones are looked up: a loaded zone outside them is not served', async (t) => {
  const dir = scratch(t);
  writeFileSync(join(dir, 'db.example.org'), zoneContent());
  writeFileSync(join(dir, 'db.example.com'), zoneContent());
  const server = await startServer(`.:0 {\n auto example.org {\n  directory ${dir}\n }\n}\n`, { directives });
  t.after(() => server.close());
  assert.deepEqual(await wwwOf(server.port()), ['www.example.org. 3600 IN A 127.0.0.1']);
  // CoreDNS: outside the origins the query goes to the next plugin; with none, SERVFAIL.
  assert.equal(rcodeOf(await query({ port: server.port() }, 'www.example.com', 'A')), 'SERVFAIL');
});
