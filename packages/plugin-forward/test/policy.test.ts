import { test } from 'node:test';
import assert from 'node:assert/strict';
import { query, upstreamFor } from '@foghorn/testkit';
import type { FakeUpstream } from '@foghorn/testkit';
import { serve } from './serve.js';
import { RandomPolicy, RoundRobinPolicy, SequentialPolicy } from '../src/policy.js';

/** mulberry32: a seeded generator, so the random policy's test is deterministic. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function distribute(t: Parameters<typeof serve>[0], policy: string, queries: number, random?: () => number): Promise<{ counts: number[]; order: number[] }> {
  const upstreams: FakeUpstream[] = [];
  for (let i = 0; i < 3; i++) upstreams.push(await upstreamFor(t));
  const server = await serve(t, `forward . ${upstreams.map((u) => u.address).join(' ')} {\n policy ${policy}\n }`, random ? { random } : {});
  const order: number[] = [];
  for (let i = 0; i < queries; i++) {
    await query({ port: server.port() }, `q${i}.example.org`, 'A');
    order.push(upstreams.findIndex((u) => u.lookups.some((q) => q.name === `q${i}.example.org`)));
  }
  return { counts: upstreams.map((u) => u.lookups.length), order };
}

test('policy sequential sends every query to the first upstream', async (t) => {
  const { counts } = await distribute(t, 'sequential', 6);
  assert.deepEqual(counts, [6, 0, 0]);
});

test('policy round_robin starts one further along per query, beginning with the second upstream', async (t) => {
  const { counts, order } = await distribute(t, 'round_robin', 6);
  assert.deepEqual(order, [1, 2, 0, 1, 2, 0]);
  assert.deepEqual(counts, [2, 2, 2]);
});

test('policy random spreads queries over every upstream', async (t) => {
  const { counts } = await distribute(t, 'random', 150, seeded(42));
  assert.equal(counts.reduce((a, b) => a + b, 0), 150);
  for (const count of counts) assert.ok(count > 30, `uneven spread ${counts.join('/')}`);
});

test('the policies order the upstream list as CoreDNS does', () => {
  const items = ['a', 'b', 'c'];
  assert.deepEqual(new SequentialPolicy<string>().list(items), ['a', 'b', 'c']);
  const robin = new RoundRobinPolicy<string>();
  assert.deepEqual(robin.list(items), ['b', 'c', 'a']);
  assert.deepEqual(robin.list(items), ['c', 'a', 'b']);
  assert.deepEqual(robin.list(items), ['a', 'b', 'c']);
  const shuffled = new RandomPolicy<string>(seeded(1)).list(items);
  assert.deepEqual([...shuffled].sort(), items);
  assert.deepEqual(items, ['a', 'b', 'c'], 'the configured list is not reordered in place');
});
