import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import dnsPacket from 'dns-packet';
import { answeringFrom, decodeReply, eventually, formatRr, grpcUpstreamFor, GrpcStatus, makeQuery, metric, query, RawResponse, reply, rr, udpExchange } from '@foghorn/testkit';
import type { GrpcUpstream } from '@foghorn/testkit';
import { fromWhoami, serve } from './serve.js';

const zone = answeringFrom('a.example.org. 60 IN A 192.0.2.1', 'a.example.org. 60 IN TXT "hello"', 'miek.nl. 60 IN A 192.0.2.53');
/** A port nothing listens on: a started double, closed again. */
async function deadAddress(t: Parameters<typeof grpcUpstreamFor>[0]): Promise<string> {
  const up = await grpcUpstreamFor(t, zone);
  await up.close();
  return up.address;
}

test('grpc answers from a DnsService upstream over UDP and TCP, with the query sent as the client sent it', async (t) => {
  const upstream = await grpcUpstreamFor(t, zone);
  const server = await serve(t, `grpc . ${upstream.address}`);
  for (const transport of ['udp', 'tcp'] as const) {
    const answer = await query({ port: server.port() }, 'a.example.org', 'A', { transport, id: 4242 });
    assert.equal(answer.id, 4242);
    assert.equal(answer.rcode, 'NOERROR');
    assert.equal(answer.flag_aa, true);
    assert.deepEqual(answer.answers?.map(formatRr), [formatRr('a.example.org. 60 IN A 192.0.2.1')]);
  }
  assert.equal(upstream.calls.length, 2);
  assert.equal(upstream.calls[0]?.id, 4242);
  assert.deepEqual(upstream.calls[0]?.raw, makeQuery('a.example.org', 'A', { id: 4242 }));
  const nx = await query({ port: server.port() }, 'nope.example.org', 'A');
  assert.equal(nx.rcode, 'NXDOMAIN');
  // CoreDNS's metrics, labelled with the upstream as the Corefile named it.
  const to = upstream.address;
  assert.equal(await metric(server, 'coredns_grpc_requests_total', { to }), 3);
  assert.equal(await metric(server, 'coredns_grpc_responses_total', { to, rcode: 'NOERROR' }), 2);
  assert.equal(await metric(server, 'coredns_grpc_responses_total', { to, rcode: 'NXDOMAIN' }), 1);
  assert.equal(await metric(server, 'coredns_grpc_request_duration_seconds', { to }), 3);
});

test('grpc echoes EDNS to the client as the server scrubs it, and truncates to the client size over UDP', async (t) => {
  const big = Array.from({ length: 40 }, (_, i) => `big.example.org. 60 IN TXT "${'x'.repeat(40)}${i}"`);
  const upstream = await grpcUpstreamFor(t, answeringFrom(...big));
  const server = await serve(t, `grpc . ${upstream.address}`);
  const plain = await query({ port: server.port() }, 'big.example.org', 'TXT');
  assert.equal(plain.flag_tc, true);
  const edns = await query({ port: server.port() }, 'big.example.org', 'TXT', { udpSize: 4096 });
  assert.equal(edns.flag_tc, false);
  assert.equal(edns.answers?.length, 40);
  const tcp = await query({ port: server.port() }, 'big.example.org', 'TXT', { transport: 'tcp' });
  assert.equal(tcp.answers?.length, 40);
});

test('grpc proxies only names under FROM, and not names under except (FROM itself always)', async (t) => {
  const upstream = await grpcUpstreamFor(t, zone);
  const server = await serve(t, `grpc example.org ${upstream.address} {\n except a.example.org\n }`);
  assert.equal(fromWhoami(await query({ port: server.port() }, 'miek.nl', 'A')), true);
  assert.equal(fromWhoami(await query({ port: server.port() }, 'a.example.org', 'A')), true);
  assert.equal(fromWhoami(await query({ port: server.port() }, 'x.a.example.org', 'A')), true);
  const own = await query({ port: server.port() }, 'example.org', 'A');
  assert.equal(fromWhoami(own), false);
  assert.equal(own.rcode, 'NXDOMAIN');
  assert.deepEqual(upstream.calls.map((c) => c.name), ['example.org']);

  const all = await grpcUpstreamFor(t, zone);
  const except = await serve(t, `grpc . ${all.address} {\n except example.org\n }`);
  assert.equal(fromWhoami(await query({ port: except.port() }, 'example.org', 'A')), true);
  assert.deepEqual((await query({ port: except.port() }, 'miek.nl', 'A')).answers?.map(formatRr), [formatRr('miek.nl. 60 IN A 192.0.2.53')]);
});

test('grpc reads a NOT_FOUND status as NXDOMAIN, uncounted, as CoreDNS does', async (t) => {
  const upstream = await grpcUpstreamFor(t, () => new GrpcStatus(5, 'not found'));
  const server = await serve(t, `grpc . ${upstream.address}`);
  const answer = await query({ port: server.port() }, 'a.example.org', 'A');
  assert.equal(answer.rcode, 'NXDOMAIN');
  assert.deepEqual(answer.questions, [{ name: 'a.example.org', type: 'A', class: 'IN' }]);
  assert.equal(await metric(server, 'coredns_grpc_requests_total'), 0);
});

test('grpc fallthrough: an NXDOMAIN goes to the next plugin, in the zones given only', async (t) => {
  const upstream = await grpcUpstreamFor(t, zone);
  const all = await serve(t, `grpc . ${upstream.address} {\n fallthrough\n }`);
  assert.equal(fromWhoami(await query({ port: all.port() }, 'nope.example.org', 'A')), true);
  assert.deepEqual((await query({ port: all.port() }, 'a.example.org', 'A')).answers?.map(formatRr), [formatRr('a.example.org. 60 IN A 192.0.2.1')]);
  // NODATA is an answer, not a fall through.
  const nodata = await query({ port: all.port() }, 'miek.nl', 'AAAA');
  assert.equal(fromWhoami(nodata), false);
  assert.equal(nodata.rcode, 'NOERROR');

  const some = await serve(t, `grpc . ${upstream.address} {\n fallthrough example.com\n }`);
  assert.equal((await query({ port: some.port() }, 'nope.example.org', 'A')).rcode, 'NXDOMAIN');
  const down = await serve(t, `grpc . ${await deadAddress(t)} {\n fallthrough\n }`);
  // Every upstream failed: the next plugin answers instead of SERVFAIL.
  assert.equal(fromWhoami(await query({ port: down.port() }, 'a.example.org', 'A')), true);
});

test('grpc: an upstream that is down gives SERVFAIL, and the next upstream answers when there is one', async (t) => {
  const dead = await deadAddress(t);
  const alone = await serve(t, `grpc . ${dead}`);
  const failed = await query({ port: alone.port() }, 'a.example.org', 'A');
  assert.equal(failed.rcode, 'SERVFAIL');

  const live = await grpcUpstreamFor(t, zone);
  const server = await serve(t, `grpc . ${dead} ${live.address} {\n policy sequential\n }`);
  for (let i = 0; i < 3; i++) assert.deepEqual((await query({ port: server.port() }, 'a.example.org', 'A')).answers?.map(formatRr), [formatRr('a.example.org. 60 IN A 192.0.2.1')]);
  assert.equal(live.calls.length, 3);
  assert.equal(await metric(server, 'coredns_grpc_requests_total', { to: dead }), 0);
});

test('grpc policies: sequential keeps the order, round_robin starts one further each query, random spreads', async (t) => {
  const ups: GrpcUpstream[] = [];
  for (let i = 0; i < 3; i++) ups.push(await grpcUpstreamFor(t, zone));
  const first = async (policy: string, n: number): Promise<number[]> => {
    const server = await serve(t, `grpc . ${ups.map((u) => u.address).join(' ')} {\n policy ${policy}\n }`);
    const picked: number[] = [];
    for (let i = 0; i < n; i++) {
      const before = ups.map((u) => u.calls.length);
      await query({ port: server.port() }, 'a.example.org', 'A');
      picked.push(ups.findIndex((u, j) => u.calls.length > before[j]!));
    }
    return picked;
  };
  assert.deepEqual(await first('sequential', 3), [0, 0, 0]);
  assert.deepEqual(await first('round_robin', 4), [1, 2, 0, 1]);
  const random = await first('random', 30);
  assert.equal(new Set(random).size, 3, `random used ${[...new Set(random)].join(',')}`);
});

test('grpc: a reply to another question is FORMERR; a changed ID is put back', async (t) => {
  const upstream = await grpcUpstreamFor(t, (q) => reply(q, { name: 'other.example.org' }));
  const server = await serve(t, `grpc . ${upstream.address}`);
  assert.equal((await query({ port: server.port() }, 'a.example.org', 'A')).rcode, 'FORMERR');
  const renumbered = await grpcUpstreamFor(t, (q) => reply(q, { id: (q.id + 1) & 0xffff, answers: [rr('a.example.org. 5 IN A 192.0.2.9')] }));
  const other = await serve(t, `grpc . ${renumbered.address}`);
  const answer = await query({ port: other.port() }, 'A.Example.ORG', 'A', { id: 7 });
  assert.equal(answer.id, 7);
  assert.equal(answer.rcode, 'NOERROR');
});

test('grpc: a lying upstream (garbage DNS bytes, garbage protobuf, an empty packet, 70,000 bytes) never crashes the server; the next upstream answers', async (t) => {
  const lies = [
    Buffer.from([0x00, 0x01, 0x02]),
    Buffer.alloc(0),
    Buffer.from('ffffffffffffffffffffffffffffffff', 'hex'),
  ];
  let n = 0;
  const liar = await grpcUpstreamFor(t, () => {
    const i = n++ % 6;
    if (i < lies.length) return lies[i]!;
    // Not a DnsPacket: a varint that never ends, then a field of an unknown wire type.
    if (i === 3) return new RawResponse(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0xff]));
    if (i === 4) return new RawResponse(Buffer.from([0x0f, 0x01]));
    // A DnsPacket of 70,000 bytes, over any DNS message and over the channel's receive cap.
    return new RawResponse(Buffer.concat([Buffer.from([0x0a, 0xf0, 0xa2, 0x04]), Buffer.alloc(70_000)]));
  });
  const honest = await grpcUpstreamFor(t, zone);
  const alone = await serve(t, `grpc . ${liar.address}`);
  for (let i = 0; i < 6; i++) assert.equal((await query({ port: alone.port() }, 'a.example.org', 'A')).rcode, 'SERVFAIL');
  const server = await serve(t, `grpc . ${liar.address} ${honest.address} {\n policy sequential\n }`);
  for (let i = 0; i < 6; i++) assert.deepEqual((await query({ port: server.port() }, 'a.example.org', 'A')).answers?.map(formatRr), [formatRr('a.example.org. 60 IN A 192.0.2.1')]);
  assert.equal(honest.calls.length, 6);
  // Still serving.
  assert.equal((await query({ port: alone.port() }, 'a.example.org', 'A', { transport: 'tcp' })).rcode, 'SERVFAIL');
});

test('grpc: an upstream that never answers ends at the 5 s budget (shortened here) with SERVFAIL', async (t) => {
  const silent = await grpcUpstreamFor(t, () => null);
  const server = await serve(t, `grpc . ${silent.address}`, { budgetMs: 300 });
  // A reply within 4.5 s can only come from the shortened budget, not the 5 s default.
  const answer = await udpExchange({ port: server.port() }, makeQuery('a.example.org', 'A'), 4500);
  assert.ok(answer, 'no reply within 4.5 s');
  assert.equal(decodeReply(answer).rcode, 'SERVFAIL');
});

test('grpc over a unix socket (CoreDNS TestProxyUnix)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'foghorn-grpc-unix-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const upstream = await grpcUpstreamFor(t, (q) => reply(q, { answers: [rr('example.org. 5 IN A 127.0.0.1')] }), { path: join(dir, 'test.grpc') });
  const server = await serve(t, `grpc . ${upstream.address}`);
  const answer = await query({ port: server.port() }, 'example.org', 'A');
  assert.deepEqual(answer.answers?.map(formatRr), [formatRr('example.org. 5 IN A 127.0.0.1')]);
  assert.equal(await metric(server, 'coredns_grpc_requests_total', { to: upstream.address }), 1);
});

test('grpc answers queries of other classes too', async (t) => {
  const upstream = await grpcUpstreamFor(t, (q) => reply(q, { answers: [{ type: 'TXT', name: q.questions[0]!.name, class: 'CH', ttl: 0, data: 'foghorn' }] }));
  const server = await serve(t, `grpc . ${upstream.address}`);
  const wire = await udpExchange({ port: server.port() }, makeQuery('version.bind', 'TXT', { class: 'CH' }));
  assert.ok(wire);
  const answer = dnsPacket.decode(wire);
  assert.equal((answer.answers?.[0] as { class?: string } | undefined)?.class, 'CH');
});

test('grpc: an upstream that comes back on its port is used again (gRPC reconnects with its backoff)', async (t) => {
  const first = await grpcUpstreamFor(t, zone);
  const server = await serve(t, `grpc . ${first.address}`);
  assert.equal((await query({ port: server.port() }, 'a.example.org', 'A')).rcode, 'NOERROR');
  await first.close();
  assert.equal((await query({ port: server.port() }, 'a.example.org', 'A')).rcode, 'SERVFAIL');
  const again = await grpcUpstreamFor(t, zone, { port: first.port });
  // The first reconnection attempt comes about 1 s (±20 %) after the connection was lost.
  await eventually(async () => (await query({ port: server.port() }, 'a.example.org', 'A')).rcode === 'NOERROR', 8000, 'queries answered again');
  assert.ok(again.calls.length >= 1);
});

test('grpc: a reload swaps the upstreams and closes the old channels', async (t) => {
  const before = await grpcUpstreamFor(t, answeringFrom('a.example.org. 60 IN A 192.0.2.1'));
  const after = await grpcUpstreamFor(t, answeringFrom('a.example.org. 60 IN A 192.0.2.2'));
  const server = await serve(t, `grpc . ${before.address}`);
  assert.deepEqual((await query({ port: server.port() }, 'a.example.org', 'A')).answers?.map(formatRr), [formatRr('a.example.org. 60 IN A 192.0.2.1')]);
  assert.equal(await server.reload(`.:0 {\n bind 127.0.0.1\n grpc . ${after.address}\n whoami\n}\n`), true);
  assert.deepEqual((await query({ port: server.port() }, 'a.example.org', 'A')).answers?.map(formatRr), [formatRr('a.example.org. 60 IN A 192.0.2.2')]);
  assert.equal(before.calls.length, 1);
  // The old metrics rows stay; the new upstream counts in the same metric.
  assert.equal(await metric(server, 'coredns_grpc_requests_total'), 2);
});

test('grpc: 150 replies with random bytes changed after the question each get an answer, and the server keeps serving', async (t) => {
  // A seeded generator, so a failure repeats.
  let seed = 0x9e3779b9;
  const random = (): number => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 2 ** 32;
  };
  const good = answeringFrom('a.example.org. 60 IN A 192.0.2.1', 'a.example.org. 60 IN TXT "hello" "world"', 'a.example.org. 60 IN MX 10 mx.example.org.');
  const liar = await grpcUpstreamFor(t, (q, raw) => {
    const wire = dnsPacket.encode(good(q, raw) as dnsPacket.Packet);
    // The query has no OPT, so its question ends where it does.
    const questionEnd = raw.length;
    const flips = 1 + Math.floor(random() * 4);
    for (let i = 0; i < flips; i++) {
      const at = questionEnd + Math.floor(random() * Math.max(1, wire.length - questionEnd));
      if (at < wire.length) wire[at] = Math.floor(random() * 256);
    }
    // Sometimes cut the message short, sometimes add trailing bytes.
    const cut = random();
    return cut < 0.2 ? wire.subarray(0, questionEnd + Math.floor(random() * (wire.length - questionEnd))) : cut > 0.9 ? Buffer.concat([wire, Buffer.from([0xff, 0x00])]) : wire;
  });
  const server = await serve(t, `grpc . ${liar.address}`);
  const types = ['A', 'TXT', 'MX'] as const;
  for (let i = 0; i < 150; i++) {
    const wire = await udpExchange({ port: server.port() }, makeQuery('a.example.org', types[i % 3]!, { id: i }), 3000);
    assert.ok(wire, `no reply to query ${i}`);
    assert.equal(wire.readUInt16BE(0), i);
  }
  assert.equal((await query({ port: server.port() }, 'a.example.org', 'A', { transport: 'tcp' })).questions?.[0]?.name, 'a.example.org');
});
