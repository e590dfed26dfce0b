import { test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import dnsPacket from 'dns-packet';
import type { Packet } from 'dns-packet';
import { answering, hasTool, metric, query, requireFixture, upstreamFor } from '@foghorn/testkit';
import type { Decoded } from '@foghorn/testkit';
import { serve } from './serve.js';

/** A throw-away CA and a server certificate for `dns.test` and 127.0.0.1, made with the openssl CLI. */
interface TestPki {
  readonly dir: string;
  readonly caFile: string;
  readonly key: Buffer;
  readonly cert: Buffer;
}

function makePki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'forward-tls-'));
  const run = (...args: string[]): void => {
    execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  };
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Foghorn test CA');
  run('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=dns.test');
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=DNS:dns.test,IP:127.0.0.1\n');
  run('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'san.ext');
  return { dir, caFile: join(dir, 'ca.pem'), key: readFileSync(join(dir, 'server.key')), cert: readFileSync(join(dir, 'server.pem')) };
}

// The openssl CLI makes the PKI (`apt-get install openssl` on Debian); CI must have it.
requireFixture(hasTool('openssl'), 'the openssl CLI (npm test installs it through scripts/test-tools.sh)');
const pki = makePki();
test.after(() => rmSync(pki.dir, { recursive: true, force: true }));

async function tlsUpstream(t: TestContext) {
  const { key, cert } = pki;
  return upstreamFor(t, undefined, { key, cert });
}

test('forward talks DNS over TLS to an upstream whose certificate the tls CA verifies', async (t) => {
  const upstream = await tlsUpstream(t);
  const server = await serve(t, `forward . tls://${upstream.address} {\n tls ${pki.caFile}\n tls_servername dns.test\n }`);
  for (const transport of ['udp', 'tcp', 'udp'] as const) {
    const answer = await query({ port: server.port() }, 'example.org', 'A', { transport });
    assert.equal(answer.rcode, 'NOERROR');
    assert.equal(answer.answers?.length, 1);
  }
  // Every query went over TLS (the fake's stream side), on one reused connection.
  assert.deepEqual(upstream.lookups.map((q) => q.transport), ['tcp', 'tcp', 'tcp']);
  assert.equal(upstream.connections, 1);
  assert.equal(await metric(server, 'coredns_proxy_conn_cache_hits_total', { proto: 'tcp-tls' }), 2);
});

test('a TLS upstream is checked against its IP when no server name is given, and per upstream with IP%NAME', async (t) => {
  const upstream = await tlsUpstream(t);
  const byIp = await serve(t, `forward . tls://${upstream.address} {\n tls ${pki.caFile}\n }`);
  assert.equal((await query({ port: byIp.port() }, 'example.org', 'A')).rcode, 'NOERROR');
  const byName = await serve(t, `forward . tls://127.0.0.1%dns.test:${upstream.port} {\n tls ${pki.caFile}\n }`);
  assert.equal((await query({ port: byName.port() }, 'example.org', 'A')).rcode, 'NOERROR');
});

test('a TLS upstream with a certificate for another name is never used', async (t) => {
  const upstream = await tlsUpstream(t);
  const server = await serve(t, `forward . tls://${upstream.address} {\n tls ${pki.caFile}\n tls_servername other.test\n max_fails 0\n }`, { budgetMs: 500 });
  assert.equal((await query({ port: server.port() }, 'example.org', 'A')).rcode, 'SERVFAIL');
  assert.equal(upstream.lookups.length, 0);
});

test('a TLS upstream signed by an unknown CA is refused', async (t) => {
  const upstream = await tlsUpstream(t);
  // No `tls CA`: the system roots do not know the test CA.
  const server = await serve(t, `forward . tls://${upstream.address} {\n tls_servername dns.test\n max_fails 0\n }`, { budgetMs: 500 });
  assert.equal((await query({ port: server.port() }, 'example.org', 'A')).rcode, 'SERVFAIL');
  assert.equal(upstream.lookups.length, 0);
});

test('forward queries an https:// upstream with DNS over HTTPS, ID 0, POST by default and GET with doh_method', async (t) => {
  const { key, cert } = pki;
  const seen: { method: string; id: number; path: string }[] = [];
  const doh = https.createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'https://dns.test');
      const wire = req.method === 'GET' ? Buffer.from(url.searchParams.get('dns') ?? '', 'base64url') : Buffer.concat(chunks);
      const q = dnsPacket.decode(wire) as Decoded;
      seen.push({ method: req.method ?? '', id: q.id, path: url.pathname });
      res.writeHead(200, { 'content-type': 'application/dns-message' });
      res.end(dnsPacket.encode(answering(q)[0] as Packet));
    });
  });
  await new Promise<void>((resolve) => doh.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => doh.close(() => resolve())));
  const port = (doh.address() as AddressInfo).port;
  for (const method of ['POST', 'GET']) {
    const server = await serve(t, `forward . https://127.0.0.1:${port} {\n tls ${pki.caFile}\n tls_servername dns.test\n doh_method ${method}\n }`);
    const answer = await query({ port: server.port() }, 'example.org', 'A', { id: 4242 });
    assert.equal(answer.id, 4242);
    assert.equal(answer.answers?.length, 1);
    await server.close();
  }
  doh.closeAllConnections();
  assert.deepEqual(seen, [
    { method: 'POST', id: 0, path: '/dns-query' },
    { method: 'GET', id: 0, path: '/dns-query' },
  ]);
});
