import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { answeringFrom, formatRr, grpcUpstreamFor, hasTool, makeTestPki, query, requireFixture } from '@foghorn/testkit';
import { serve } from './serve.js';

// The openssl CLI makes the PKI (`apt-get install openssl` on Debian); CI must have it.
requireFixture(hasTool('openssl'), 'the openssl CLI (npm test installs it through scripts/test-tools.sh)');
const pki = makeTestPki();
test.after(() => pki.remove());

const zone = answeringFrom('a.example.org. 60 IN A 192.0.2.1');
const server = { cert: pki.server.cert, key: pki.server.key };
const answer = [formatRr('a.example.org. 60 IN A 192.0.2.1')];

test('grpc speaks TLS to an upstream whose certificate the tls CA verifies', async (t) => {
  const upstream = await grpcUpstreamFor(t, zone, { tls: server });
  const foghorn = await serve(t, `grpc . ${upstream.address} {\n tls ${pki.ca.certFile}\n }`);
  for (let i = 0; i < 3; i++) assert.deepEqual((await query({ port: foghorn.port() }, 'a.example.org', 'A')).answers?.map(formatRr), answer);
  assert.equal(upstream.calls.length, 3);
  assert.equal(upstream.calls[0]?.clientCertificate, false);
});

test('grpc refuses an upstream certificate its CAs do not verify: SERVFAIL, nothing asked', async (t) => {
  const upstream = await grpcUpstreamFor(t, zone, { tls: server });
  // `tls` alone trusts the system's CAs only; the other CA did not sign the server.
  for (const line of ['tls', `tls ${join(pki.dir, 'other-ca.pem')}`]) {
    const foghorn = await serve(t, `grpc . ${upstream.address} {\n ${line}\n }`);
    assert.equal((await query({ port: foghorn.port() }, 'a.example.org', 'A')).rcode, 'SERVFAIL', line);
  }
  // Plaintext to a TLS server fails too.
  const plain = await serve(t, `grpc . ${upstream.address}`);
  assert.equal((await query({ port: plain.port() }, 'a.example.org', 'A')).rcode, 'SERVFAIL');
  assert.equal(upstream.calls.length, 0);
});

test('grpc tls_servername: the name checked in the certificate and sent as the authority', async (t) => {
  const upstream = await grpcUpstreamFor(t, zone, { tls: server });
  const good = await serve(t, `grpc . ${upstream.address} {\n tls ${pki.ca.certFile}\n tls_servername localhost\n }`);
  assert.deepEqual((await query({ port: good.port() }, 'a.example.org', 'A')).answers?.map(formatRr), answer);
  assert.equal(upstream.calls[0]?.authority, 'localhost');
  const wrong = await serve(t, `grpc . ${upstream.address} {\n tls ${pki.ca.certFile}\n tls_servername dns.quad9.net\n }`);
  assert.equal((await query({ port: wrong.port() }, 'a.example.org', 'A')).rcode, 'SERVFAIL');
  // tls_servername alone turns TLS on with the system's CAs, which do not know the test CA.
  const alone = await serve(t, `grpc . ${upstream.address} {\n tls_servername localhost\n }`);
  assert.equal((await query({ port: alone.port() }, 'a.example.org', 'A')).rcode, 'SERVFAIL');
  assert.equal(upstream.calls.length, 1);
});

test('grpc tls CERT KEY CA: mutual TLS with an upstream that requires a client certificate', async (t) => {
  const upstream = await grpcUpstreamFor(t, zone, { tls: { ...server, ca: pki.ca.cert, requireClientCert: true } });
  const mutual = await serve(t, `grpc . ${upstream.address} {\n tls ${pki.client.certFile} ${pki.client.keyFile} ${pki.ca.certFile}\n }`);
  assert.deepEqual((await query({ port: mutual.port() }, 'a.example.org', 'A')).answers?.map(formatRr), answer);
  assert.equal(upstream.calls[0]?.clientCertificate, true);
  const anonymous = await serve(t, `grpc . ${upstream.address} {\n tls ${pki.ca.certFile}\n }`);
  assert.equal((await query({ port: anonymous.port() }, 'a.example.org', 'A')).rcode, 'SERVFAIL');
  assert.equal(upstream.calls.length, 1);
});
