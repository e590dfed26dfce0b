/**
 * rrl over real sockets: a prefix's burst and its limit, prefixes, TCP, slip, report-only,
 * zones and request limiting. The categories are in categories.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { metric, query, rcodeOf } from '@foghorn/testkit';
import { answered, assertLimited, blast, full, repeat, serve, slipped } from './blast.js';
import type { Question } from './blast.js';

test('a client prefix gets responses-per-second answers at once, the rest is dropped and counted', async (t) => {
  const server = await serve(t, ' rrl {\n  responses-per-second 5\n }\n file DB');
  const replies = await blast(server, '127.1.0.5', repeat('www.example.org', 'A', 20));
  const sent = full(replies);
  assertLimited(sent.length, 'www A');
  assert.equal(slipped(replies).length, 0);
  for (const reply of sent) assert.deepEqual(reply.answers?.map((rr) => ('data' in rr ? rr.data : undefined)), ['192.0.2.1']);
  const labels = { category: 'response' };
  assert.equal(await metric(server, 'coredns_rrl_responses_exceeded_total', labels), 20 - sent.length);
  assert.equal(await metric(server, 'coredns_rrl_responses_dropped_total', labels), 20 - sent.length);
  assert.equal(await metric(server, 'coredns_rrl_responses_slipped_total'), 0);
  assert.equal(server.lines.filter((line) => line === '[INFO] plugin/rrl: limit responses to 127.1.0.0/24 for www.example.org. IN A').length, 1, server.lines.join('\n'));
});

test('addresses in the same /24 share its account; another /24 has its own', async (t) => {
  const server = await serve(t, ' rrl {\n  responses-per-second 5\n }\n file DB');
  assertLimited(full(await blast(server, '127.1.0.5', repeat('www.example.org', 'A', 20))).length, 'first address');
  assert.equal(full(await blast(server, '127.1.0.6', repeat('www.example.org', 'A', 3))).length, 0, 'same /24');
  assert.equal(full(await blast(server, '127.2.0.5', repeat('www.example.org', 'A', 3))).length, 3, 'another /24');
});

test('ipv4-prefix-length 32 gives every address its own account', async (t) => {
  const server = await serve(t, ' rrl {\n  responses-per-second 5\n  ipv4-prefix-length 32\n }\n file DB');
  assertLimited(full(await blast(server, '127.1.0.5', repeat('www.example.org', 'A', 20))).length, 'first address');
  assert.equal(full(await blast(server, '127.1.0.6', repeat('www.example.org', 'A', 3))).length, 3);
});

test('TCP is never limited, even for a prefix over its UDP limit', async (t) => {
  const server = await serve(t, ' rrl {\n  responses-per-second 5\n }\n file DB');
  assertLimited(full(await blast(server, '127.0.0.1', repeat('www.example.org', 'A', 20))).length, 'UDP');
  for (let i = 0; i < 10; i++) {
    const reply = await query({ port: server.port() }, 'www.example.org', 'A', { transport: 'tcp' });
    assert.equal(reply.answers?.length, 1);
  }
});

test('slip-ratio 1: each reply over the limit leaves as TC=1 with no records, the rcode, question and OPT kept; TCP gets the answer', async (t) => {
  const server = await serve(t, ' rrl {\n  responses-per-second 5\n  slip-ratio 1\n }\n file DB');
  const replies = await blast(server, '127.0.0.1', repeat('www.example.org', 'A', 12), { udpSize: 1232, dnssecOk: true });
  assert.equal(answered(replies).length, 12, 'every query gets a reply');
  assertLimited(full(replies).length, 'full replies');
  for (const reply of slipped(replies)) {
    assert.equal(rcodeOf(reply), 'NOERROR');
    assert.equal(reply.flag_aa, true, 'the header of the reply it replaces');
    assert.deepEqual(reply.questions, [{ name: 'www.example.org', type: 'A', class: 'IN' }]);
    assert.deepEqual([reply.answers, reply.authorities], [[], []]);
    assert.deepEqual(
      reply.additionals?.map((rr) => [rr.type, 'udpPayloadSize' in rr ? rr.udpPayloadSize : undefined, 'flag_do' in rr ? rr.flag_do : undefined]),
      [['OPT', 1232, true]],
    );
  }
  assert.equal(await metric(server, 'coredns_rrl_responses_slipped_total', { category: 'response' }), slipped(replies).length);
  assert.equal(await metric(server, 'coredns_rrl_responses_dropped_total'), 0);
  // What a real client does with TC=1.
  const retried = await query({ port: server.port() }, 'www.example.org', 'A', { transport: 'tcp' });
  assert.deepEqual(retried.answers?.map((rr) => ('data' in rr ? rr.data : undefined)), ['192.0.2.1']);
});

test('slip-ratio 2: every second reply over the limit slips, the others are dropped', async (t) => {
  const server = await serve(t, ' rrl {\n  responses-per-second 5\n  slip-ratio 2\n }\n file DB');
  const replies = await blast(server, '127.0.0.1', repeat('www.example.org', 'A', 25));
  const over = 25 - full(replies).length;
  const tc = slipped(replies).length;
  assert.ok(Math.abs(tc - over / 2) <= 1, `${tc} slipped of ${over} over the limit`);
  assert.equal(await metric(server, 'coredns_rrl_responses_dropped_total'), over - tc);
});

test('report-only sends every reply, counts those over the limit and logs "would limit"', async (t) => {
  const server = await serve(t, ' rrl {\n  responses-per-second 5\n  log-only\n }\n file DB');
  const replies = await blast(server, '127.1.0.5', repeat('www.example.org', 'A', 20));
  assert.equal(full(replies).length, 20);
  const exceeded = await metric(server, 'coredns_rrl_responses_exceeded_total');
  assert.ok(exceeded >= 10 && exceeded <= 15, `${exceeded} over the limit`);
  assert.equal(await metric(server, 'coredns_rrl_responses_dropped_total'), 0);
  assert.ok(server.lines.includes('[INFO] plugin/rrl: would limit responses to 127.1.0.0/24 for www.example.org. IN A'), server.lines.join('\n'));
});

test('only the zones rrl names are limited', async (t) => {
  const server = await serve(t, ' rrl example.org {\n  responses-per-second 5\n }\n file DB example.org\n whoami', '.:0');
  assertLimited(full(await blast(server, '127.1.0.5', repeat('www.example.org', 'A', 20))).length, 'example.org');
  assert.equal(full(await blast(server, '127.1.0.5', repeat('www.example.net', 'A', 20))).length, 20, 'example.net');
});

test('requests-per-second drops UDP queries over the rate whatever their reply; TCP is not limited', async (t) => {
  const server = await serve(t, ' rrl {\n  requests-per-second 5\n }\n file DB');
  const mixed = Array.from({ length: 20 }, (_, i): Question => ({ name: i % 2 === 0 ? `n${i}.example.org` : 'www.example.org', type: 'A' }));
  const replies = await blast(server, '127.1.0.5', mixed);
  assertLimited(answered(replies).length, 'requests');
  assert.equal(await metric(server, 'coredns_rrl_requests_exceeded_total'), 20 - answered(replies).length);
  assert.ok(server.lines.includes('[INFO] plugin/rrl: limit requests from 127.1.0.0/24'), server.lines.join('\n'));
  const tcp = await query({ port: server.port() }, 'www.example.org', 'A', { transport: 'tcp' });
  assert.equal(tcp.answers?.length, 1);
});
