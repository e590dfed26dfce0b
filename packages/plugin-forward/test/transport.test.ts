import { test } from 'node:test';
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { answering, delay, directivesOf, eventually, makeQuery, metric, query, reply, startServer, startUpstream, tcpExchange, upstreamFor } from '@foghorn/testkit';
import type { Behaviour } from '@foghorn/testkit';
import { serve } from './serve.js';
import bind from '@foghorn/plugin-bind';
import { createForwardPlugin } from '@foghorn/plugin-forward';
import type { Forward } from '@foghorn/plugin-forward';

/** Truncates over UDP (TC, no answers); answers fully over TCP. */
const truncatingOverUdp: Behaviour = (q, transport, raw) => (transport === 'udp' ? [reply(q, { tc: true })] : answering(q, transport, raw));

test('a truncated UDP reply reaches a UDP client, whose TCP retry goes upstream over TCP', async (t) => {
  const upstream = await upstreamFor(t, truncatingOverUdp);
  const server = await serve(t, `forward . ${upstream.address}`);
  const overUdp = await query({ port: server.port() }, 'example.org', 'A');
  assert.equal(overUdp.flag_tc, true);
  const overTcp = await query({ port: server.port() }, 'example.org', 'A', { transport: 'tcp' });
  assert.equal(overTcp.flag_tc, false);
  assert.equal(overTcp.answers?.length, 1);
  assert.deepEqual(
    upstream.lookups.map((q) => q.transport),
    ['udp', 'tcp'],
  );
});

test('prefer_udp retries a truncated reply over TCP at once', async (t) => {
  const upstream = await upstreamFor(t, truncatingOverUdp);
  const server = await serve(t, `forward . ${upstream.address} {\n prefer_udp\n }`);
  const answer = await query({ port: server.port() }, 'example.org', 'A', { transport: 'tcp' });
  assert.equal(answer.flag_tc, false);
  assert.equal(answer.answers?.length, 1);
  assert.deepEqual(
    upstream.lookups.map((q) => q.transport),
    ['udp', 'tcp'],
  );
});

test('force_tcp sends every query over TCP', async (t) => {
  const upstream = await upstreamFor(t);
  const server = await serve(t, `forward . ${upstream.address} {\n force_tcp\n }`);
  await query({ port: server.port() }, 'example.org', 'A');
  await query({ port: server.port() }, 'example.org', 'A');
  assert.deepEqual(
    upstream.lookups.map((q) => q.transport),
    ['tcp', 'tcp'],
  );
  // One connection, reused for the second query.
  assert.equal(upstream.connections, 1);
  assert.equal(await metric(server, 'coredns_proxy_conn_cache_hits_total', { proto: 'tcp', to: upstream.address }), 1);
  assert.equal(await metric(server, 'coredns_proxy_conn_cache_misses_total', { proto: 'tcp', to: upstream.address }), 1);
});

/** Sends a reply with a wrong ID and one with a wrong question before the real one. */
const spoofing: Behaviour = async (q, transport, raw) => {
  const [real] = answering(q, transport, raw) as [ReturnType<typeof reply>];
  const spoofed = { ...real, answers: [{ type: 'A' as const, name: q.questions[0]?.name ?? '', ttl: 60, data: '203.0.113.66' }] };
  await delay(5);
  return [
    { ...spoofed, id: (q.id + 1) & 0xffff },
    { ...spoofed, questions: [{ name: 'evil.example', type: 'A', class: 'IN' }] },
    real,
  ];
};

for (const transport of ['udp', 'tcp'] as const) {
  test(`replies over ${transport} with a wrong ID or question are dropped, and the real one is used`, async (t) => {
    const upstream = await upstreamFor(t, spoofing);
    const server = await serve(t, `forward . ${upstream.address}`);
    for (let i = 0; i < 3; i++) {
      const answer = await query({ port: server.port() }, 'example.org', 'A', { transport });
      assert.equal(answer.rcode, 'NOERROR');
      assert.deepEqual(
        answer.answers?.map((rr) => (rr as { data: unknown }).data),
        ['192.0.2.1'],
      );
    }
  });
}

/**
 * For type 65 (HTTPS) first replies with type 97 (0x61, 0x41 lower-cased) and the name in upper
 * case, then with the real question: a case-insensitive match must cover the name only.
 */
const lowerCasedType: Behaviour = (_q, _transport, raw) => {
  const answer = (type: number, upper: boolean): Buffer => {
    const wire = Buffer.from(raw);
    wire[2] = wire[2]! | 0x80;
    const end = wire.length - 4;
    if (upper) for (let i = 12; i < end; i++) if (wire[i]! >= 0x61 && wire[i]! <= 0x7a) wire[i] = wire[i]! - 0x20;
    wire.writeUInt16BE(type, end);
    return wire;
  };
  return [answer(97, true), answer(65, true)];
};

test('a reply whose type differs only as a lower-cased letter would is dropped; the name may differ in case', async (t) => {
  const upstream = await upstreamFor(t, lowerCasedType);
  const server = await serve(t, `forward . ${upstream.address}`);
  const answer = await query({ port: server.port() }, 'example.org', 'UNKNOWN_65' as never);
  assert.equal(answer.rcode, 'NOERROR');
  assert.equal(answer.questions?.[0]?.type, 'UNKNOWN_65');
  assert.equal(answer.questions?.[0]?.name, 'EXAMPLE.ORG');
});

test('an upstream that closes TCP connections after each reply gets new ones, and queries still succeed', async (t) => {
  const upstream = await upstreamFor(t);
  upstream.closeAfterReply = true;
  const server = await serve(t, `forward . ${upstream.address} {\n force_tcp\n }`);
  for (let i = 0; i < 5; i++) {
    assert.equal((await query({ port: server.port() }, `q${i}.example.org`, 'A')).rcode, 'NOERROR');
    // Give the close a moment half of the time, so both paths run: the closed connection is seen
    // before it is taken, or only when the query on it fails.
    if (i % 2 === 0) await delay(10);
  }
  assert.equal(upstream.lookups.length, 5);
  assert.ok(upstream.connections >= 5);
});

test('UDP sockets are reused across queries', async (t) => {
  const upstream = await upstreamFor(t);
  const server = await serve(t, `forward . ${upstream.address}`);
  for (let i = 0; i < 5; i++) await query({ port: server.port() }, 'example.org', 'A');
  assert.equal(await metric(server, 'coredns_proxy_conn_cache_misses_total', { proto: 'udp' }), 1);
  assert.equal(await metric(server, 'coredns_proxy_conn_cache_hits_total', { proto: 'udp' }), 4);
});

test('expire closes idle upstream connections, and the next query opens new ones', async (t) => {
  const upstream = await upstreamFor(t);
  const server = await serve(t, `forward . ${upstream.address} {\n force_tcp\n expire 30ms\n }`);
  await query({ port: server.port() }, 'example.org', 'A');
  await eventually(() => upstream.connections === 1);
  // The idle connection is closed by forward once it expires: the upstream sees it go.
  await eventually(() => upstream.open === 0);
  await query({ port: server.port() }, 'example.org', 'A');
  assert.equal(upstream.connections, 2);
  assert.equal(await metric(server, 'coredns_proxy_conn_cache_misses_total', { proto: 'tcp' }), 2);
});

test('expire closes an idle UDP socket, counted from its last query', async (t) => {
  const upstream = await startUpstream();
  t.after(() => upstream.close());
  const forwards: Forward[] = [];
  const server = await startServer(`.:0 {\n bind 127.0.0.1\n forward . ${upstream.address} {\n expire 1s\n }\n}\n`, {
    directives: directivesOf(bind, createForwardPlugin({ onForward: (f) => forwards.push(f) })),
  });
  t.after(() => server.close());
  const proxy = forwards[0]?.proxies[0];
  assert.ok(proxy);
  await query({ port: server.port() }, 'example.org', 'A');
  assert.equal(proxy.openConnections, 1);
  // Used again before it expires: its expiry counts from this query, not from the first.
  await delay(600);
  await query({ port: server.port() }, 'example.org', 'A');
  await delay(600);
  assert.equal(proxy.openConnections, 1, 'idle for 600 ms of 1 s: still open');
  await eventually(() => proxy.openConnections === 0);
  await query({ port: server.port() }, 'example.org', 'A');
  assert.equal(proxy.openConnections, 1, 'the next query opens a new socket');
  assert.equal(upstream.udpPorts.size, 2);
});

test('max_idle_conns caps the idle TCP connections kept', async (t) => {
  const upstream = await upstreamFor(t, async (q, transport, raw) => {
    await delay(30);
    return answering(q, transport, raw);
  });
  const server = await serve(t, `forward . ${upstream.address} {\n force_tcp\n max_idle_conns 1\n }`);
  await Promise.all([1, 2, 3].map((i) => query({ port: server.port() }, `q${i}.example.org`, 'A')));
  assert.equal(upstream.connections, 3);
  await Promise.all([1, 2].map((i) => query({ port: server.port() }, `r${i}.example.org`, 'A')));
  // One connection was kept idle and reused; the other query needed a new one.
  assert.equal(upstream.connections, 4);
});

/**
 * Sends `total` UDP queries from one client socket, `window` in flight at a time, and resolves
 * with the number answered (a socket per query would make the client the bottleneck).
 */
function blast(port: number, total: number, window: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket('udp4');
    let sent = 0;
    let answered = 0;
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error(`only ${answered} of ${total} answered`));
    }, 30_000);
    const send = (): void => {
      const id = sent & 0xffff;
      socket.send(makeQuery(`n${sent}.example.org`, 'A', { id }), port, '127.0.0.1');
      sent++;
    };
    socket.on('message', () => {
      answered++;
      if (answered === total) {
        clearTimeout(timer);
        socket.close();
        resolve(answered);
      } else if (sent < total) send();
    });
    socket.bind(0, '127.0.0.1', () => {
      for (let i = 0; i < window; i++) send();
    });
  });
}

test('no socket or timer is left behind after 10,000 queries and shutdown', async () => {
  const before = process.getActiveResourcesInfo().length;
  const upstream = await startUpstream();
  const forwards: Forward[] = [];
  const server = await startServer(`.:0 {\n bind 127.0.0.1\n forward . ${upstream.address} {\n expire 1h\n }\n}\n`, {
    directives: directivesOf(bind, createForwardPlugin({ onForward: (f) => forwards.push(f) })),
  });
  const target = { port: server.port() };
  assert.equal(await blast(target.port, 10_000, 100), 10_000);
  const tcpReplies = await tcpExchange(target, Array.from({ length: 50 }, (_, i) => makeQuery(`t${i}.example.org`, 'A')));
  assert.equal(tcpReplies.length, 50);
  const proxy = forwards[0]?.proxies[0];
  assert.ok(proxy);
  // 100 queries in flight at a time fit on one multiplexed UDP socket. TCP carries one query at
  // a time per connection, so the 50 pipelined ones may have needed up to 50, all pooled now.
  assert.equal(upstream.udpPorts.size, 1);
  assert.ok(proxy.openConnections <= 51, `${proxy.openConnections} upstream sockets open`);
  await server.close();
  assert.equal(proxy.openConnections, 0);
  await upstream.close();
  // Every per-query timer was cleared: nothing but what was there before keeps the loop alive.
  await eventually(() => process.getActiveResourcesInfo().length <= before);
});
