import { test } from 'node:test';
import assert from 'node:assert/strict';
import dnsPacket from 'dns-packet';
import { answering, delay, eventually, metric, query, reply, silent, upstreamFor } from '@foghorn/testkit';
import type { Behaviour, Decoded } from '@foghorn/testkit';
import { serve } from './serve.js';
import type { Forward } from '@foghorn/plugin-forward';

/** Fast health probes: 10 ms probe timeouts (reads stay generous so a loaded machine does not fail them). */
const fast = { probeTimeoutMs: 10 };

const isProbe = (q: Decoded): boolean => q.questions[0]?.type === 'NS';

test('when an upstream dies queries fail over, it is probed until down, and it is used again once a probe gets any reply', async (t) => {
  const a = await upstreamFor(t);
  const b = await upstreamFor(t);
  const forwards: Forward[] = [];
  const server = await serve(t, `forward . ${a.address} ${b.address} {\n policy sequential\n read_timeout 1s\n health_check 10ms\n max_fails 2\n }`, {
    probeTimeoutMs: 50,
    onForward: (f) => forwards.push(f),
  });
  const proxyA = forwards[0]?.proxies[0];
  assert.equal(proxyA?.address, a.address);
  const target = { port: server.port() };
  const failures = (): Promise<number> => metric(server, 'coredns_proxy_healthcheck_failures_total', { proxy_name: 'forward', to: a.address });

  await query(target, 'one.example.org', 'A');
  assert.equal(a.lookups.length, 1);
  assert.equal(a.probes.length, 0, 'a healthy upstream is never probed');

  a.behaviour = silent;
  const failedOver = await query(target, 'two.example.org', 'A');
  assert.equal(failedOver.rcode, 'NOERROR');
  assert.deepEqual(b.lookups.map((q) => q.name), ['two.example.org']);

  // More than max_fails (2) failed probes mark it down: 3.
  let count = 0;
  while ((count = await failures()) < 3) await delay(5);
  assert.ok(proxyA?.isDown(2));
  const lookupsWhileDown = a.lookups.length;
  const skipped = await query(target, 'three.example.org', 'A');
  assert.equal(skipped.rcode, 'NOERROR');
  assert.equal(a.lookups.length, lookupsWhileDown, 'a down upstream gets no queries');
  assert.equal(b.lookups.at(-1)?.name, 'three.example.org');
  assert.ok(a.probes.length >= count);

  // It returns answering REFUSED: any reply counts as healthy.
  a.behaviour = (q) => [reply(q, { rcode: isProbe(q) ? 5 : 0 })];
  await eventually(() => proxyA?.fails === 0);
  assert.ok(a.probes.length > count);
  const probesAfterRecovery = a.probes.length;
  assert.equal((await query(target, 'four.example.org', 'A')).rcode, 'NOERROR');
  assert.equal(a.lookups.at(-1)?.name, 'four.example.org');
  await delay(50);
  assert.equal(a.probes.length, probesAfterRecovery, 'probing stops once the upstream answered');
});

/** Silent to health probes, answering everything else: "down" by health checks, yet working. */
const unprobeable: Behaviour = (q, transport, raw) => (isProbe(q) ? null : answering(q, transport, raw));

for (const failfast of [false, true]) {
  test(
    failfast
      ? 'with failfast_all_unhealthy_upstreams, all upstreams down gives SERVFAIL at once'
      : 'when all upstreams are down a random one is tried anyway, and healthcheck_broken counts it',
    async (t) => {
      const upstream = await upstreamFor(t, silent);
      const server = await serve(
        t,
        `forward . ${upstream.address} {\n read_timeout 100ms\n health_check 5ms\n max_fails 1${failfast ? '\n failfast_all_unhealthy_upstreams' : ''}\n }`,
        fast,
      );
      const target = { port: server.port() };
      assert.equal((await query(target, 'first.example.org', 'A')).rcode, 'SERVFAIL');
      await eventually(() => upstream.probes.length >= 2);
      upstream.behaviour = unprobeable;
      while ((await metric(server, 'coredns_proxy_healthcheck_failures_total')) < 2) await delay(5);
      const lookups = upstream.lookups.length;
      const started = Date.now();
      const answer = await query(target, 'second.example.org', 'A');
      if (failfast) {
        assert.equal(answer.rcode, 'SERVFAIL');
        assert.equal(upstream.lookups.length, lookups, 'no query goes out');
        assert.ok(Date.now() - started < 500);
      } else {
        assert.equal(answer.rcode, 'NOERROR');
        assert.equal(upstream.lookups.at(-1)?.name, 'second.example.org');
      }
      assert.ok((await metric(server, 'coredns_forward_healthcheck_broken_total')) >= 1);
    },
  );
}

test('max_fails 0 never marks an upstream down and sends no probes', async (t) => {
  const upstream = await upstreamFor(t, silent);
  const server = await serve(t, `forward . ${upstream.address} {\n read_timeout 20ms\n health_check 5ms\n max_fails 0\n }`, fast);
  assert.equal((await query({ port: server.port() }, 'example.org', 'A')).rcode, 'SERVFAIL');
  await delay(40);
  assert.equal(upstream.probes.length, 0);
  assert.equal(await metric(server, 'coredns_proxy_healthcheck_failures_total'), 0);
});

test('health_check no_rec domain NAME probes NAME IN NS without RD', async (t) => {
  const upstream = await upstreamFor(t, (q, transport, raw) => (q.questions[0]?.type === 'NS' ? [reply(q)] : silent(q, transport, raw)));
  const server = await serve(t, `forward . ${upstream.address} {\n read_timeout 20ms\n health_check 5ms no_rec domain probe.test\n }`, fast);
  await query({ port: server.port() }, 'example.org', 'A');
  await eventually(() => upstream.probes.length >= 1);
  const probe = dnsPacket.decode(upstream.probes[0]?.raw ?? Buffer.alloc(0)) as Decoded;
  assert.equal(probe.questions[0]?.name, 'probe.test');
  assert.equal(probe.questions[0]?.class, 'IN');
  assert.equal(probe.flags & dnsPacket.RECURSION_DESIRED, 0);
});

test('the default health probe is . IN NS with RD, over the upstream transport', async (t) => {
  const upstream = await upstreamFor(t, (q, transport, raw) => (q.questions[0]?.type === 'NS' ? [reply(q)] : silent(q, transport, raw)));
  const server = await serve(t, `forward . ${upstream.address} {\n force_tcp\n read_timeout 20ms\n }`, fast);
  await query({ port: server.port() }, 'example.org', 'A');
  await eventually(() => upstream.probes.length >= 1);
  const probe = upstream.probes[0];
  const decoded = dnsPacket.decode(probe?.raw ?? Buffer.alloc(0)) as Decoded;
  assert.equal(decoded.questions[0]?.name, '.');
  assert.notEqual(decoded.flags & dnsPacket.RECURSION_DESIRED, 0);
  assert.equal(probe?.transport, 'tcp');
});
