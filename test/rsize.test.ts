/**
 * The reply size the recorders see (log's `{rsize}`, `coredns_dns_response_size_bytes`) for
 * replies written as bytes that already hold the OPT (kubernetes, lighthouse, whoami, cache hits),
 * also behind rewrite: CoreDNS's recorders count the message its plugin wrote, before the scrub
 * writer adds the OPT, so an EDNS query's size is the reply's length without the OPT's 11 octets,
 * as for any other plugin.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { standardDirectives } from 'foghorn';
import { Rcode } from '@foghorn/core';
import { createCachePlugin } from '@foghorn/plugin-cache';
import type { Cache } from '@foghorn/plugin-cache';
import { createLogPlugin } from '@foghorn/plugin-log';
import { eventually, histogramSum, makeQuery, reply, startServer, startUpstream, udpExchange } from '@foghorn/testkit';
import { repoRoot } from './cli-helpers.js';

test('{rsize} of kubernetes and lighthouse answers leaves out the OPT, as CoreDNS logs it', async (t) => {
  const logged: string[] = [];
  const log = createLogPlugin({ sink: (line) => logged.push(line) });
  const directives = standardDirectives().map((entry) => (entry.name === 'log' ? { ...entry, load: () => log } : entry));
  const server = await startServer(
    `cluster.local:0 {
  bind 127.0.0.1
  log . "{name} {rsize}"
  kubernetes cluster.local {
    manifests ${repoRoot}examples/cluster
  }
}
clusterset.local:0 {
  bind 127.0.0.1
  log . "{name} {rsize}"
  lighthouse {
    manifests ${repoRoot}examples/clusterset
    cluster_id cluster1
  }
}
`,
    { directives },
  );
  t.after(() => server.close());
  for (const [zone, name] of [
    ['cluster.local.', 'web.shop.svc.cluster.local'],
    ['clusterset.local.', 'checkout.shop.svc.clusterset.local'],
  ] as const) {
    for (const edns of [false, true]) {
      const reply = await udpExchange({ port: server.port(zone) }, makeQuery(name, 'A', edns ? { udpSize: 1232 } : {}));
      assert.ok(reply, `${name} answered`);
      const expected = reply.length - (edns ? 11 : 0);
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(logged.pop(), `[INFO] ${name}. ${expected}`, `${name}, EDNS ${edns}`);
    }
  }
});

/** Asks `name` A over UDP; returns the reply's length and the `{rsize}` logged for it. */
async function sizes(port: number, name: string, edns: boolean, logged: string[]): Promise<{ sent: number; rsize: number }> {
  const before = logged.length;
  const reply = await udpExchange({ port }, makeQuery(name, 'A', edns ? { udpSize: 1232 } : {}));
  assert.ok(reply, `${name} answered`);
  await eventually(() => logged.length > before, 3000, `the log line for ${name}`);
  assert.equal(logged.length, before + 1);
  const match = /^\[INFO\] (\S+) (\d+)$/.exec(logged[before]!);
  assert.ok(match, `log line ${logged[before]}`);
  assert.equal(match[1], `${name}.`);
  return { sent: reply.length, rsize: Number(match[2]) };
}

test('{rsize} and the response size histogram of cache hits and stale answers leave out the OPT, as CoreDNS counts them', async (t) => {
  const logged: string[] = [];
  const log = createLogPlugin({ sink: (line) => logged.push(line) });
  let clock = 1_700_000_000_000;
  const caches: Cache[] = [];
  const cache = createCachePlugin({ now: () => clock, onCreate: (c) => caches.push(c) });
  const directives = standardDirectives().map((entry) => (entry.name === 'log' ? { ...entry, load: () => log } : entry.name === 'cache' ? { ...entry, load: () => cache } : entry));
  const upstream = await startUpstream();
  t.after(() => upstream.close());
  const block = (zone: string, stale: string): string => `${zone}:0 {
  bind 127.0.0.1
  prometheus 127.0.0.1:0
  log . "{name} {rsize}"
  cache 30 {
    serve_stale 1h ${stale}
  }
  forward . ${upstream.address}
}
`;
  const server = await startServer(block('immediate.example', 'immediate') + block('verifying.example', 'verify'), { directives });
  t.after(async () => {
    for (const c of caches) await c.whenIdle();
    await server.close();
  });

  // CoreDNS's cache writes a message without OPT on a miss (cache.go `ResponseWriter.WriteMsg`
  // runs every section through `filterRRSlice`, which drops OPT), on a hit and on a stale answer
  // (item.go: `newItem` keeps no OPT, `toMsg` builds a new message from the item), so its
  // recorders count, uncompressed (`Compress` is unset on that message):
  //   header 12 + question 25 (`a.immediate.example.` 21 + type and class)
  //   + A record 35 (the same name 21 + type, class, TTL, RDLENGTH 10 + address 4) = 72,
  // and the same for `a.verifying.example.`. The scrub then adds the 11 octets of OPT for an
  // EDNS client: 83 octets sent.
  for (const zone of ['immediate.example', 'verifying.example']) {
    const name = `a.${zone}`;
    const port = server.port(`${zone}.`);
    const cases: [what: string, edns: boolean][] = [
      ['miss', true],
      ['hit', true],
      ['hit without EDNS', false],
    ];
    for (const [what, edns] of cases) {
      assert.deepEqual(await sizes(port, name, edns, logged), { sent: edns ? 83 : 72, rsize: 72 }, `${name}: ${what}`);
    }
    // Past the 30 s the answer was kept for: a stale answer. In verify mode the upstream must
    // fail for it to be served, so it answers SERVFAIL from now on.
    clock += 31_000;
    if (zone === 'verifying.example') upstream.behaviour = (q) => [reply(q, { rcode: Rcode.SERVFAIL })];
    assert.deepEqual(await sizes(port, name, true, logged), { sent: 83, rsize: 72 }, `${name}: stale`);
    for (const c of caches) await c.whenIdle();
    assert.equal(await histogramSum(server, 'coredns_dns_response_size_bytes', { zone: `${zone}.` }), 4 * 72, `${zone}: histogram sum`);
    clock -= 31_000;
  }
});

test('{rsize} behind rewrite is what the plugin wrote, without the OPT, as CoreDNS counts it', async (t) => {
  const logged: string[] = [];
  const log = createLogPlugin({ sink: (line) => logged.push(line) });
  const directives = standardDirectives().map((entry) => (entry.name === 'log' ? { ...entry, load: () => log } : entry));
  const upstream = await startUpstream();
  t.after(() => upstream.close());
  const server = await startServer(
    `whoami.example:0 {
  bind 127.0.0.1
  log . "{name} {rsize}"
  rewrite name exact alias.whoami.example. me.whoami.example.
  whoami
}
cached.example:0 {
  bind 127.0.0.1
  log . "{name} {rsize}"
  rewrite name exact alias.cached.example. a.cached.example.
  cache
  forward . ${upstream.address}
}
`,
    { directives },
  );
  t.after(() => server.close());

  // CoreDNS's `ResponseReverter.WriteMsg` (plugin/rewrite/reverter.go) copies the message the
  // plugin below wrote, puts the client's question back and writes it to log's recorder, which
  // counts it before the scrub adds the OPT. whoami's message (plugin/whoami/whoami.go) has no
  // OPT; an `exact` name rule also maps the owner names back (name.go: `newExactNameRule` is
  // `auto`); names are counted uncompressed:
  //   header 12 + question 26 (`alias.whoami.example.` 22 + 4)
  //   + A 36 (`alias.whoami.example.` 22 + 10 + address 4)
  //   + SRV 44 (`_udp.alias.whoami.example.` 27 + 10 + priority, weight, port, root target 7) = 118.
  const whoami = server.port('whoami.example.');
  for (const edns of [true, false]) {
    assert.deepEqual(await sizes(whoami, 'alias.whoami.example', edns, logged), { sent: edns ? 129 : 118, rsize: 118 }, `whoami, EDNS ${edns}`);
  }
  // Through cache: no OPT on a miss or a hit (see the test above):
  //   header 12 + question 26 (`alias.cached.example.` 22 + 4) + A 36 (owner `alias.cached.example.` 22 + 10 + 4) = 74.
  const cached = server.port('cached.example.');
  for (const what of ['miss', 'hit']) {
    assert.deepEqual(await sizes(cached, 'alias.cached.example', true, logged), { sent: 85, rsize: 74 }, `cache ${what}`);
  }
});
