/**
 * *nsid* over real sockets: CoreDNS's TestNsid and TestNsidCache, and the replies it must leave
 * alone (queries without the option, replies the server writes itself).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { OptAnswer, Packet } from 'dns-packet';
import bind from '@foghorn/plugin-bind';
import cache from '@foghorn/plugin-cache';
import forward from '@foghorn/plugin-forward';
import whoami from '@foghorn/plugin-whoami';
import { replyTo } from '@foghorn/core';
import { edeOption, replyOpt } from '@foghorn/core/wire';
import { directivesOf, query, rcodeOf, reply, startServer, testPlugin, upstreamFor } from '@foghorn/testkit';
import nsid from '../src/index.js';

const directives = directivesOf(nsid, bind, cache, forward, whoami);
const askNsid = [{ code: 3, data: Buffer.alloc(0) }];

const optOf = (msg: Packet): OptAnswer | undefined => msg.additionals?.find((rr): rr is OptAnswer => rr.type === 'OPT');
/** The reply's EDNS options as [code, data as text]. */
const optionsOf = (msg: Packet): [number, string][] =>
  ((optOf(msg)?.options ?? []) as unknown as { code: number; data: Buffer }[]).map((o) => [o.code, Buffer.from(o.data ?? []).toString('utf8')]);

test('whoami answers a query asking for NSID with the NSID option (TestNsid)', async (t) => {
  const server = await startServer('.:0 {\n  bind 127.0.0.1\n  nsid NSID\n  whoami\n}\n', { directives });
  t.after(() => server.close());
  for (const transport of ['udp', 'tcp'] as const) {
    for (const dnssecOk of [false, true]) {
      const answer = await query({ port: server.port() }, '.', 'A', { transport, udpSize: 4096, dnssecOk, ednsOptions: askNsid });
      assert.equal(rcodeOf(answer), 'NOERROR');
      assert.deepEqual(optionsOf(answer), [[3, 'NSID']]);
      // The OPT echoes the client's size and DO bit, as CoreDNS's scrub leaves it.
      assert.equal(optOf(answer)?.udpPayloadSize, 4096);
      assert.equal(optOf(answer)?.flag_do, dnssecOk);
    }
  }
});

test('queries without the NSID option get none: with or without EDNS', async (t) => {
  const server = await startServer('.:0 {\n  bind 127.0.0.1\n  nsid NSID\n  whoami\n}\n', { directives });
  t.after(() => server.close());
  assert.equal(optOf(await query({ port: server.port() }, 'example.org', 'A')), undefined);
  const cookie = await query({ port: server.port() }, 'example.org', 'A', { ednsOptions: [{ code: 10, data: Buffer.from('0123456789abcdef', 'hex') }] });
  assert.deepEqual(optionsOf(cookie).map(([code]) => code), [10]);
});

test('the identifier is sent as its bytes, the words of DATA joined by spaces', async (t) => {
  const server = await startServer('.:0 {\n  bind 127.0.0.1\n  nsid Use The Force\n  whoami\n}\n', { directives });
  t.after(() => server.close());
  const answer = await query({ port: server.port() }, 'example.org', 'A', { ednsOptions: askNsid });
  const [option] = (optOf(answer)?.options ?? []) as unknown as { code: number; data: Buffer }[];
  // dig +nsid shows it as `NSID: 55 73 65 20 54 68 65 20 46 6f 72 63 65 ("Use The Force")`.
  assert.equal(Buffer.from(option!.data).toString('hex'), '5573652054686520466f726365');
});

test('cache hits carry the NSID, the cache keeps replies without it, and an upstream NSID is replaced (TestNsidCache)', async (t) => {
  // The upstream answers with its own NSID whenever it is asked for one.
  const upstream = await upstreamFor(t, (q) => {
    const answer = reply(q, { answers: [{ type: 'A', name: q.questions[0]!.name, ttl: 60, data: '192.0.2.1' }] });
    const opt = optOf(answer);
    if (opt && (opt.options ?? []).some((o) => (o as { code: number }).code === 3)) opt.options = [{ code: 3, data: Buffer.from('upstream') }] as never;
    return [answer];
  });
  const server = await startServer(`.:0 {\n  bind 127.0.0.1\n  nsid NSID\n  cache\n  forward . ${upstream.address}\n}\n`, { directives });
  t.after(() => server.close());
  for (const transport of ['udp', 'tcp', 'udp'] as const) {
    const answer = await query({ port: server.port() }, 'example.org', 'A', { transport, ednsOptions: askNsid });
    assert.deepEqual(optionsOf(answer), [[3, 'NSID']], transport);
    assert.equal(answer.answers?.length, 1);
  }
  assert.equal(upstream.lookups.length, 1);
  // The cached reply is served to a client that did not ask without any NSID.
  assert.ok(!optionsOf(await query({ port: server.port() }, 'example.org', 'A', { udpSize: 1232 })).some(([code]) => code === 3));
});

test('a reply the server writes itself (no zone: REFUSED) echoes the empty NSID option, as the scrub of CoreDNS does', async (t) => {
  const server = await startServer('example.org:0 {\n  bind 127.0.0.1\n  nsid NSID\n  whoami\n}\n', { directives });
  t.after(() => server.close());
  const refused = await query({ port: server.port() }, 'example.net', 'A', { ednsOptions: askNsid });
  assert.equal(rcodeOf(refused), 'REFUSED');
  assert.deepEqual(optionsOf(refused), [[3, '']]);
});

test('a reply written with its own OPT (an extended error) keeps it and gains the NSID; the message is not changed', async (t) => {
  const written: Packet[] = [];
  const blocked = testPlugin('blocked', () => ({
    name: 'blocked',
    serveDNS(req, w) {
      const msg = replyTo(req, 5);
      msg.additionals = [replyOpt(req, { options: [edeOption(15, 'blocked')] })];
      written.push(msg);
      w.write(msg);
      return 5;
    },
  }));
  const server = await startServer('.:0 {\n  bind 127.0.0.1\n  nsid NSID\n  blocked\n}\n', { directives: directivesOf(nsid, bind, blocked) });
  t.after(() => server.close());
  for (const transport of ['udp', 'tcp'] as const) {
    const answer = await query({ port: server.port() }, 'ads.example.org', 'A', { transport, ednsOptions: askNsid });
    assert.equal(rcodeOf(answer), 'REFUSED');
    assert.deepEqual(optionsOf(answer), [[15, '\u0000\u000fblocked'], [3, 'NSID']]);
  }
  // What the plugin wrote still has only its own option.
  assert.deepEqual(written.map((msg) => optionsOf(msg).map(([code]) => code)), [[15], [15]]);
});
