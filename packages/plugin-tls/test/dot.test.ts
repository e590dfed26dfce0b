/**
 * DNS over TLS end to end: Knot's kdig and Node's tls client against a server started from a
 * Corefile, with certificates made at test time.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { copyFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import tls from 'node:tls';
import { replyTo } from '@foghorn/core';
import bind from '@foghorn/plugin-bind';
import whoami from '@foghorn/plugin-whoami';
import { decodeReply, directivesOf, kdig, makeQuery, makeTestPki, startServer, tcpExchange, testPlugin, whenClosed } from '@foghorn/testkit';
import type { TestPki, TestServer } from '@foghorn/testkit';
import tlsPlugin from '@foghorn/plugin-tls';
import { firstClosed, holdConnections } from './connections.js';

/** Answers every query with 60 A records: far over 512 bytes, so UDP would truncate it. */
const big = testPlugin('big', () => ({
  name: 'big',
  serveDNS(req, w) {
    const msg = replyTo(req);
    msg.answers = Array.from({ length: 60 }, (_, i) => ({ type: 'A' as const, name: req.name, ttl: 30, data: `10.0.0.${i}` }));
    w.write(msg);
    return 0;
  },
}));
const directives = directivesOf(bind, tlsPlugin, big, whoami);

let pki: TestPki;
before(() => {
  pki = makeTestPki();
});
after(() => pki.remove());

function corefile(options: { clientAuth?: string; cert?: string; key?: string } = {}): string {
  const block = options.clientAuth ? ` {\n    client_auth ${options.clientAuth}\n  }` : '';
  // Both blocks share one listener, whose TLS settings are the last block's (as in CoreDNS): the same line in both.
  const line = `tls ${options.cert ?? pki.server.certFile} ${options.key ?? pki.server.keyFile} ${pki.ca.certFile}${block}`;
  return `tls://.:0 {
  bind 127.0.0.1
  ${line}
  whoami
}
tls://big.test:0 {
  bind 127.0.0.1
  ${line}
  big
}
`;
}

async function serve(text: string): Promise<TestServer> {
  return startServer(text, { directives });
}

function trusting(extra: tls.ConnectionOptions = {}): tls.ConnectionOptions {
  return { ca: pki.ca.cert, servername: 'localhost', ...extra };
}

test('kdig +tls: an A answer, several queries on one connection (+keepopen), TLS 1.3', async (t) => {
  const server = await serve(corefile());
  t.after(() => server.close());
  const port = String(server.port());
  const out = await kdig(['@127.0.0.1', '-p', port, '+tls', `+tls-ca=${pki.ca.certFile}`, '+tls-hostname=localhost', '+keepopen', 'example.org', 'A', 'example.net', 'A']);
  assert.match(out, /;; TLS session \(TLS1\.3\)/);
  assert.match(out, /example\.org\.\s+0\s+IN\s+A\s+127\.0\.0\.1/);
  assert.match(out, /example\.net\.\s+0\s+IN\s+A\s+127\.0\.0\.1/);
  // whoami's SRV record shows the client's port: one connection for both queries.
  const ports = [...out.matchAll(/IN\s+SRV\s+0 0 (\d+) \./g)].map((m) => m[1]);
  assert.equal(ports.length, 2);
  assert.equal(ports[0], ports[1]);
  assert.match(out, /_tcp\.example\.org\./);
});

test('kdig refuses the server without the CA, and with a wrong host name', async (t) => {
  const server = await serve(corefile());
  t.after(() => server.close());
  const port = String(server.port());
  await assert.rejects(kdig(['@127.0.0.1', '-p', port, '+tls-ca', '+tls-hostname=localhost', '+retry=0', 'example.org']));
  await assert.rejects(kdig(['@127.0.0.1', '-p', port, `+tls-ca=${pki.ca.certFile}`, '+tls-hostname=other.test', '+retry=0', 'example.org']));
});

test('Node tls client: pipelined queries on one connection, answered by the zone routing, never truncated', async (t) => {
  const server = await serve(corefile());
  t.after(() => server.close());
  const wires = [makeQuery('a.example.org', 'A', { id: 1 }), makeQuery('x.big.test', 'A', { id: 2, udpSize: 512 }), makeQuery('b.example.org', 'AAAA', { id: 3 })];
  // The three frames are written at once: the listener reads them from one stream (pipelining).
  const replies = (await tcpExchange({ port: server.port('.'), tls: trusting() }, wires)).map(decodeReply);
  assert.deepEqual(replies.map((r) => r.id).sort(), [1, 2, 3]);
  const bigReply = replies.find((r) => r.id === 2)!;
  assert.equal(bigReply.flag_tc, false);
  assert.equal(bigReply.answers!.length, 60);
  const a = replies.find((r) => r.id === 1)!;
  assert.equal(a.additionals![0]!.name, 'a.example.org');
});

test('only TLS 1.2 and newer', async (t) => {
  const server = await serve(corefile());
  t.after(() => server.close());
  const port = server.port();
  await assert.rejects(tcpExchange({ port, tls: trusting({ minVersion: 'TLSv1', maxVersion: 'TLSv1.1' }) }, makeQuery('example.org', 'A')));
  const [reply] = await tcpExchange({ port, tls: trusting({ maxVersion: 'TLSv1.2' }) }, makeQuery('example.org', 'A'));
  assert.equal(decodeReply(reply!).additionals!.length, 2);
});

test('sessions resume: a second connection with the ticket of the first skips the full handshake', async (t) => {
  const server = await serve(corefile());
  t.after(() => server.close());
  const port = server.port();
  const first = tls.connect({ port, host: '127.0.0.1', ...trusting() });
  const [session] = (await once(first, 'session')) as [Buffer];
  first.destroy();
  const second = tls.connect({ port, host: '127.0.0.1', ...trusting({ session }) });
  await once(second, 'secureConnect');
  assert.equal(second.isSessionReused(), true);
  second.destroy();
});

/** Connects with a client certificate (or none) and reports whether a query got its answer. */
async function answered(port: number, cert?: { cert: string; key: string }): Promise<boolean> {
  try {
    const replies = await tcpExchange({ port, tls: trusting(cert ?? {}) }, makeQuery('example.org', 'A'), 1500);
    return replies.length === 1;
  } catch {
    return false;
  }
}

test('client_auth: each policy admits the clients Go would admit', async (t) => {
  const client = { cert: pki.client.cert, key: pki.client.key };
  const stranger = { cert: pki.stranger.cert, key: pki.stranger.key };
  // [policy, no certificate, certificate of the CA, certificate of another CA]
  const table: [string, boolean, boolean, boolean][] = [
    ['nocert', true, true, true],
    ['request', true, true, true],
    ['require', false, true, true],
    ['verify_if_given', true, true, false],
    ['require_and_verify', false, true, false],
  ];
  for (const [policy, none, ours, theirs] of table) {
    const server = await serve(corefile({ clientAuth: policy }));
    t.after(() => server.close());
    const port = server.port('.');
    assert.deepEqual([await answered(port), await answered(port, client), await answered(port, stranger)], [none, ours, theirs], policy);
  }
});

test('reload: a new certificate is served to new connections; a broken one fails the reload and the old one keeps serving', async (t) => {
  const cert = join(pki.dir, 'live.pem');
  const key = join(pki.dir, 'live.key');
  copyFileSync(pki.server.certFile, cert);
  copyFileSync(pki.server.keyFile, key);
  const server = await serve(corefile({ cert, key }));
  t.after(() => server.close());
  const port = server.port('.');
  const serial = async (): Promise<string> => {
    const socket = tls.connect({ port, host: '127.0.0.1', ...trusting() });
    await once(socket, 'secureConnect');
    const value = socket.getPeerCertificate().serialNumber;
    socket.destroy();
    return value;
  };
  const before = await serial();
  // An open connection outlives the reload.
  const open = tls.connect({ port, host: '127.0.0.1', ...trusting() });
  await once(open, 'secureConnect');

  const renewed = pki.issueServer('renewed');
  copyFileSync(renewed.certFile, cert);
  copyFileSync(renewed.keyFile, key);
  assert.equal(await server.reload(), true);
  const after = await serial();
  assert.notEqual(after, before);
  assert.equal(server.port('.'), port, 'the listener is kept');

  copyFileSync(pki.stranger.keyFile, key); // no longer the certificate's key
  assert.equal(await server.reload(), false);
  assert.match(server.server.lastReloadError!.message, /^plugin\/tls: Corefile:3:7 - Error during parsing: could not load TLS cert: /);
  assert.equal(await serial(), after);
  assert.equal(await answered(port), true);

  const query = makeQuery('still.example.org', 'A');
  open.write(Buffer.concat([Buffer.from([0, query.length]), query]));
  const [chunk] = (await once(open, 'data')) as [Buffer];
  assert.equal(decodeReply(chunk.subarray(2)).additionals![0]!.name, 'still.example.org');
  open.destroy();
});

test('garbage instead of a TLS handshake closes that connection only', async (t) => {
  const server = await serve(corefile());
  t.after(() => server.close());
  const port = server.port('.');
  const garbage = net.connect(port, '127.0.0.1');
  garbage.on('error', () => undefined);
  const closed = whenClosed(garbage);
  await once(garbage, 'connect');
  garbage.write(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
  await closed;
  assert.equal(await answered(port), true);
});

test('at the connection cap a new DoT client gets in: the connections idle the longest, still handshaking, make room', async (t) => {
  const server = await startServer(corefile(), { directives, tcpLimits: { maxConnections: 50 } });
  t.after(() => server.close());
  const port = server.port('.');
  // 60 connections that never start a handshake: the 10 oldest are closed as the last 10 come in.
  const held = await holdConnections(t, port, 60);
  const replies = await tcpExchange({ port, tls: trusting() }, makeQuery('example.org', 'A'), 10_000);
  assert.equal(replies.length, 1, 'the new client is answered');
  // And one more for the new client: 11 in all, the oldest first.
  await firstClosed(held, 11);
});
