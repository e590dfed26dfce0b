/**
 * The etcd plugin against a real etcd that goes away and comes back, that wants TLS client
 * certificates, and that wants a user and password: SERVFAIL (with the zone's SOA, the error to
 * *errors*) while etcd cannot answer, answers again as soon as it can.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventually, makeTestPki, query, rcodeOf, startEtcd } from '@foghorn/testkit';
import { serveEtcd } from './helpers.js';

const record = JSON.stringify({ host: '10.0.0.1' });

test('etcd unreachable: SERVFAIL with the SOA and the error logged; answers again when it is back; a dead endpoint is skipped', async (t) => {
  const etcd = await startEtcd();
  t.after(() => etcd.close());
  await etcd.put('/skydns/test/skydns/a', record);
  const server = await serveEtcd(t, `etcd skydns.test {\n  endpoint ${etcd.url}\n }`);
  const target = { port: server.port() };
  assert.equal((await query(target, 'a.skydns.test.', 'A')).answers?.length, 1);

  await etcd.stop();
  const down = await query(target, 'a.skydns.test.', 'A');
  assert.equal(rcodeOf(down), 'SERVFAIL');
  assert.equal(down.flag_aa, true);
  assert.deepEqual(down.authorities?.map((r) => `${r.name} ${r.type}`), ['skydns.test SOA']);
  assert.ok(server.lines.some((line) => /^\[ERROR\] plugin\/errors: 2 a\.skydns\.test\. A: plugin\/etcd: .*ECONNREFUSED/.test(line)), server.lines.join('\n'));

  await etcd.start();
  await eventually(async () => (await query(target, 'a.skydns.test.', 'A')).answers?.length === 1, 10_000, 'answers after etcd is back');

  // The first endpoint refuses connections: the second one answers.
  const failover = await serveEtcd(t, `etcd skydns.test {\n  endpoint http://127.0.0.1:1 ${etcd.url}\n }`);
  assert.equal((await query({ port: failover.port() }, 'a.skydns.test.', 'A')).answers?.length, 1);

  // Authentication on: the right password reads, a wrong one is SERVFAIL.
  await etcd.enableAuth('s3cret');
  const good = await serveEtcd(t, `etcd skydns.test {\n  endpoint ${etcd.url}\n  credentials root s3cret\n }`);
  assert.equal((await query({ port: good.port() }, 'a.skydns.test.', 'A')).answers?.length, 1);
  const anonymous = await serveEtcd(t, `etcd skydns.test {\n  endpoint ${etcd.url}\n }`);
  assert.equal(rcodeOf(await query({ port: anonymous.port() }, 'a.skydns.test.', 'A')), 'SERVFAIL');
  const wrong = await serveEtcd(t, `etcd skydns.test {\n  endpoint ${etcd.url}\n  credentials root nope\n }`);
  assert.equal(rcodeOf(await query({ port: wrong.port() }, 'a.skydns.test.', 'A')), 'SERVFAIL');
});

test('tls CERT KEY CA: a client certificate for an etcd that requires one', async (t) => {
  const pki = makeTestPki();
  t.after(() => pki.remove());
  // etcd's JSON gateway dials etcd's own gRPC port with the server certificate: it must allow client use.
  const server = pki.issueServer('etcd', { clientAuth: true });
  const etcd = await startEtcd({
    tls: { certFile: server.certFile, keyFile: server.keyFile, caFile: pki.ca.certFile, client: { cert: pki.client.cert, key: pki.client.key, ca: pki.ca.cert } },
  });
  t.after(() => etcd.close());
  await etcd.put('/skydns/test/skydns/a', record);
  const withCert = await serveEtcd(t, `etcd skydns.test {\n  endpoint ${etcd.url}\n  tls ${pki.client.certFile} ${pki.client.keyFile} ${pki.ca.certFile}\n }`);
  assert.deepEqual((await query({ port: withCert.port() }, 'a.skydns.test.', 'A')).answers?.map((r) => (r as { data?: unknown }).data), ['10.0.0.1']);
  // A bare host:port with tls is https.
  const bare = await serveEtcd(t, `etcd skydns.test {\n  endpoint 127.0.0.1:${etcd.port}\n  tls ${pki.client.certFile} ${pki.client.keyFile} ${pki.ca.certFile}\n }`);
  assert.equal((await query({ port: bare.port() }, 'a.skydns.test.', 'A')).answers?.length, 1);
  // Without a client certificate etcd refuses the handshake.
  const caOnly = await serveEtcd(t, `etcd skydns.test {\n  endpoint ${etcd.url}\n  tls ${pki.ca.certFile}\n }`);
  assert.equal(rcodeOf(await query({ port: caOnly.port() }, 'a.skydns.test.', 'A')), 'SERVFAIL');
});
