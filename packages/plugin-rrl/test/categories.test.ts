/**
 * rrl's accounts per response category over real sockets: what each category is keyed by (BIND's
 * tokens), their separate rates, and replies written as stored bytes (cache hits).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RecordType } from 'dns-packet';
import { metric, rcodeOf } from '@foghorn/testkit';
import { answered, assertLimited, blast, full, repeat, serve, slipped } from './blast.js';
import type { Question } from './blast.js';

test('NXDOMAIN replies under one zone share an account whatever the name; positive ones are per name and type', async (t) => {
  const server = await serve(t, ' rrl {\n  responses-per-second 5\n }\n file DB');
  const missing = Array.from({ length: 20 }, (_, i): Question => ({ name: `nope${i}.example.org`, type: 'A' }));
  const nx = await blast(server, '127.1.0.5', missing);
  assertLimited(full(nx).length, 'NXDOMAIN');
  for (const reply of full(nx)) assert.equal(rcodeOf(reply), 'NXDOMAIN');
  assert.equal(server.lines.filter((line) => line === '[INFO] plugin/rrl: limit nxdomain responses to 127.1.0.0/24 for example.org.').length, 1, server.lines.join('\n'));
  // Four names, four queries each: every account stays within 5, and NXDOMAIN's debt is its own.
  const names = ['www', 'a', 'b', 'c'].flatMap((label) => repeat(`${label}.example.org`, 'A', 4));
  assert.equal(full(await blast(server, '127.1.0.5', names)).length, 16);
});

test('each category has its own rate: nxdomains-per-second 0 leaves NXDOMAIN unlimited', async (t) => {
  const server = await serve(t, ' rrl {\n  responses-per-second 5\n  nxdomains-per-second 0\n }\n file DB');
  const missing = Array.from({ length: 20 }, (_, i): Question => ({ name: `nope${i}.example.org`, type: 'A' }));
  assert.equal(full(await blast(server, '127.1.0.5', missing)).length, 20);
  assertLimited(full(await blast(server, '127.1.0.5', repeat('www.example.org', 'A', 20))).length, 'www A');
});

test('NODATA replies for a name share an account whatever the type', async (t) => {
  const server = await serve(t, ' rrl {\n  nodata-per-second 5\n }\n file DB');
  const types: RecordType[] = ['AAAA', 'MX', 'TXT', 'SRV', 'CAA'];
  const replies = await blast(server, '127.1.0.5', types.flatMap((type) => repeat('www.example.org', type, 4)));
  assertLimited(full(replies).length, 'www NODATA');
  // Positive replies are not limited here: only nodata-per-second is set.
  assert.equal(full(await blast(server, '127.1.0.5', repeat('www.example.org', 'A', 20))).length, 20);
});

test('referrals to one delegation share an account', async (t) => {
  const server = await serve(t, ' rrl {\n  referrals-per-second 5\n }\n file DB');
  const below = Array.from({ length: 20 }, (_, i): Question => ({ name: `host${i}.sub.example.org`, type: 'A' }));
  const replies = await blast(server, '127.1.0.5', below);
  assertLimited(full(replies).length, 'referrals');
  for (const reply of full(replies)) assert.deepEqual(reply.authorities?.map((rr) => [rr.type, rr.name]), [['NS', 'sub.example.org']]);
});

test('errors are limited per prefix whatever the name: one acl writes, one the server writes, slipped with their rcode', async (t) => {
  const server = await serve(t, ' rrl {\n  errors-per-second 5\n  slip-ratio 1\n }\n acl {\n  block type MX\n }\n file DB example.org', '.:0');
  const refused = await blast(server, '127.1.0.5', Array.from({ length: 12 }, (_, i): Question => ({ name: `m${i}.example.org`, type: 'MX' })));
  assertLimited(full(refused).length, 'REFUSED');
  for (const reply of answered(refused)) assert.equal(rcodeOf(reply), 'REFUSED');
  // Outside example.org, file (last in the chain) returns REFUSED without writing: the server's reply.
  const unwritten = await blast(server, '127.2.0.5', Array.from({ length: 12 }, (_, i): Question => ({ name: `x${i}.example.net`, type: 'A' })));
  assert.equal(answered(unwritten).length, 12);
  assertLimited(full(unwritten).length, 'server-written REFUSED');
  for (const reply of answered(unwritten)) assert.equal(rcodeOf(reply), 'REFUSED');
  assert.equal(await metric(server, 'coredns_rrl_responses_slipped_total', { category: 'error' }), slipped(refused).length + slipped(unwritten).length);
});

test('cached replies, written as stored bytes, are limited like the first', async (t) => {
  const server = await serve(t, ' rrl {\n  responses-per-second 5\n  nxdomains-per-second 5\n }\n cache\n file DB');
  // Warm the cache from another prefix.
  await blast(server, '127.9.0.1', [{ name: 'www.example.org', type: 'A' }, { name: 'gone.example.org', type: 'A' }]);
  assertLimited(full(await blast(server, '127.1.0.5', repeat('www.example.org', 'A', 20))).length, 'cached www A');
  assertLimited(full(await blast(server, '127.1.0.5', repeat('gone.example.org', 'A', 20))).length, 'cached NXDOMAIN');
  assert.ok(await metric(server, 'coredns_cache_hits_total') >= 38);
});
