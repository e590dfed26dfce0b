import { test } from 'node:test';
import assert from 'node:assert/strict';
import dnsPacket from 'dns-packet';
import type { Answer, OptAnswer } from 'dns-packet';
import { answering, decodeReply, delay, makeQuery, metric, query, reply, tcpExchange, testPlugin, udpExchange, upstreamFor } from '@foghorn/testkit';
import type { Decoded } from '@foghorn/testkit';
import { serve } from './serve.js';

test('forward answers from the upstream over UDP and TCP, with the client ID back and a fresh ID upstream', async (t) => {
  const upstream = await upstreamFor(t);
  const server = await serve(t, `forward . ${upstream.address}`);
  const ids = [0x1234, 0x4321, 0xbeef, 0x0001];
  for (const [i, id] of ids.entries()) {
    const transport = i % 2 === 0 ? 'udp' : 'tcp';
    const answer = await query({ port: server.port() }, 'www.example.org', 'A', { id, transport });
    assert.equal(answer.id, id);
    assert.equal(answer.rcode, 'NOERROR');
    assert.deepEqual(
      answer.answers?.map((rr) => (rr as { data: unknown }).data),
      ['192.0.2.1'],
    );
  }
  assert.deepEqual(
    upstream.queries.map((q) => q.transport),
    ['udp', 'tcp', 'udp', 'tcp'],
  );
  // A fresh random ID per query: never all four equal to the client's.
  assert.ok(upstream.queries.some((q, i) => q.id !== ids[i]));
});

test('forward sends the client question with its case preserved', async (t) => {
  const upstream = await upstreamFor(t);
  const server = await serve(t, `forward . ${upstream.address}`);
  const answer = await query({ port: server.port() }, 'WwW.ExAmPle.ORG', 'A');
  assert.equal(upstream.queries[0]?.name, 'WwW.ExAmPle.ORG');
  assert.equal(answer.questions?.[0]?.name, 'WwW.ExAmPle.ORG');
});

test('names outside FROM or under except go to the next plugin; FROM itself is always forwarded', async (t) => {
  const upstream = await upstreamFor(t);
  const server = await serve(t, `forward example.org ${upstream.address} {\n except example.org sub.example.org\n }`);
  const target = { port: server.port() };
  const fromWhoami = (answer: Awaited<ReturnType<typeof query>>): boolean => (answer.additionals ?? []).some((rr) => rr.type === 'SRV');
  assert.equal(fromWhoami(await query(target, 'example.org', 'A')), false);
  assert.equal(fromWhoami(await query(target, 'www.example.org', 'A')), true);
  assert.equal(fromWhoami(await query(target, 'a.sub.example.org', 'A')), true);
  assert.equal(fromWhoami(await query(target, 'example.net', 'A')), true);
  assert.deepEqual(
    upstream.lookups.map((q) => q.name),
    ['example.org'],
  );
});

test('an upstream SERVFAIL or REFUSED is passed through as it is', async (t) => {
  const upstream = await upstreamFor(t, (q) => [reply(q, { rcode: q.questions[0]?.name === 'refused.test' ? 5 : 2 })]);
  const server = await serve(t, `forward . ${upstream.address}`);
  assert.equal((await query({ port: server.port() }, 'servfail.test', 'A')).rcode, 'SERVFAIL');
  assert.equal((await query({ port: server.port() }, 'refused.test', 'A')).rcode, 'REFUSED');
  assert.equal(upstream.lookups.length, 2);
});

test('a reply without the question becomes FORMERR for the client', async (t) => {
  const upstream = await upstreamFor(t, (q) => [{ ...reply(q, { rcode: 1 }), questions: [] }]);
  const server = await serve(t, `forward . ${upstream.address}`);
  const answer = await query({ port: server.port() }, 'example.org', 'A');
  assert.equal(answer.rcode, 'FORMERR');
  assert.equal(answer.questions?.[0]?.name, 'example.org');
});

test('queries of class CH are forwarded, not refused', async (t) => {
  const upstream = await upstreamFor(t);
  const server = await serve(t, `forward . ${upstream.address}`);
  const answer = await query({ port: server.port() }, 'version.bind', 'TXT', { class: 'CH' });
  assert.equal(answer.rcode, 'NOERROR');
  assert.equal(upstream.queries[0]?.name, 'version.bind');
});

test('next NXDOMAIN hands the query to the next forward, and only to a forward', async (t) => {
  const first = await upstreamFor(t, (q) => [reply(q, { rcode: 3 })]);
  const second = await upstreamFor(t);
  const chained = await serve(t, `forward . ${first.address} {\n next NXDOMAIN\n }\n forward . ${second.address}`);
  const answer = await query({ port: chained.port() }, 'example.org', 'A');
  assert.equal(answer.rcode, 'NOERROR');
  assert.equal(first.lookups.length, 1);
  assert.equal(second.lookups.length, 1);
  // With whoami after it instead, `next` is ignored and the NXDOMAIN goes out.
  const alone = await serve(t, `forward . ${first.address} {\n next NXDOMAIN\n }`);
  assert.equal((await query({ port: alone.port() }, 'example.org', 'A')).rcode, 'NXDOMAIN');
});

test('next_on_nodata hands an empty NOERROR answer to the next forward', async (t) => {
  const first = await upstreamFor(t, (q) => [reply(q)]);
  const second = await upstreamFor(t);
  const server = await serve(t, `forward . ${first.address} {\n next_on_nodata\n }\n forward . ${second.address}`);
  const answer = await query({ port: server.port() }, 'example.org', 'A');
  assert.equal(answer.answers?.length, 1);
  assert.equal(second.lookups.length, 1);
});

test('several forward lines route by FROM in file order', async (t) => {
  const lab = await upstreamFor(t);
  const rest = await upstreamFor(t);
  const server = await serve(t, `forward lab.example.local ${lab.address}\n forward . ${rest.address}`);
  await query({ port: server.port() }, 'a.lab.example.local', 'A');
  await query({ port: server.port() }, 'example.org', 'A');
  assert.deepEqual(lab.lookups.map((q) => q.name), ['a.lab.example.local']);
  assert.deepEqual(rest.lookups.map((q) => q.name), ['example.org']);
});

test('failover tries the next upstream on a listed rcode, and uses the last reply when all gave it', async (t) => {
  const failing = await upstreamFor(t, (q) => [reply(q, { rcode: 2 })]);
  const good = await upstreamFor(t);
  const server = await serve(t, `forward . ${failing.address} ${good.address} {\n policy sequential\n failover SERVFAIL\n }`);
  assert.equal((await query({ port: server.port() }, 'example.org', 'A')).rcode, 'NOERROR');
  assert.equal(failing.lookups.length, 1);
  const allFailing = await serve(t, `forward . ${failing.address} {\n failover SERVFAIL\n }`);
  assert.equal((await query({ port: allFailing.port() }, 'example.org', 'A')).rcode, 'SERVFAIL');
});

test('the reply OPT echoes the client UDP size and DO bit, as CoreDNS scrub does', async (t) => {
  const upstream = await upstreamFor(t, (q) => {
    const r = reply(q);
    r.additionals = [{ type: 'OPT', name: '.', udpPayloadSize: 4096, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] } as OptAnswer];
    return [r];
  });
  const server = await serve(t, `forward . ${upstream.address}`);
  const answer = await query({ port: server.port() }, 'example.org', 'A', { udpSize: 1232, dnssecOk: true });
  const opt = answer.additionals?.find((rr) => rr.type === 'OPT') as OptAnswer | undefined;
  assert.equal(opt?.udpPayloadSize, 1232);
  assert.equal(opt?.flag_do, true);
  // The upstream saw the client's own OPT: size and DO forwarded unchanged.
  const sent = dnsPacket.decode(upstream.queries[0]?.raw ?? Buffer.alloc(0)) as Decoded;
  const sentOpt = sent.additionals?.find((rr) => rr.type === 'OPT') as OptAnswer | undefined;
  assert.equal(sentOpt?.udpPayloadSize, 1232);
  assert.equal(sentOpt?.flag_do, true);
});

test('an upstream answer larger than the client limit is truncated by the server, with TC', async (t) => {
  const many: Answer[] = Array.from({ length: 60 }, (_, i) => ({ type: 'A', name: 'big.example.org', ttl: 60, data: `192.0.2.${i + 1}` }));
  const upstream = await upstreamFor(t, (q) => [reply(q, { answers: many })]);
  const server = await serve(t, `forward . ${upstream.address} {\n force_tcp\n }`);
  const wire = await udpExchange({ port: server.port() }, makeQuery('big.example.org', 'A', { id: 7 }));
  assert.ok(wire !== null && wire.length <= 512, `reply of ${wire?.length} bytes`);
  const answer = decodeReply(wire);
  assert.equal(answer.id, 7);
  assert.equal(answer.flag_tc, true);
  assert.ok((answer.answers?.length ?? 0) < 60);
  const [full] = await tcpExchange({ port: server.port() }, makeQuery('big.example.org', 'A', { id: 8 }));
  assert.equal(decodeReply(full ?? Buffer.alloc(0)).answers?.length, 60);
});

test('max_concurrent refuses queries beyond the limit at once and counts them', async (t) => {
  const upstream = await upstreamFor(t, async (q) => {
    await delay(150);
    return answering(q, 'udp', Buffer.alloc(0));
  });
  const server = await serve(t, `forward . ${upstream.address} {\n max_concurrent 2\n }`);
  const started = Date.now();
  const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => query({ port: server.port() }, `q${i}.example.org`, 'A')));
  const rcodes = answers.map((a) => a.rcode).sort();
  assert.deepEqual(rcodes, ['NOERROR', 'NOERROR', 'REFUSED', 'REFUSED', 'REFUSED']);
  assert.equal(await metric(server, 'coredns_forward_max_concurrent_rejects_total'), 3);
  assert.equal(upstream.lookups.length, 2);
  assert.ok(Date.now() - started < 2000);
  // The rejections are not health failures: no probes.
  assert.equal(upstream.probes.length, 0);
});

test('a silent upstream gives SERVFAIL once the attempts are used up', async (t) => {
  const upstream = await upstreamFor(t, () => null);
  const server = await serve(t, `forward . ${upstream.address} {\n read_timeout 50ms\n health_check 1h\n }`, { probeTimeoutMs: 20 });
  const answer = await query({ port: server.port() }, 'example.org', 'A');
  assert.equal(answer.rcode, 'SERVFAIL');
  // Two attempts for one upstream (max_connect_attempts defaults to 2 per upstream).
  assert.equal(upstream.lookups.length, 2);
});

test('the per-query budget stops the attempts when max_connect_attempts is 0', async (t) => {
  const upstream = await upstreamFor(t, () => null);
  const server = await serve(t, `forward . ${upstream.address} {\n read_timeout 40ms\n max_connect_attempts 0\n health_check 1h\n }`, { budgetMs: 400, probeTimeoutMs: 10 });
  const started = Date.now();
  assert.equal((await query({ port: server.port() }, 'example.org', 'A')).rcode, 'SERVFAIL');
  const elapsed = Date.now() - started;
  // 40 ms per attempt against a 400 ms budget: several attempts even on a loaded machine, then no more.
  assert.ok(elapsed >= 380 && elapsed < 2500, `took ${elapsed} ms`);
  assert.ok(upstream.lookups.length >= 3, `${upstream.lookups.length} attempts`);
});

test('request durations are recorded per upstream and rcode', async (t) => {
  const upstream = await upstreamFor(t);
  const server = await serve(t, `forward . ${upstream.address}`);
  await query({ port: server.port() }, 'example.org', 'A');
  await query({ port: server.port() }, 'example.org', 'A', { transport: 'tcp' });
  assert.equal(await metric(server, 'coredns_proxy_request_duration_seconds', { proxy_name: 'forward', to: upstream.address, rcode: 'NOERROR' }), 2);
});

test('a writer that throws on the upstream reply fails that query, not the server', async (t) => {
  // The reply reaches forward in the upstream socket's message event: a throw there must end up
  // as the query's failure (the server's SERVFAIL), never as an uncaught exception.
  const upstream = await upstreamFor(t);
  let broken = true;
  const gone = (): never => {
    throw new Error('client writer gone');
  };
  const breaker = testPlugin('breaker', (next) => ({
    name: 'breaker',
    serveDNS: (req, w) => next!.serveDNS(req, broken ? { write: gone, writeWire: gone } : w),
  }));
  const server = await serve(t, `breaker\n forward . ${upstream.address}`, {}, [breaker]);
  const failed = await query({ port: server.port() }, 'www.example.org', 'A');
  assert.equal(failed.rcode, 'SERVFAIL');
  assert.equal(upstream.queries.length, 1);
  broken = false;
  const answered = await query({ port: server.port() }, 'www.example.org', 'A');
  assert.equal(answered.rcode, 'NOERROR');
  assert.match(server.lines.join('\n'), /Recovered from panic in server: "dns:\/\/127\.0\.0\.1:\d+" client writer gone/);
});
