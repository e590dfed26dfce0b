/**
 * The timeouts applied by the listeners: TCP of a dns:// block, DoT and DoH. Each test has a
 * time limit well under CoreDNS's defaults (10 s idle), so a timeout that was not applied fails it.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http2 from 'node:http2';
import net from 'node:net';
import { after, before, test } from 'node:test';
import tls from 'node:tls';
import bind from '@foghorn/plugin-bind';
import timeouts from '@foghorn/plugin-timeouts';
import tlsPlugin from '@foghorn/plugin-tls';
import whoami from '@foghorn/plugin-whoami';
import { replyTo } from '@foghorn/core';
import { decodeReply, directivesOf, makeQuery, makeTestPki, startServer, tcpExchange, testPlugin, whenClosed } from '@foghorn/testkit';
import type { TestPki, TestServer } from '@foghorn/testkit';

const limit = { timeout: 5_000 };
let pki: TestPki;
let server: TestServer;
before(async () => {
  pki = makeTestPki();
  const settings = `  bind 127.0.0.1\n  tls ${pki.server.certFile} ${pki.server.keyFile}\n  timeouts {\n    read 1s\n    idle 1s\n    maxtcpqueries 2\n  }\n  whoami\n`;
  server = await startServer(`.:0 {\n${settings}}\ntls://.:0 {\n${settings}}\nhttps://.:0 {\n${settings}}\n`, {
    directives: directivesOf(timeouts, bind, tlsPlugin, whoami),
  });
});
after(async () => {
  await server.close();
  pki.remove();
});

function portOf(transport: 'dns' | 'tls' | 'https'): number {
  return server.server.addresses.find((l) => l.transport === transport)!.port;
}

const trusting: tls.ConnectionOptions = { servername: 'localhost' };
before(() => {
  trusting.ca = pki.ca.cert;
});

test('maxtcpqueries: the third pipelined query on a TCP or DoT connection is not read; the connection closes after two replies', limit, async () => {
  for (const target of [{ port: portOf('dns') }, { port: portOf('tls'), tls: trusting }]) {
    const wires = [1, 2, 3].map((id) => makeQuery(`q${id}.example.org`, 'A', { id }));
    const replies = await tcpExchange(target, wires, 3_000);
    assert.deepEqual(replies.map((r) => decodeReply(r).id).sort(), [1, 2]);
  }
});

test('idle: a TCP or DoT connection that answered is closed after 1 s without a query', limit, async () => {
  for (const [port, secure] of [[portOf('dns'), false], [portOf('tls'), true]] as const) {
    const socket = secure ? tls.connect({ port, host: '127.0.0.1', ...trusting }) : net.connect(port, '127.0.0.1');
    const closed = whenClosed(socket);
    await once(socket, secure ? 'secureConnect' : 'connect');
    const query = makeQuery('example.org', 'A');
    socket.write(Buffer.concat([Buffer.from([0, query.length]), query]));
    const [chunk] = (await once(socket, 'data')) as [Buffer];
    assert.equal(decodeReply(chunk.subarray(2)).additionals!.length, 2);
    await closed;
  }
});

test('read: a connection that sends nothing is closed after 1 s', limit, async () => {
  const socket = net.connect(portOf('dns'), '127.0.0.1');
  await once(socket, 'connect');
  await whenClosed(socket);
});

test('idle: an HTTP/2 session of the DoH listener is closed after 1 s without a request', limit, async () => {
  const session = http2.connect(`https://127.0.0.1:${portOf('https')}`, trusting);
  session.on('error', () => undefined);
  const closed = whenClosed(session);
  const stream = session.request({ ':path': `/dns-query?dns=${makeQuery('example.org', 'A').toString('base64url')}` });
  stream.resume();
  stream.end();
  const [headers] = (await once(stream, 'response')) as [http2.IncomingHttpHeaders];
  assert.equal(headers[':status'], 200);
  await closed;
});

test('DoT clients that stall: a handshake then silence, half a frame; both are closed while others are served', limit, async () => {
  const port = portOf('tls');
  const silent = tls.connect({ port, host: '127.0.0.1', ...trusting });
  const half = tls.connect({ port, host: '127.0.0.1', ...trusting });
  const closed = Promise.all([whenClosed(silent), whenClosed(half)]);
  await Promise.all([once(silent, 'secureConnect'), once(half, 'secureConnect')]);
  half.write(Buffer.from([0, 40, 1, 2, 3]));
  const [reply] = await tcpExchange({ port, tls: trusting }, makeQuery('example.org', 'A'));
  assert.equal(decodeReply(reply!).additionals!.length, 2);
  await closed;
});

test('read: a query trickled a byte every 200 ms on TCP or DoT is cut 1 s after its first byte, not kept alive by the bytes', limit, async () => {
  for (const [port, secure] of [[portOf('dns'), false], [portOf('tls'), true]] as const) {
    const socket = secure ? tls.connect({ port, host: '127.0.0.1', ...trusting }) : net.connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    await once(socket, secure ? 'secureConnect' : 'connect');
    // A first query answered, so the trickled one is a later frame (under the idle, then the read timeout).
    const query = makeQuery('example.org', 'A');
    socket.write(Buffer.concat([Buffer.from([0, query.length]), query]));
    await once(socket, 'data');
    const started = Date.now();
    // Not events.once: the cut may arrive as a reset ('error' before 'close'), which is the expected end.
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.write(Buffer.from([0, 200]));
    const trickle = setInterval(() => socket.destroyed || socket.write(Buffer.from([0x61])), 200);
    try {
      await closed;
    } finally {
      clearInterval(trickle);
    }
    const took = Date.now() - started;
    assert.ok(took >= 900 && took < 1_900, `${secure ? 'DoT' : 'TCP'} closed ${took} ms after the first byte`);
  }
});

test('a TLS client that connects and never sends its hello is closed after the read timeout', limit, async () => {
  const socket = net.connect(portOf('tls'), '127.0.0.1');
  await once(socket, 'connect');
  await whenClosed(socket);
});

/** Answers with 200 A records (about 3 KB), so replies pile up fast on a client that does not read. */
const big = testPlugin('big', () => ({
  name: 'big',
  serveDNS(req, w) {
    const msg = replyTo(req);
    msg.answers = Array.from({ length: 200 }, (_, i) => ({ type: 'A' as const, name: req.name, ttl: 30, data: `10.0.${i >> 8}.${i & 255}` }));
    w.write(msg);
    return 0;
  },
}));

test('write: a TCP client that stops reading its replies is cut after the write timeout', limit, async (t) => {
  const blocked = await startServer('.:0 {\n  bind 127.0.0.1\n  timeouts {\n    write 1s\n    idle 60s\n  }\n  big\n}\n', {
    directives: directivesOf(timeouts, bind, big),
  });
  const socket = net.connect(blocked.port(), '127.0.0.1');
  socket.on('error', () => undefined);
  // The client goes first, so that a failing run cannot leave the server waiting on it.
  t.after(() => {
    socket.destroy();
    return blocked.close();
  });
  // Not events.once: the reset arrives as an 'error' before 'close', and that is the expected end.
  const closed = new Promise((resolve) => socket.once('close', resolve));
  await once(socket, 'connect');
  socket.pause();
  const query = makeQuery('example.org', 'A');
  const frame = Buffer.concat([Buffer.from([0, query.length]), query]);
  // About 30 MB of replies: more than both sockets' kernel buffers hold, so the server's writes back up.
  const batch = Buffer.concat(Array.from({ length: 1_000 }, () => frame));
  for (let i = 0; i < 10 && !socket.destroyed; i++) {
    if (!socket.write(batch)) await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), closed]);
  }
  // A paused socket notices the server's reset only when it writes: keep sending one query now and then.
  const poke = setInterval(() => {
    if (!socket.destroyed) socket.write(frame, () => undefined);
  }, 100);
  t.after(() => clearInterval(poke));
  await closed;
});
