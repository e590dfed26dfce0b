/**
 * *root* end to end: the plugins that read files find them under the block's root, over real
 * sockets. Each block names its files by relative paths only.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, test } from 'node:test';
import bind from '@foghorn/plugin-bind';
import file from '@foghorn/plugin-file';
import forward from '@foghorn/plugin-forward';
import hosts from '@foghorn/plugin-hosts';
import loadbalance from '@foghorn/plugin-loadbalance';
import tls from '@foghorn/plugin-tls';
import whoami from '@foghorn/plugin-whoami';
import { directivesOf, makeTestPki, query, rcodeOf, startServer } from '@foghorn/testkit';
import type { TestPki } from '@foghorn/testkit';
import root from '../src/index.js';

// In the directive list's order: root first, so every other setup sees it.
const directives = directivesOf(root, loadbalance, tls, hosts, file, forward, whoami, bind);

let pki: TestPki;
let dir: string;
before(() => {
  pki = makeTestPki();
  pki.readmeFiles();
  dir = mkdtempSync(join(tmpdir(), 'foghorn-root-'));
  mkdirSync(join(dir, 'zones'));
  writeFileSync(
    join(dir, 'zones', 'db.example.org'),
    [
      '$ORIGIN example.org.',
      '@ 3600 IN SOA ns.example.org. admin.example.org. 1 7200 3600 1209600 300',
      '@ 3600 IN NS ns.example.org.',
      'ns 3600 IN A 192.0.2.53',
      'www 3600 IN A 192.0.2.80',
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'zones', 'hosts'), '192.0.2.7 printer.hosts.test\n');
  writeFileSync(join(dir, 'zones', 'weights'), 'www.example.org\n192.0.2.80 10\n');
  copyFileSync(join(pki.dir, 'ca.pem'), join(dir, 'zones', 'ca.pem'));
});
after(() => {
  pki.remove();
  rmSync(dir, { recursive: true, force: true });
});

test('file, hosts and loadbalance read their relative paths under root', async (t) => {
  const zones = join(dir, 'zones');
  const server = await startServer(
    `example.org:0 {\n  bind 127.0.0.1\n  root ${zones}\n  loadbalance weighted weights\n  file db.example.org\n}\n` +
      `hosts.test:0 {\n  bind 127.0.0.1\n  root ${zones}\n  hosts hosts\n}\n`,
    { directives },
  );
  t.after(() => server.close());
  for (const transport of ['udp', 'tcp'] as const) {
    const www = await query({ port: server.port('example.org.') }, 'www.example.org', 'A', { transport });
    assert.deepEqual(www.answers?.map((rr) => [rr.name, rr.type === 'A' ? rr.data : rr.type]), [['www.example.org', '192.0.2.80']]);
    const printer = await query({ port: server.port('hosts.test.') }, 'printer.hosts.test', 'A', { transport });
    assert.deepEqual(printer.answers?.map((rr) => (rr.type === 'A' ? rr.data : rr.type)), ['192.0.2.7']);
  }
  assert.ok(server.lines.includes(`[INFO] plugin/loadbalance: Successfully reloaded weight file ${join(zones, 'weights')}`), server.lines.join('\n'));
});

test('a relative root is relative to the working directory', async (t) => {
  const zones = relative(process.cwd(), join(dir, 'zones'));
  const server = await startServer(`example.org:0 {\n  bind 127.0.0.1\n  root ${zones}\n  file db.example.org\n}\n`, { directives });
  t.after(() => server.close());
  const reply = await query({ port: server.port() }, 'www.example.org', 'A');
  assert.equal(reply.answers?.length, 1);
});

test('a relative path is not found without root, and an absolute one is used as written under it', async () => {
  await assert.rejects(startServer('example.org:0 {\n  bind 127.0.0.1\n  file db.example.org {\n    reload 0\n  }\n}\n', { directives }), /no such file or directory, open '.*\/db\.example\.org'/);
  // The hosts file named absolutely, the zone file relatively, under an unrelated root.
  const server = await startServer(`example.org:0 {\n  bind 127.0.0.1\n  root ${join(dir, 'zones')}\n  hosts ${join(dir, 'zones', 'hosts')} example.org {\n    fallthrough\n  }\n  file db.example.org\n}\n`, { directives });
  try {
    assert.equal(rcodeOf(await query({ port: server.port() }, 'www.example.org', 'A')), 'NOERROR');
  } finally {
    await server.close();
  }
});

test('tls reads its certificate, key and CA under root, and so does forward its tls files', async (t) => {
  // A DNS-over-TLS server whose tls line names cert.pem key.pem ca.pem under root ...
  const upstream = await startServer(`tls://.:0 {\n  bind 127.0.0.1\n  root ${pki.dir}\n  tls cert.pem key.pem ca.pem\n  whoami\n}\n`, { directives });
  t.after(() => upstream.close());
  // ... and a forwarder that trusts it through ca.pem under its own root.
  const server = await startServer(
    `.:0 {\n  bind 127.0.0.1\n  root ${join(dir, 'zones')}\n  forward . tls://127.0.0.1:${upstream.port()} {\n    tls ca.pem\n    tls_servername localhost\n  }\n}\n`,
    { directives },
  );
  t.after(() => server.close());
  const reply = await query({ port: server.port() }, 'example.org', 'A');
  assert.equal(rcodeOf(reply), 'NOERROR');
  // whoami over TLS reports the forwarder's own connection: the _tcp SRV record.
  assert.ok(reply.additionals?.some((rr) => rr.name === '_tcp.example.org'), JSON.stringify(reply.additionals));
});
