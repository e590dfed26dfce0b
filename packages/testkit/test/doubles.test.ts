/** The test doubles themselves: the fake upstream, the fake backend, eventually, metric and the free ports. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { counter, definePlugin, defineShared, ListenAddresses, nextOrFailure } from '@foghorn/core';
import {
  answerWith,
  checkCases,
  directivesOf,
  eventually,
  FakeBackend,
  freeDnsPort,
  freeTcpPort,
  makeQuery,
  metric,
  query,
  reply,
  rr,
  silent,
  startServer,
  tcpExchange,
  udpExchange,
  upstreamFor,
} from '../src/index.js';

test('the fake upstream answers over UDP and TCP on one port and records each query', async (t) => {
  const upstream = await upstreamFor(t, (q) => [reply(q, { answers: [rr(`${q.questions[0]!.name}. 5 IN A 192.0.2.7`)] })]);
  assert.equal(upstream.address, `127.0.0.1:${upstream.port}`);
  const udp = await query({ port: upstream.port }, 'a.example', 'A');
  const tcp = await query({ port: upstream.port }, 'b.example', 'A', { transport: 'tcp' });
  assert.deepEqual([udp, tcp].map((r) => (r.answers?.[0] as { data: string }).data), ['192.0.2.7', '192.0.2.7']);
  assert.deepEqual(upstream.lookups.map((q) => [q.name, q.transport]), [['a.example', 'udp'], ['b.example', 'tcp']]);
  assert.equal(upstream.connections, 1);
  upstream.behaviour = silent;
  assert.equal(await udpExchange({ port: upstream.port }, makeQuery('c.example', 'A'), 100), null, 'silent sends nothing');
  upstream.behaviour = (q) => [reply(q, { rcode: 2 })];
  assert.equal((await query({ port: upstream.port }, '.', 'NS')).rcode, 'SERVFAIL');
  assert.equal(upstream.probes.length, 1, '. NS is a health probe');
});

const FrontCounter = defineShared<ReturnType<typeof counter>>('front');

test('the fake backend answers from its table behind the plugin under test, and fails when down', async (t) => {
  const backend = new FakeBackend();
  backend.table.set('a.example. A', answerWith('a.example. 300 IN A 192.0.2.1'));
  const front = definePlugin({
    name: 'front',
    setup(c) {
      c.next();
      const seen = c.shared(FrontCounter, () => counter(c.registry, { name: 'front_queries_total', help: 'Queries seen by front.', labelNames: ['type'] }));
      c.addHandler((next) => ({ name: 'front', serveDNS: (req, w) => (seen.labels(req.type).inc(), nextOrFailure('front', next, req, w)) }));
    },
  });
  const server = await startServer('.:0 {\n bind 127.0.0.1\n front\n backend\n}\n', { directives: directivesOf(bindless(), front, backend.plugin()) });
  t.after(() => server.close());
  const target = { port: server.port() };
  await checkCases(target, [
    { qname: 'a.example.', qtype: 'A', answer: ['a.example. 300 IN A 192.0.2.1'] },
    { qname: 'b.example.', qtype: 'A', rcode: 'SERVFAIL' },
  ]);
  assert.equal(backend.count, 2);
  assert.deepEqual(backend.seen.map((req) => req.qname), ['a.example.', 'b.example.']);
  backend.down = true;
  assert.equal((await tcpExchange(target, makeQuery('a.example', 'A'))).length, 1);
  assert.equal(await metric(server, 'front_queries_total', { type: 'A' }), 3);
  assert.equal(await metric(server, 'no_such_metric'), 0);
});

test('eventually waits for a predicate or an assertion, and reports the last failure', async () => {
  let calls = 0;
  await eventually(() => ++calls >= 3);
  assert.equal(calls, 3);
  await eventually(() => assert.ok(++calls >= 5));
  await assert.rejects(eventually(() => false, 20), /condition not reached in time/);
  await assert.rejects(eventually(() => assert.equal(1, 2, 'still wrong'), 20), /still wrong/);
});

test('free ports asked for all at once are all different', async () => {
  // Each is free when checked, and none is bound before the last is picked: as when a test
  // starts several servers at once. 300 random picks out of 16,384 repeat one about twice.
  const ports = await Promise.all([...Array.from({ length: 200 }, () => freeTcpPort()), ...Array.from({ length: 100 }, () => freeDnsPort())]);
  assert.equal(new Set(ports).size, ports.length);
});

/** `bind`, without depending on the bind plugin: restricts the block to 127.0.0.1. */
function bindless() {
  return definePlugin({
    name: 'bind',
    setup(c) {
      c.next();
      for (const address of c.remainingArgs()) c.provide(ListenAddresses, address);
    },
  });
}
