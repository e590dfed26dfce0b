/**
 * DNS over HTTPS end to end: kdig +https, Node's http2 and https clients, raw TLS sockets for
 * what clients do not send (HTTP/1.0, oversized bodies), against a server started from a Corefile.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http2 from 'node:http2';
import net from 'node:net';
import { after, before, test } from 'node:test';
import tls from 'node:tls';
import { replyTo } from '@foghorn/core';
import { cacheMaxAge, defaultHttp2MaxStreams } from '@foghorn/core/server';
import bind from '@foghorn/plugin-bind';
import tlsPlugin from '@foghorn/plugin-tls';
import whoami from '@foghorn/plugin-whoami';
import { decodeReply, directivesOf, dohRequest, kdig, makeQuery, makeTestPki, startServer, testPlugin, whenClosed } from '@foghorn/testkit';
import type { TestPki, TestServer } from '@foghorn/testkit';
import dnsPacket from 'dns-packet';
import { firstClosed, holdConnections } from './connections.js';

/** Answers `ttl.test` names with records of TTL 300 and 60, and writes nothing for `silent.test`. */
const ttl = testPlugin('ttl', (next) => ({
  name: 'ttl',
  serveDNS(req, w) {
    if (req.qname.endsWith('silent.test.')) return 0;
    if (!req.qname.endsWith('ttl.test.')) return next!.serveDNS(req, w);
    const msg = replyTo(req);
    msg.answers = [
      { type: 'A', name: req.name, ttl: 300, data: '10.0.0.1' },
      { type: 'A', name: req.name, ttl: 60, data: '10.0.0.2' },
    ];
    // big.ttl.test: 60 more records, far over the 512 bytes the query allows over UDP.
    if (req.qname.endsWith('big.ttl.test.')) {
      for (let i = 0; i < 60; i++) msg.answers.push({ type: 'A', name: req.name, ttl: 120, data: `10.0.1.${i}` });
    }
    w.write(msg);
    return 0;
  },
}));

let pki: TestPki;
let server: TestServer;
let port: number;
before(async () => {
  pki = makeTestPki();
  server = await startServer(
    `https://.:0 https://ttl.test:0 https://silent.test:0 {\n  bind 127.0.0.1\n  tls ${pki.server.certFile} ${pki.server.keyFile}\n  ttl\n  whoami\n}\n`,
    { directives: directivesOf(bind, tlsPlugin, ttl, whoami) },
  );
  port = server.port('.');
});
after(async () => {
  await server.close();
  pki.remove();
});

const get = (wire: Buffer): string => `/dns-query?dns=${wire.toString('base64url')}`;

test('kdig +https (POST) and +https-get over HTTP/2', async () => {
  for (const mode of ['+https', '+https-get']) {
    const out = await kdig(['@127.0.0.1', '-p', String(port), mode, `+tls-ca=${pki.ca.certFile}`, '+tls-hostname=localhost', 'x.ttl.test', 'A']);
    assert.match(out, new RegExp(`HTTP session \\(HTTP/2-${mode === '+https' ? 'POST' : 'GET'}\\)-\\(localhost/dns-query\\)-\\(status: 200\\)`));
    assert.match(out, /x\.ttl\.test\.\s+60\s+IN\s+A\s+10\.0\.0\.2/);
  }
});

test('GET and POST over HTTP/2 and HTTP/1.1: the reply, its type, and max-age = the smallest TTL', async () => {
  const wire = makeQuery('a.ttl.test', 'A', { id: 0 });
  for (const http1 of [false, true]) {
    for (const request of [{ path: get(wire) }, { method: 'POST', body: wire }]) {
      const reply = await dohRequest({ port, ca: pki.ca.cert, http1, ...request });
      assert.equal(reply.protocol, http1 ? 'http/1.1' : 'h2');
      assert.equal(reply.status, 200);
      assert.equal(reply.headers['content-type'], 'application/dns-message');
      assert.equal(reply.headers['cache-control'], 'max-age=60');
      assert.equal(Number(reply.headers['content-length']), reply.body.length);
      assert.deepEqual(decodeReply(reply.body).answers!.map((a) => (a as dnsPacket.StringAnswer).ttl), [300, 60]);
    }
  }
});

test('a reply over the client\'s UDP size is not truncated', async () => {
  const reply = await dohRequest({ port, ca: pki.ca.cert, method: 'POST', body: makeQuery('x.big.ttl.test', 'A', { udpSize: 512 }) });
  const packet = decodeReply(reply.body);
  assert.equal(packet.flag_tc, false);
  assert.equal(packet.answers!.length, 62);
});

test('client_auth and a reload on a DoH listener: require_and_verify, then nocert after the reload', async (t) => {
  const block = (policy: string): string =>
    `https://.:0 {\n  bind 127.0.0.1\n  tls ${pki.server.certFile} ${pki.server.keyFile} ${pki.ca.certFile} {\n    client_auth ${policy}\n  }\n  whoami\n}\n`;
  const strict = await startServer(block('require_and_verify'), { directives: directivesOf(bind, tlsPlugin, whoami) });
  t.after(() => strict.close());
  const request = { port: strict.port(), ca: pki.ca.cert, path: get(makeQuery('example.org', 'A')) };
  const client = { cert: pki.client.cert, key: pki.client.key };
  const stranger = { cert: pki.stranger.cert, key: pki.stranger.key };
  for (const http1 of [false, true]) {
    assert.equal((await dohRequest({ ...request, ...client, http1 })).status, 200);
    await assert.rejects(dohRequest({ ...request, http1 }));
    await assert.rejects(dohRequest({ ...request, ...stranger, http1 }));
  }
  assert.equal(await strict.reload(block('nocert')), true);
  assert.equal((await dohRequest(request)).status, 200);
});

test('the whole chain answers: whoami sees the client over tcp; zones are routed by suffix', async () => {
  const reply = await dohRequest({ port, ca: pki.ca.cert, path: get(makeQuery('example.org', 'A')) });
  const packet = decodeReply(reply.body);
  assert.equal(packet.additionals![1]!.name, '_tcp.example.org');
  // whoami answers with TTL 0.
  assert.equal(reply.headers['cache-control'], 'max-age=0');
});

test('statuses as CoreDNS gives them; none of them stops the listener', async () => {
  const ca = pki.ca.cert;
  const wire = makeQuery('a.ttl.test', 'A');
  const cases: [string, Parameters<typeof dohRequest>[0], number][] = [
    ['another path', { port, ca, path: '/resolve?dns=AAAA' }, 404],
    ['the root', { port, ca, path: '/' }, 404],
    ['PUT', { port, ca, method: 'PUT', body: wire }, 400],
    ['DELETE', { port, ca, method: 'DELETE', path: get(wire) }, 400],
    ['GET without dns', { port, ca, path: '/dns-query' }, 400],
    ['GET with two dns', { port, ca, path: `${get(wire)}&dns=${wire.toString('base64url')}` }, 400],
    ['padding', { port, ca, path: `${get(wire)}==` }, 400],
    ['standard base64', { port, ca, path: `/dns-query?dns=${encodeURIComponent(Buffer.from([0xfb, 0xff, ...wire]).toString('base64'))}` }, 400],
    ['not a message', { port, ca, path: '/dns-query?dns=AAAA' }, 400],
    ['an empty body', { port, ca, method: 'POST', body: Buffer.alloc(0) }, 400],
    ['a body of 70,000 bytes', { port, ca, method: 'POST', body: Buffer.alloc(70_000) }, 400],
    ['a chain that writes nothing', { port, ca, path: get(makeQuery('x.silent.test', 'A')) }, 500],
  ];
  for (const [what, request, status] of cases) {
    for (const http1 of [false, true]) {
      const reply = await dohRequest({ ...request, http1 });
      assert.equal(reply.status, status, `${what} over ${http1 ? 'HTTP/1.1' : 'HTTP/2'}`);
    }
  }
  // Content type is not checked (CoreDNS reads the body whatever it says).
  const typed = await dohRequest({ port, ca, method: 'POST', body: wire, headers: { 'content-type': 'text/plain' } });
  assert.equal(typed.status, 200);
  const reply = await dohRequest({ port, ca, path: get(wire) });
  assert.equal(reply.status, 200);
});

/** A raw TLS connection to the listener speaking HTTP/1.x, for requests clients will not send. */
async function raw(request: string | Buffer, alpn = 'http/1.1'): Promise<string> {
  const socket = tls.connect({ port, host: '127.0.0.1', ca: pki.ca.cert, servername: 'localhost', ALPNProtocols: [alpn] });
  await once(socket, 'secureConnect');
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  // Written, not ended: the server decides when the connection closes.
  socket.write(request);
  await whenClosed(socket);
  return Buffer.concat(chunks).toString('latin1');
}

test('HTTP/1.0 is answered, then the connection closes', async () => {
  const wire = makeQuery('a.ttl.test', 'A');
  const out = await raw(`GET ${get(wire)} HTTP/1.0\r\n\r\n`);
  assert.match(out, /^HTTP\/1\.1 200 OK\r\n/);
  assert.match(out, /cache-control: max-age=60/i);
  const body = Buffer.from(out.slice(out.indexOf('\r\n\r\n') + 4), 'latin1');
  assert.equal(dnsPacket.decode(body).answers!.length, 2);
});

test('hostile input: a body that claims 1 GB, a non-HTTP stream, garbage instead of a handshake', async () => {
  const huge = await raw('POST /dns-query HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000000000\r\n\r\n' + 'x'.repeat(70_000));
  assert.match(huge, /^HTTP\/1\.1 400 /);
  const nonsense = await raw('\x00\x01\x02 nonsense\r\n\r\n');
  assert.match(nonsense, /^HTTP\/1\.1 400 Bad Request|^$/);
  const garbage = net.connect(port, '127.0.0.1');
  garbage.on('error', () => undefined);
  const closed = whenClosed(garbage);
  garbage.end('GET /dns-query HTTP/1.1\r\n\r\n');
  await closed;
  const reply = await dohRequest({ port, ca: pki.ca.cert, path: get(makeQuery('a.ttl.test', 'A')) });
  assert.equal(reply.status, 200);
});

test('several requests on one HTTP/2 connection, in parallel', async () => {
  const session = http2.connect(`https://127.0.0.1:${port}`, { ca: pki.ca.cert, servername: 'localhost' });
  try {
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => {
        const stream = session.request({ ':method': 'GET', ':path': get(makeQuery(`n${i}.ttl.test`, 'A', { id: i })) });
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.end();
        return once(stream, 'end').then(() => decodeReply(Buffer.concat(chunks)));
      }),
    );
    assert.deepEqual(replies.map((r) => r.answers![0]!.name), Array.from({ length: 20 }, (_, i) => `n${i}.ttl.test`));
  } finally {
    session.close();
  }
});

test('250 streams per HTTP/2 connection; at the connection cap a new client gets in, a session with a request in progress stays', async (t) => {
  // `wait.test` is answered only when the test says so: a request in progress for as long as needed.
  let arrived!: () => void;
  const inProgress = new Promise<void>((resolve) => (arrived = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const wait = testPlugin('wait', (next) => ({
    name: 'wait',
    serveDNS(req, w) {
      if (req.qname !== 'wait.test.') return next!.serveDNS(req, w);
      arrived();
      return released.then(() => next!.serveDNS(req, w));
    },
  }));
  const capped = await startServer(`https://.:0 {\n  bind 127.0.0.1\n  tls ${pki.server.certFile} ${pki.server.keyFile}\n  wait\n  whoami\n}\n`, {
    directives: directivesOf(bind, tlsPlugin, wait, whoami),
    tcpLimits: { maxConnections: 50 },
  });
  t.after(() => capped.close());
  const cappedPort = capped.port();
  const session = http2.connect(`https://127.0.0.1:${cappedPort}`, { ca: pki.ca.cert, servername: 'localhost' });
  t.after(() => session.close());
  await once(session, 'remoteSettings');
  assert.equal(session.remoteSettings.maxConcurrentStreams, defaultHttp2MaxStreams);
  assert.equal(defaultHttp2MaxStreams, 250);
  const stream = session.request({ ':path': get(makeQuery('wait.test', 'A')) });
  const response = once(stream, 'response');
  stream.resume();
  stream.end();
  await inProgress;
  // 60 idle connections, then a new client: the 12 oldest idle ones make room, not the session.
  const held = await holdConnections(t, cappedPort, 60);
  const fresh = await dohRequest({ port: cappedPort, ca: pki.ca.cert, path: get(makeQuery('example.org', 'A')) });
  assert.equal(fresh.status, 200, 'the new client is answered');
  await firstClosed(held, 12);
  release();
  const [headers] = (await response) as [Record<string, string>];
  assert.equal(headers[':status'], 200, 'the session with a request in progress was kept');
});

test('cacheMaxAge follows dnsutil.MinimalTTL: errors, empty replies and delegations get 5 s, at most an hour', () => {
  const base = { type: 'response' as const, id: 1, flags: 0, questions: [{ type: 'A' as const, name: 'a.example' }] };
  const soa = { type: 'SOA' as const, name: 'example', ttl: 900, data: { mname: 'ns.example', rname: 'h.example', serial: 1, refresh: 1, retry: 1, expire: 1, minimum: 30 } };
  const a = (t: number): dnsPacket.Answer => ({ type: 'A', name: 'a.example', ttl: t, data: '10.0.0.1' });
  assert.equal(cacheMaxAge(dnsPacket.encode({ ...base, answers: [a(120), a(30)] })), 30);
  assert.equal(cacheMaxAge(dnsPacket.encode({ ...base, answers: [a(86_400)] })), 3_600);
  assert.equal(cacheMaxAge(dnsPacket.encode({ ...base, flags: 3, authorities: [soa] })), 900);
  assert.equal(cacheMaxAge(dnsPacket.encode({ ...base, flags: 2, answers: [a(120)] })), 5);
  assert.equal(cacheMaxAge(dnsPacket.encode({ ...base })), 5);
  assert.equal(cacheMaxAge(dnsPacket.encode({ ...base, authorities: [{ type: 'NS', name: 'example', ttl: 600, data: 'ns.example' }] })), 5);
  assert.equal(cacheMaxAge(Buffer.from([1, 2, 3])), 5);
});
