import { test } from 'node:test';
import assert from 'node:assert/strict';
import dnsPacket from 'dns-packet';
import type { Answer, Packet } from 'dns-packet';
import { Flags, Rcode, replyTo, Request } from '@foghorn/core';
import { encodeReply } from '@foghorn/core/wire';
import { decodeReply, directivesOf, FakeBackend, makeQuery, query, startServer, tcpExchange, udpExchange } from '@foghorn/testkit';
import type { Answerer, Reply, TestServer } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import { createCachePlugin } from '@foghorn/plugin-cache';
import type { Cache } from '@foghorn/plugin-cache';
import { shardOf } from '../src/store.js';

const soa = (zone: string, ttl: number, minimum = ttl): Answer => ({
  type: 'SOA',
  name: zone,
  ttl,
  data: { mname: 'ns.example.org', rname: 'host.example.org', serial: 1, refresh: 7200, retry: 3600, expire: 1209600, minimum },
});

/** A NOERROR reply with A records (TTLs as given), owner names in the query's case. */
function aReply(ttls: number[], extra: Partial<Packet> = {}): Answerer {
  return (req) => {
    const msg = replyTo(req);
    msg.flags |= Flags.RA;
    msg.answers = ttls.map((ttl, i) => ({ type: 'A', name: req.name, ttl, data: `192.0.2.${i + 1}` }) as Answer);
    return { ...msg, ...extra };
  };
}

function negative(rcode: number, authority: Answer[], answers: Answer[] = []): Answerer {
  return (req) => ({ ...replyTo(req, rcode), answers, authorities: authority });
}

interface Harness {
  readonly server: TestServer;
  readonly upstream: FakeBackend;
  readonly port: number;
  /** The clock the cache reads, in milliseconds. */
  clock: number;
  caches: Cache[];
  ask(name: string, type?: dnsPacket.RecordType, options?: Parameters<typeof query>[3]): Promise<Reply>;
  idle(): Promise<void>;
  metric(name: string): Promise<{ labels: Record<string, string | number>; value: number }[]>;
}

async function harness(t: { after(fn: () => Promise<void>): void }, cacheLine: string, upstream = new FakeBackend(), random?: () => number): Promise<Harness> {
  const h = {
    clock: 1_700_000_000_000,
    caches: [] as Cache[],
  } as Harness;
  const cache = createCachePlugin({ now: () => h.clock, onCreate: (c) => h.caches.push(c), ...(random ? { random } : {}) });
  const server = await startServer(`.:0 {\n bind 127.0.0.1\n ${cacheLine}\n upstream\n}\n`, {
    directives: directivesOf(bind, cache, upstream.plugin('upstream')),
  });
  t.after(async () => {
    await h.idle();
    await server.close();
  });
  Object.assign(h, {
    server,
    upstream,
    port: server.port(),
    ask: (name: string, type: dnsPacket.RecordType = 'A', options = {}) => query({ port: server.port() }, name, type, options),
    idle: async () => {
      for (const c of h.caches) await c.whenIdle();
    },
    metric: async (name: string) => {
      const metric = server.server.registry.getSingleMetric(name);
      if (metric === undefined) return [];
      return (await metric.get()).values.map((v) => ({ labels: v.labels as Record<string, string | number>, value: v.value }));
    },
  });
  return h;
}

const ttlsOf = (reply: Reply): number[] =>
  [...(reply.answers ?? []), ...(reply.authorities ?? []), ...(reply.additionals ?? [])].filter((rr) => rr.type !== 'OPT').map((rr) => (rr as { ttl: number }).ttl);

test('a repeated question is answered from the cache without asking upstream', async (t) => {
  const h = await harness(t, 'cache');
  h.upstream.table.set('example.org. A', aReply([300]));
  const first = await h.ask('example.org', 'A', { id: 1111 });
  const second = await h.ask('example.org', 'A', { id: 2222 });
  assert.equal(h.upstream.count, 1);
  assert.equal(second.id, 2222);
  assert.equal(first.flag_aa, false, 'the miss passes the upstream reply on as it is');
  assert.equal(second.flag_aa, true, 'a hit is always authoritative');
  assert.equal(second.flag_rd, true);
  assert.equal(second.flag_ra, true);
  assert.deepEqual(second.answers, first.answers);
});

test('different names and types are different entries', async (t) => {
  const h = await harness(t, 'cache');
  h.upstream.table.set('* A', aReply([300]));
  h.upstream.table.set('* AAAA', (req) => ({ ...replyTo(req), answers: [{ type: 'AAAA', name: req.name, ttl: 300, data: '2001:db8::1' }] }));
  await h.ask('a.example.org');
  await h.ask('b.example.org');
  await h.ask('a.example.org', 'AAAA');
  await h.ask('a.example.org');
  assert.equal(h.upstream.count, 3);
});

test('hits over TCP come from the same entry as over UDP', async (t) => {
  const h = await harness(t, 'cache');
  h.upstream.table.set('example.org. A', aReply([300]));
  await h.ask('example.org');
  const reply = await h.ask('example.org', 'A', { transport: 'tcp' });
  assert.equal(h.upstream.count, 1);
  assert.equal(reply.answers?.length, 1);
});

test('TTLs count down with time and every record gets the message minimum', async (t) => {
  const h = await harness(t, 'cache');
  h.upstream.table.set('example.org. A', aReply([300, 600]));
  assert.deepEqual(ttlsOf(await h.ask('example.org')), [300, 300]);
  h.clock += 100_400;
  assert.deepEqual(ttlsOf(await h.ask('example.org')), [200, 200]);
  h.clock += 199_000;
  assert.deepEqual(ttlsOf(await h.ask('example.org')), [1, 1]);
  assert.equal(h.upstream.count, 1);
  h.clock += 1_000;
  assert.deepEqual(ttlsOf(await h.ask('example.org')), [300, 300], 'expired: asked upstream again');
  assert.equal(h.upstream.count, 2);
});

test('upstream TTL 0 is raised to the 5 s minimum and long TTLs are capped at one hour', async (t) => {
  const h = await harness(t, 'cache');
  h.upstream.table.set('zero.example.org. A', aReply([0]));
  h.upstream.table.set('long.example.org. A', aReply([86400]));
  assert.deepEqual(ttlsOf(await h.ask('zero.example.org')), [5]);
  assert.deepEqual(ttlsOf(await h.ask('long.example.org')), [3600]);
  h.clock += 4_000;
  assert.deepEqual(ttlsOf(await h.ask('zero.example.org')), [1]);
  assert.equal(h.upstream.count, 2);
});

test('cache TTL caps the stored duration but never extends it', async (t) => {
  const h = await harness(t, 'cache 30');
  h.upstream.table.set('long.example.org. A', aReply([300]));
  h.upstream.table.set('short.example.org. A', aReply([10]));
  assert.deepEqual(ttlsOf(await h.ask('long.example.org')), [30]);
  assert.deepEqual(ttlsOf(await h.ask('short.example.org')), [10]);
});

test('success MINTTL 0 leaves TTL-0 replies uncached', async (t) => {
  const h = await harness(t, 'cache {\n  success 10000 3600 0\n }');
  h.upstream.table.set('example.org. A', aReply([0]));
  await h.ask('example.org');
  await h.ask('example.org');
  assert.equal(h.upstream.count, 2);
});

test('NXDOMAIN with an SOA is cached for the SOA TTL, at most 1800 s', async (t) => {
  const h = await harness(t, 'cache');
  h.upstream.table.set('gone.example.org. A', negative(Rcode.NXDOMAIN, [soa('example.org', 60)]));
  h.upstream.table.set('far.example.org. A', negative(Rcode.NXDOMAIN, [soa('example.org', 86400)]));
  const first = await h.ask('gone.example.org');
  assert.equal(first.rcode, 'NXDOMAIN');
  assert.deepEqual(ttlsOf(first), [60]);
  h.clock += 59_000;
  const hit = await h.ask('gone.example.org');
  assert.equal(hit.rcode, 'NXDOMAIN');
  assert.equal(hit.authorities?.[0]?.type, 'SOA');
  assert.deepEqual(ttlsOf(hit), [1]);
  assert.equal(h.upstream.count, 1);
  h.clock += 1_000;
  await h.ask('gone.example.org');
  assert.equal(h.upstream.count, 2);
  assert.deepEqual(ttlsOf(await h.ask('far.example.org')), [1800]);
});

test('the SOA record TTL, not its MINIMUM field, sets the negative TTL (as CoreDNS)', async (t) => {
  const h = await harness(t, 'cache');
  h.upstream.table.set('gone.example.org. A', negative(Rcode.NXDOMAIN, [soa('example.org', 120, 30)]));
  assert.deepEqual(ttlsOf(await h.ask('gone.example.org')), [120]);
});

test('NODATA (NOERROR with SOA and no answer) is cached with the denial settings', async (t) => {
  const h = await harness(t, 'cache {\n  denial 10000 40\n }');
  h.upstream.table.set('example.org. AAAA', negative(Rcode.NOERROR, [soa('example.org', 300)]));
  assert.deepEqual(ttlsOf(await h.ask('example.org', 'AAAA')), [40]);
  const hit = await h.ask('example.org', 'AAAA');
  assert.equal(hit.rcode, 'NOERROR');
  assert.equal(hit.answers?.length, 0);
  assert.equal(h.upstream.count, 1);
});

test('DO and CD queries are cached apart from plain ones', async (t) => {
  const h = await harness(t, 'cache');
  h.upstream.table.set('example.org. A', aReply([300]));
  await h.ask('example.org');
  await h.ask('example.org', 'A', { dnssecOk: true });
  await h.ask('example.org', 'A', { flags: dnsPacket.RECURSION_DESIRED | Flags.CD });
  assert.equal(h.upstream.count, 3);
  await h.ask('example.org');
  await h.ask('example.org', 'A', { dnssecOk: true });
  await h.ask('example.org', 'A', { flags: dnsPacket.RECURSION_DESIRED | Flags.CD });
  assert.equal(h.upstream.count, 3);
  assert.equal(h.upstream.seen[0]!.dnssecOk, false, 'DO goes upstream unchanged');
  assert.equal(h.upstream.seen[1]!.dnssecOk, true);
});

test('the query sent down the chain on a miss has AD set', async (t) => {
  const h = await harness(t, 'cache');
  h.upstream.table.set('example.org. A', aReply([300]));
  await h.ask('example.org');
  assert.equal((h.upstream.seen[0]!.flags & Flags.AD) !== 0, true);
});

test('AD is cleared for clients that sent neither DO nor AD, on misses and hits', async (t) => {
  const h = await harness(t, 'cache');
  h.upstream.table.set('example.org. A', (req) => ({ ...aReply([300])(req) as Packet, flags: Flags.RA | Flags.AD }));
  assert.equal((await h.ask('example.org')).flag_ad, false);
  assert.equal((await h.ask('example.org')).flag_ad, false);
  assert.equal((await h.ask('example.org', 'A', { flags: dnsPacket.RECURSION_DESIRED | Flags.AD })).flag_ad, true);
  assert.equal((await h.ask('example.org', 'A', { dnssecOk: true })).flag_ad, true);
  assert.equal((await h.ask('example.org', 'A', { dnssecOk: true })).flag_ad, true);
});

test('replies that are never cached go upstream every time', async (t) => {
  const h = await harness(t, 'cache');
  const cases: [string, dnsPacket.RecordType, Answerer][] = [
    ['tc.example.org.', 'A', (req) => ({ ...(aReply([300])(req) as Packet), flags: Flags.TC })],
    ['refused.example.org.', 'A', negative(Rcode.REFUSED, [])],
    ['formerr.example.org.', 'A', negative(Rcode.FORMERR, [])],
    ['nosoa.example.org.', 'A', negative(Rcode.NXDOMAIN, [])],
    ['nxanswer.example.org.', 'A', negative(Rcode.NXDOMAIN, [soa('example.org', 60)], [{ type: 'CNAME', name: 'nxanswer.example.org', ttl: 60, data: 'gone.example.org' }])],
    ['chain.example.org.', 'A', negative(Rcode.NOERROR, [], [{ type: 'CNAME', name: 'chain.example.org', ttl: 60, data: 'elsewhere.example.org' }])],
    ['nodata-nosoa.example.org.', 'TXT', negative(Rcode.NOERROR, [{ type: 'NS', name: 'example.org', ttl: 60, data: 'ns.example.org' }], [{ type: 'CNAME', name: 'nodata-nosoa.example.org', ttl: 60, data: 'x.example.org' }])],
  ];
  for (const [name, type, answerer] of cases) h.upstream.table.set(`${name} ${type}`, answerer);
  for (const [name, type] of cases) {
    await h.ask(name, type);
    await h.ask(name, type);
  }
  assert.equal(h.upstream.count, cases.length * 2);
});

test('a CNAME chain that misses the type is cached as NODATA when an SOA is present', async (t) => {
  const h = await harness(t, 'cache');
  h.upstream.table.set(
    'chain.example.org. A',
    negative(Rcode.NOERROR, [soa('example.org', 60)], [{ type: 'CNAME', name: 'chain.example.org', ttl: 300, data: 'elsewhere.example.org' }]),
  );
  await h.ask('chain.example.org');
  const hit = await h.ask('chain.example.org');
  assert.equal(h.upstream.count, 1);
  assert.deepEqual(ttlsOf(hit), [60, 60]);
});

test('a CNAME chain that reaches the type is a positive answer', async (t) => {
  const h = await harness(t, 'cache');
  h.upstream.table.set('www.example.org. A', (req) => ({
    ...replyTo(req),
    answers: [
      { type: 'CNAME', name: 'www.example.org', ttl: 300, data: 'web.example.org' },
      { type: 'A', name: 'web.example.org', ttl: 200, data: '192.0.2.7' },
    ],
  }));
  await h.ask('www.example.org');
  assert.deepEqual(ttlsOf(await h.ask('www.example.org')), [200, 200]);
  assert.equal(h.upstream.count, 1);
});

test('zone transfers are not cached', async (t) => {
  const h = await harness(t, 'cache');
  h.upstream.table.set('example.org. AXFR', (req) => ({ ...replyTo(req), answers: [soa('example.org', 300)] }));
  for (let i = 0; i < 2; i++) {
    const [wire] = await tcpExchange({ port: h.port }, makeQuery('example.org', 'AXFR'));
    assert.ok(wire);
  }
  assert.equal(h.upstream.count, 2);
});

test('a DO reply carrying an expired RRSIG is not cached, a valid one is', async (t) => {
  const h = await harness(t, 'cache');
  const now = Math.floor(h.clock / 1000);
  const sig = (expiration: number): Answer =>
    ({
      type: 'RRSIG',
      name: 'example.org',
      ttl: 300,
      data: { typeCovered: 'A', algorithm: 13, labels: 2, originalTTL: 300, expiration, inception: now - 86400, keyTag: 1, signersName: 'example.org', signature: Buffer.alloc(64) },
    }) as Answer;
  h.upstream.table.set('expired.example.org. A', (req) => ({ ...(aReply([300])(req) as Packet), answers: [...(aReply([300])(req) as Packet).answers!, sig(now - 10)] }));
  h.upstream.table.set('valid.example.org. A', (req) => ({ ...(aReply([300])(req) as Packet), answers: [...(aReply([300])(req) as Packet).answers!, sig(now + 86400)] }));
  for (let i = 0; i < 2; i++) {
    await h.ask('expired.example.org', 'A', { dnssecOk: true });
    await h.ask('valid.example.org', 'A', { dnssecOk: true });
  }
  assert.equal(h.upstream.count, 3);
});

test('SERVFAIL is cached only when a reply was written, for the servfail duration', async (t) => {
  const h = await harness(t, 'cache {\n  servfail 10s\n }');
  h.upstream.table.set('written.example.org. A', negative(Rcode.SERVFAIL, []));
  h.upstream.table.set('thrown.example.org. A', () => 'down');
  for (let i = 0; i < 2; i++) {
    assert.equal((await h.ask('written.example.org')).rcode, 'SERVFAIL');
    assert.equal((await h.ask('thrown.example.org')).rcode, 'SERVFAIL');
  }
  assert.equal(h.upstream.count, 3);
  h.clock += 10_000;
  await h.ask('written.example.org');
  assert.equal(h.upstream.count, 4);
});

test('servfail 0 turns SERVFAIL caching off', async (t) => {
  const h = await harness(t, 'cache {\n  servfail 0\n }');
  h.upstream.table.set('written.example.org. A', negative(Rcode.SERVFAIL, []));
  await h.ask('written.example.org');
  await h.ask('written.example.org');
  assert.equal(h.upstream.count, 2);
});

test('a popular entry is prefetched before it expires, and the new entry replaces it', async (t) => {
  const h = await harness(t, 'cache {\n  prefetch 2 1m 10%\n }');
  let version = 1;
  h.upstream.table.set('example.org. A', (req) => ({ ...replyTo(req), answers: [{ type: 'A', name: req.name, ttl: 100, data: `192.0.2.${version}` }] }));
  await h.ask('example.org');
  h.clock += 50_000;
  await h.ask('example.org'); // hit 1, 50 s left: too early
  h.clock += 41_000;
  version = 2;
  const beforeRefresh = await h.ask('example.org'); // hit 2, 9 s left ≤ 10 s: prefetch
  assert.equal((beforeRefresh.answers?.[0] as { data: string }).data, '192.0.2.1', 'the hit is answered from the old entry');
  await h.idle();
  assert.equal(h.upstream.count, 2);
  assert.equal((h.upstream.seen[1]!.flags & Flags.AD) !== 0, true);
  assert.equal(h.upstream.seen[1]!.transport, 'tcp', 'a refresh is never truncated');
  const after = await h.ask('example.org');
  assert.equal((after.answers?.[0] as { data: string }).data, '192.0.2.2');
  assert.deepEqual(ttlsOf(after), [100]);
  assert.deepEqual(await h.metric('coredns_cache_prefetch_total').then((rows) => rows.map((r) => r.value)), [1]);
});

test('an entry nobody asks for is never prefetched', async (t) => {
  const h = await harness(t, 'cache {\n  prefetch 1\n }');
  h.upstream.table.set('example.org. A', aReply([100]));
  await h.ask('example.org');
  h.clock += 95_000;
  await h.idle();
  assert.equal(h.upstream.count, 1);
  h.clock += 10_000;
  await h.ask('example.org');
  assert.equal(h.upstream.count, 2, 'expired, so a plain miss');
});

test('only one refresh per entry is in flight at a time', async (t) => {
  const h = await harness(t, 'cache {\n  prefetch 1\n }');
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let calls = 0;
  h.upstream.table.set('example.org. A', async (req) => {
    if (calls++ > 0) await gate;
    return aReply([100])(req);
  });
  await h.ask('example.org');
  h.clock += 95_000;
  await h.ask('example.org');
  await h.ask('example.org');
  await h.ask('example.org');
  release();
  await h.idle();
  assert.equal(h.upstream.count, 2);
});

test('serve_stale answers from an expired entry with TTL 0 while upstream is down', async (t) => {
  const h = await harness(t, 'cache {\n  serve_stale\n }');
  h.upstream.table.set('example.org. A', aReply([60]));
  await h.ask('example.org');
  h.upstream.down = true;
  h.clock += 120_000;
  const stale = await h.ask('example.org');
  assert.equal(stale.rcode, 'NOERROR');
  assert.deepEqual(ttlsOf(stale), [0]);
  await h.idle();
  assert.equal(h.upstream.count, 2, 'one background refresh was tried');
  assert.deepEqual(ttlsOf(await h.ask('example.org')), [0], 'the failed refresh kept the stale entry');
  await h.idle();
  h.upstream.down = false;
  await h.ask('example.org');
  await h.idle();
  assert.deepEqual(ttlsOf(await h.ask('example.org')), [60], 'a good refresh replaced it');
  const stales = await h.metric('coredns_cache_served_stale_total');
  assert.equal(stales[0]?.value, 3);
  h.clock += 3_660_000;
  h.upstream.down = true;
  assert.equal((await h.ask('example.org')).rcode, 'SERVFAIL', 'beyond the stale window nothing is served');
});

test('serve_stale RESPONSE_TTL sets the TTL of stale answers and FAILURE_RECHECK spaces refreshes', async (t) => {
  const h = await harness(t, 'cache {\n  serve_stale 1h immediate 30s 1m\n }');
  h.upstream.table.set('example.org. A', aReply([60]));
  await h.ask('example.org');
  h.upstream.down = true;
  h.clock += 120_000;
  assert.deepEqual(ttlsOf(await h.ask('example.org')), [30]);
  await h.idle();
  await h.ask('example.org');
  await h.idle();
  assert.equal(h.upstream.count, 2, 'no new refresh within a minute of the failed one');
  h.clock += 60_000;
  await h.ask('example.org');
  await h.idle();
  assert.equal(h.upstream.count, 3);
});

test('serve_stale verify asks upstream first and serves stale only when that fails', async (t) => {
  const h = await harness(t, 'cache {\n  serve_stale 1h verify\n }');
  let version = 1;
  h.upstream.table.set('example.org. A', (req) => ({ ...replyTo(req), answers: [{ type: 'A', name: req.name, ttl: 60, data: `192.0.2.${version}` }] }));
  await h.ask('example.org');
  h.clock += 120_000;
  version = 2;
  const fresh = await h.ask('example.org');
  assert.equal((fresh.answers?.[0] as { data: string }).data, '192.0.2.2');
  assert.deepEqual(ttlsOf(fresh), [60]);
  h.clock += 120_000;
  h.upstream.down = true;
  const stale = await h.ask('example.org');
  assert.equal((stale.answers?.[0] as { data: string }).data, '192.0.2.2');
  assert.deepEqual(ttlsOf(stale), [0]);
  assert.equal(h.upstream.count, 3);
});

test('serve_stale verify with a timeout serves stale when upstream is slow', async (t) => {
  const h = await harness(t, 'cache {\n  serve_stale 1h verify 20ms\n }');
  let slow = false;
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  h.upstream.table.set('example.org. A', async (req) => {
    if (slow) await gate;
    return aReply([60])(req);
  });
  await h.ask('example.org');
  h.clock += 120_000;
  slow = true;
  assert.deepEqual(ttlsOf(await h.ask('example.org')), [0]);
  release();
  await h.idle();
  assert.deepEqual(ttlsOf(await h.ask('example.org')), [60], 'the late verify still refreshed the entry');
});

test('a full shard evicts one of its own entries at random, as CoreDNS does', async (t) => {
  // The victim is the shard's member at ⌊random × count⌋: with 0, the first stored.
  const h = await harness(t, 'cache {\n  success 1\n }', new FakeBackend(), () => 0);
  h.upstream.table.set('* A', aReply([300]));
  // `success 1` still holds 1024 entries: 256 shards of at least 4. Five names of one shard.
  const shardOfName = (name: string): number => shardOf(`${name}.`, 1, 0);
  const shard = shardOfName('n0.example.org');
  const names: string[] = [];
  for (let i = 0; names.length < 5; i++) if (shardOfName(`n${i}.example.org`) === shard) names.push(`n${i}.example.org`);
  const other = Array.from({ length: 50 }, (_, i) => `o${i}.example.org`).find((name) => shardOfName(name) !== shard)!;
  for (const name of [...names.slice(0, 4), other]) await h.ask(name);
  const evictions = async (): Promise<unknown> => (await h.metric('coredns_cache_evictions_total')).map((r) => [r.labels['type'], r.value]);
  assert.deepEqual(await evictions(), [['success', 0], ['denial', 0]], 'four entries fill the shard, another shard is apart');
  await h.ask(names[4]!);
  assert.deepEqual(await evictions(), [['success', 1], ['denial', 0]]);
  const entries = await h.metric('coredns_cache_entries');
  assert.deepEqual(entries.map((r) => [r.labels['type'], r.value]), [['success', 5], ['denial', 0]]);
  assert.equal(h.upstream.count, 6);
  for (const name of [...names.slice(1), other]) await h.ask(name);
  assert.equal(h.upstream.count, 6, 'the other entries of the shard, and the other shard, are still there');
  await h.ask(names[0]!);
  assert.equal(h.upstream.count, 7, 'the evicted entry is asked for again');
});

test('a hit keeps the client question case and the owner names of the first reply', async (t) => {
  const h = await harness(t, 'cache');
  h.upstream.table.set('example.org. A', aReply([300]));
  await h.ask('ExAmPlE.org');
  const hit = await h.ask('eXaMpLe.ORG');
  assert.equal(h.upstream.count, 1);
  assert.equal(hit.questions?.[0]?.name, 'eXaMpLe.ORG');
  assert.equal(hit.answers?.[0]?.name, 'ExAmPlE.org');
});

test('a hit echoes EDNS to EDNS clients only, with their size and DO bit', async (t) => {
  const h = await harness(t, 'cache');
  h.upstream.table.set('example.org. A', aReply([300]));
  await h.ask('example.org', 'A', { udpSize: 1232 });
  const plain = await h.ask('example.org');
  assert.equal(plain.additionals?.length ?? 0, 0);
  const edns = await h.ask('example.org', 'A', { udpSize: 4000 });
  const opt = edns.additionals?.find((rr) => rr.type === 'OPT') as { udpPayloadSize: number; flags: number } | undefined;
  assert.equal(opt?.udpPayloadSize, 4000);
  assert.equal(opt.flags & dnsPacket.DNSSEC_OK, 0);
  assert.equal(h.upstream.count, 1);
  await h.ask('example.org', 'A', { dnssecOk: true, udpSize: 2048 });
  const withDo = await h.ask('example.org', 'A', { dnssecOk: true, udpSize: 2048 });
  const optDo = withDo.additionals?.find((rr) => rr.type === 'OPT') as { udpPayloadSize: number; flags: number } | undefined;
  assert.equal(optDo?.udpPayloadSize, 2048);
  assert.notEqual(optDo.flags & dnsPacket.DNSSEC_OK, 0);
});

test('a hit too large for a UDP client is truncated with TC', async (t) => {
  const h = await harness(t, 'cache');
  h.upstream.table.set('big.example.org. TXT', (req) => ({
    ...replyTo(req),
    answers: Array.from({ length: 20 }, (_, i) => ({ type: 'TXT', name: req.name, ttl: 300, data: `${i}`.padEnd(60, 'x') }) as Answer),
  }));
  await h.ask('big.example.org', 'TXT', { transport: 'tcp' });
  const udp = decodeReply((await udpExchange({ port: h.port }, makeQuery('big.example.org', 'TXT')))!);
  assert.equal(udp.flag_tc, true);
  assert.equal(h.upstream.count, 1);
});

test('keepttl answers with the stored TTL however old the entry is', async (t) => {
  const h = await harness(t, 'cache {\n  keepttl\n }');
  h.upstream.table.set('example.org. A', aReply([300]));
  await h.ask('example.org');
  h.clock += 200_000;
  assert.deepEqual(ttlsOf(await h.ask('example.org')), [300]);
});

test('names outside the cache zones and disabled zones are not cached', async (t) => {
  const h = await harness(t, 'cache 300 example.org {\n  disable success sub.example.org\n }');
  h.upstream.table.set('* A', aReply([300]));
  for (const name of ['example.org', 'other.net', 'a.sub.example.org']) {
    await h.ask(name);
    await h.ask(name);
  }
  assert.equal(h.upstream.count, 5);
});

test('disable denial keeps negative answers out but caches positive ones', async (t) => {
  const h = await harness(t, 'cache {\n  disable denial\n }');
  h.upstream.table.set('gone.example.org. A', negative(Rcode.NXDOMAIN, [soa('example.org', 60)]));
  h.upstream.table.set('here.example.org. A', aReply([60]));
  for (let i = 0; i < 2; i++) {
    await h.ask('gone.example.org');
    await h.ask('here.example.org');
  }
  assert.equal(h.upstream.count, 3);
});

test('a reply for another question is passed on but not cached, and counted as a drop', async (t) => {
  const h = await harness(t, 'cache');
  h.upstream.table.set('example.org. A', (req) => ({ ...aReply([300])(req) as Packet, questions: [{ name: 'other.org', type: 'A', class: 'IN' }] }));
  await h.ask('example.org');
  await h.ask('example.org');
  assert.equal(h.upstream.count, 2);
  assert.equal((await h.metric('coredns_cache_drops_total'))[0]?.value, 2);
});

test('the cache metrics count requests, hits by type, misses and entries with CoreDNS labels', async (t) => {
  const h = await harness(t, 'cache');
  h.upstream.table.set('example.org. A', aReply([300]));
  h.upstream.table.set('gone.example.org. A', negative(Rcode.NXDOMAIN, [soa('example.org', 60)]));
  await h.ask('example.org');
  await h.ask('example.org');
  await h.ask('example.org');
  await h.ask('gone.example.org');
  await h.ask('gone.example.org');
  // The server label names the configured listen address (port 0 here), as CoreDNS's does.
  const server = 'dns://127.0.0.1:0';
  const rows = async (name: string): Promise<[Record<string, string | number>, number][]> => (await h.metric(name)).map((r) => [r.labels, r.value]);
  assert.deepEqual(await rows('coredns_cache_requests_total'), [[{ server, zones: '.', view: '' }, 5]]);
  assert.deepEqual(await rows('coredns_cache_misses_total'), [[{ server, zones: '.', view: '' }, 2]]);
  assert.deepEqual(await rows('coredns_cache_hits_total'), [
    [{ server, type: 'success', zones: '.', view: '' }, 2],
    [{ server, type: 'denial', zones: '.', view: '' }, 1],
  ]);
  assert.deepEqual(await rows('coredns_cache_entries'), [
    [{ server, type: 'success', zones: '.', view: '' }, 1],
    [{ server, type: 'denial', zones: '.', view: '' }, 1],
  ]);
  const text = await h.server.server.registry.metrics();
  for (const name of ['entries', 'hits_total', 'misses_total', 'requests_total', 'prefetch_total', 'drops_total', 'served_stale_total', 'evictions_total']) {
    assert.match(text, new RegExp(`^# TYPE coredns_cache_${name} (counter|gauge)$`, 'm'));
  }
});

test('cache with nothing after it answers SERVFAIL', async (t) => {
  const cache = createCachePlugin();
  const server = await startServer('.:0 {\n bind 127.0.0.1\n cache\n}\n', { directives: directivesOf(bind, cache) });
  t.after(() => server.close());
  const reply = await query({ port: server.port() }, 'example.org', 'A');
  assert.equal(reply.rcode, 'SERVFAIL');
});

test('a hit reply is byte-identical to a decoded-and-re-encoded equivalent apart from OPT', async (t) => {
  const h = await harness(t, 'cache');
  h.upstream.table.set('example.org. MX', (req) => ({
    ...replyTo(req),
    flags: Flags.RA,
    answers: [{ type: 'MX', name: req.name, ttl: 300, data: { preference: 10, exchange: 'mail.example.org' } }],
    authorities: [{ type: 'NS', name: 'example.org', ttl: 300, data: 'ns.example.org' }],
    additionals: [{ type: 'A', name: 'mail.example.org', ttl: 300, data: '192.0.2.25' }],
  }));
  await h.ask('example.org', 'MX');
  const wire = (await udpExchange({ port: h.port }, makeQuery('example.org', 'MX', { id: 77 })))!;
  const decoded = decodeReply(wire);
  assert.equal(decoded.id, 77);
  assert.deepEqual(dnsPacket.encode(decoded), wire);
  assert.deepEqual(ttlsOf(decoded), [300, 300, 300]);
});

test("a miss sends the bytes the listener would encode from the reply: TTLs set, no upstream OPT, the client's OPT, AD cleared", async (t) => {
  const h = await harness(t, 'cache');
  // As *forward* passes on an upstream's reply: flags of its own, an OPT of its own.
  const answer = (req: Request): Packet => ({
    ...replyTo(req),
    flags: (req.flags & Flags.RD) | Flags.RA | Flags.AD,
    answers: [{ type: 'MX', name: req.name, ttl: 600, data: { preference: 10, exchange: 'mail.example.org' } }],
    authorities: [{ type: 'NS', name: 'example.org', ttl: 300, data: 'ns.example.org' }],
    additionals: [
      { type: 'A', name: 'mail.example.org', ttl: 900, data: '192.0.2.25' },
      { type: 'OPT', name: '.', udpPayloadSize: 1232, flags: 0, options: [{ code: 10, data: Buffer.alloc(24, 7) }] } as unknown as Answer,
    ],
  });
  h.upstream.table.set('* MX', answer);
  const cookie = { code: 10, data: Buffer.alloc(8, 1) };
  const queries: Array<[string, (name: string) => Buffer]> = [
    ['plain', (name) => makeQuery(name, 'MX', { id: 11 })],
    ['EDNS', (name) => makeQuery(name, 'MX', { id: 12, udpSize: 1232 })],
    ['DO', (name) => makeQuery(name, 'MX', { id: 13, udpSize: 4096, dnssecOk: true })],
    ['a cookie', (name) => dnsPacket.encode({ type: 'query', id: 14, flags: dnsPacket.RECURSION_DESIRED, questions: [{ type: 'MX', name, class: 'IN' }], additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 1400, flags: 0, options: [cookie] } as unknown as Answer] })],
  ];
  for (const [label, make] of queries) {
    const raw = make(`${label.replace(/\W/g, '')}.Example.org`);
    const got = await udpExchange({ port: h.port }, raw);
    const req = Request.fromWire(raw, 'udp', '127.0.0.1', 53);
    const msg = answer(req);
    const ttl = 300;
    const ad = req.dnssecOk ? Flags.AD : 0;
    const expected = encodeReply(req, {
      ...msg,
      flags: ((msg.flags ?? 0) & ~Flags.AD) | ad,
      answers: msg.answers!.map((rr) => ({ ...rr, ttl }) as Answer),
      authorities: msg.authorities!.map((rr) => ({ ...rr, ttl }) as Answer),
      additionals: msg.additionals!.filter((rr) => rr.type !== 'OPT').map((rr) => ({ ...rr, ttl }) as Answer),
    });
    assert.deepEqual(got, expected, label);
  }
  assert.equal(h.upstream.count, queries.length);
});

test('a name dns-packet does not write back as it came (an escaped dot) is answered every time but not cached', async (t) => {
  const h = await harness(t, 'cache');
  h.upstream.table.set('* A', aReply([300]));
  // One label "a.b", then "example": presented as a\.b.example., which dns-packet writes as two labels.
  const raw = Buffer.from([0, 9, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 3, 0x61, 0x2e, 0x62, 7, ...Buffer.from('example'), 0, 0, 1, 0, 1]);
  for (let i = 0; i < 2; i++) {
    const reply = decodeReply((await udpExchange({ port: h.port }, raw))!);
    assert.equal(reply.rcode, 'NOERROR');
    assert.equal(reply.answers?.length, 1);
  }
  assert.equal(h.upstream.count, 2);
  assert.deepEqual(h.caches[0]!.size, { success: 0, denial: 0 });
});

test('serve_stale_policy prefer_positive answers from a positive entry before a negative one', async (t) => {
  for (const [policy, want] of [['', 'NXDOMAIN'], ['serve_stale_policy prefer_positive', 'NOERROR']] as const) {
    const h = await harness(t, `cache {\n  prefetch 1\n  serve_stale\n  ${policy}\n }`);
    let gone = false;
    h.upstream.table.set('example.org. A', (req) => (gone ? negative(Rcode.NXDOMAIN, [soa('example.org', 60)])(req) : aReply([100])(req)));
    await h.ask('example.org');
    h.clock += 95_000;
    gone = true;
    await h.ask('example.org'); // prefetch: the NXDOMAIN lands in the denial cache beside the answer
    await h.idle();
    assert.equal((await h.ask('example.org')).rcode, want, policy || 'default order');
  }
});
