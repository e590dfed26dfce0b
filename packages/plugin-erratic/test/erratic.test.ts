import { test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { once } from 'node:events';
import type { RecordType } from 'dns-packet';
import { definePlugin, ReadinessProbes } from '@foghorn/core';
import type { Controller } from '@foghorn/core';
import bind from '@foghorn/plugin-bind';
import ready, { readyListeners } from '@foghorn/plugin-ready';
import { decodeReply, directivesOf, httpGet, makeQuery, query, rcodeOf, startServer, tcpExchange } from '@foghorn/testkit';
import type { Reply, TestServer } from '@foghorn/testkit';
import erratic from '../src/index.js';

/** Keeps the controller of its block, to find the ready listener. */
let controller: Controller | undefined;
const probe = definePlugin({ name: 'probe', setup: (c) => void (controller = c) });
const directives = directivesOf(bind, ready, probe, erratic);

/** dns-packet encodes HINFO and AXFR queries, but its RecordType leaves them out. */
const HINFO = 'HINFO' as RecordType;
const AXFR = 'AXFR' as RecordType;

/** Name, type, TTL and data of each answer of `reply`. */
function rows(reply: Reply | undefined): [string, string, number | undefined, unknown][] {
  return (reply?.answers ?? []).map((rr) => {
    const r = rr as { name: string; type: string; ttl?: number; data?: unknown };
    return [r.name, r.type, r.ttl, r.data];
  });
}

async function serve(t: TestContext, body: string): Promise<TestServer> {
  const server = await startServer(`example.org:0 {\n    bind 127.0.0.1\n${body}\n}\n`, { directives });
  t.after(() => server.close());
  return server;
}

/**
 * Sends `types` as queries 0, 1, 2... in this order from one UDP socket and collects replies by
 * query number until the last query's reply came (or `count` replies did). erratic handles
 * datagrams in arrival order without waiting (unless delayed), so every query not dropped was
 * answered by then.
 */
async function burst(port: number, types: readonly RecordType[], count?: number): Promise<{ replies: (Reply | undefined)[]; order: number[] }> {
  const socket = dgram.createSocket('udp4');
  socket.bind(0, '127.0.0.1');
  await once(socket, 'listening');
  const replies: (Reply | undefined)[] = types.map(() => undefined);
  const order: number[] = [];
  const last = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no reply to the last query; got ${order.join(',')}`)), 2000);
    socket.on('message', (msg) => {
      const reply = decodeReply(msg);
      const n = (reply.id ?? 0) - 1000;
      replies[n] = reply;
      order.push(n);
      if (count === undefined ? n === types.length - 1 : order.length === count) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  types.forEach((type, n) => socket.send(makeQuery('example.org', type, { id: 1000 + n }), port, '127.0.0.1'));
  try {
    await last;
  } finally {
    socket.close();
  }
  return { replies, order };
}

test('erratic drops every second query, A, AAAA and other types alike (CoreDNS TestErraticDrop)', async (t) => {
  const server = await serve(t, '    erratic {\n        drop 2\n    }');
  const { replies } = await burst(server.port(), ['A', 'A', 'AAAA', HINFO]);
  assert.equal(replies[0], undefined, 'query 0 (A) dropped');
  assert.deepEqual(replies[1]?.answers, [{ name: 'example.org', type: 'A', class: 'IN', ttl: 0, flush: false, data: '192.0.2.53' }]);
  assert.equal(replies[1]?.flag_aa, true);
  assert.equal(replies[2], undefined, 'query 2 (AAAA) dropped');
  assert.equal(rcodeOf(replies[3]!), 'SERVFAIL', 'query 3 (HINFO) answered SERVFAIL');
});

test('erratic without a block drops 1 in 2 by default', async (t) => {
  const server = await serve(t, '    erratic');
  const { replies } = await burst(server.port(), ['A', 'AAAA', 'A', 'AAAA']);
  assert.deepEqual(replies.map((r) => r !== undefined), [false, true, false, true]);
  assert.deepEqual(rows(replies[1]), [['example.org', 'AAAA', 0, '2001:db8::53']]);
});

test('erratic truncates every second query (CoreDNS TestErraticTruncate)', async (t) => {
  const server = await serve(t, '    erratic {\n        truncate 2\n    }');
  const { replies } = await burst(server.port(), ['A', 'A', 'A', 'A']);
  assert.deepEqual(replies.map((r) => r?.flag_tc), [true, false, true, false]);
  // A truncated reply still carries its answer, as CoreDNS's erratic only sets the TC bit.
  assert.deepEqual(replies.map((r) => r?.answers?.length), [1, 1, 1, 1]);
});

test('erratic answers A and AAAA with fixed records over UDP and TCP (CoreDNS TestErratic)', async (t) => {
  const server = await serve(t, '    erratic {\n        drop 0\n    }');
  for (const transport of ['udp', 'tcp'] as const) {
    const a = await query({ port: server.port() }, 'Example.ORG', 'A', { transport });
    assert.deepEqual(rows(a), [['Example.ORG', 'A', 0, '192.0.2.53']], transport);
    const aaaa = await query({ port: server.port() }, 'example.org', 'AAAA', { transport });
    assert.deepEqual(rows(aaaa), [['example.org', 'AAAA', 0, '2001:db8::53']], transport);
    assert.equal(rcodeOf(await query({ port: server.port() }, 'example.org', 'MX', { transport })), 'SERVFAIL', transport);
  }
});

test('erratic delays every second query: the later query is answered first', async (t) => {
  const server = await serve(t, '    erratic {\n        delay 2 50ms\n    }');
  const { replies, order } = await burst(server.port(), ['A', 'A'], 2);
  assert.deepEqual(order, [1, 0]);
  assert.ok(replies.every((r) => r?.answers?.length === 1));
});

test('erratic answers AXFR with a small zone, and leaves its closing SOA out when truncating (CoreDNS TestAxfr)', async (t) => {
  const server = await serve(t, '    erratic {\n        truncate 2\n    }');
  const transfer = async (): Promise<Reply> => decodeReply((await tcpExchange({ port: server.port() }, makeQuery('example.org', AXFR)))[0]!);
  const cut = await transfer();
  assert.deepEqual(cut.answers?.map((rr) => rr.type), ['SOA', 'NS', 'NS', 'AAAA', 'AAAA']);
  assert.equal(cut.flag_tc, false);
  const whole = await transfer();
  assert.equal(whole.flag_aa, true);
  assert.deepEqual(rows(whole).map(([name, type, , data]) => [name, type, data]), [
    ['example.org', 'SOA', { mname: 'sns.dns.icann.org', rname: 'noc.dns.icann.org', serial: 2018050825, refresh: 7200, retry: 3600, expire: 1209600, minimum: 3600 }],
    ['example.org', 'NS', 'b.example.org'],
    ['example.org', 'NS', 'a.example.org'],
    ['a.example.org', 'AAAA', '2001:bd8::53'],
    ['b.example.org', 'AAAA', '2001:500::54'],
    ['example.org', 'SOA', { mname: 'sns.dns.icann.org', rname: 'noc.dns.icann.org', serial: 2018050825, refresh: 7200, retry: 3600, expire: 1209600, minimum: 3600 }],
  ]);
});

test('erratic large answers A with 30 records', async (t) => {
  const server = await serve(t, '    erratic {\n        drop 0\n        large\n    }');
  const reply = await query({ port: server.port() }, 'example.org', 'A', { transport: 'tcp' });
  assert.equal(reply.answers?.length, 30);
});

test('erratic is ready after 3 queries, as CoreDNS reports it, and the probe flips back after 5', async (t) => {
  const server = await serve(t, '    ready 127.0.0.1:0\n    probe\n    erratic {\n        drop 0\n    }');
  const port = readyListeners(controller ?? assert.fail('probe was not set up'))[0]!.port;
  assert.deepEqual(await httpGet(port, '/ready').then((r) => [r.status, r.text]), [503, 'erratic']);
  const probeOf = (): boolean => controller!.use(ReadinessProbes).find((p) => p.name === 'erratic')!.ready();
  for (let i = 0; i < 3; i++) await query({ port: server.port() }, 'example.org', 'A');
  assert.equal(probeOf(), true);
  assert.deepEqual(await httpGet(port, '/ready').then((r) => [r.status, r.text]), [200, 'OK']);
  await query({ port: server.port() }, 'example.org', 'A');
  assert.equal(probeOf(), true);
  await query({ port: server.port() }, 'example.org', 'A');
  assert.equal(probeOf(), false);
});
