/**
 * Lighthouse's coredns/loadbalancer/smooth_weighted_round_robin_test.go and the sequences of
 * docs/compatibility.md, "Cluster selection"; coredns/gateway/controller_test.go; and the
 * permitted-address rules of docs/compatibility.md, "Inputs".
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dashedHostname, isPermittedAddress, reverseName, ServiceStore, SmoothWeightedRoundRobin } from '../src/index.js';
import { gateway, submariner } from './fixtures.js';

function balancer(items: [string, number][]): SmoothWeightedRoundRobin<string> {
  const b = new SmoothWeightedRoundRobin<string>();
  for (const [key, weight] of items) b.add(key, weight);
  return b;
}
const picks = (b: SmoothWeightedRoundRobin<string>, n: number): string[] => Array.from({ length: n }, () => b.keyAt(b.next()));

test('the balancer: empty has no next, bad weights and duplicates are errors, one item is always it', () => {
  assert.equal(new SmoothWeightedRoundRobin<string>().next(), -1);
  assert.throws(() => balancer([['s1', -1]]), /weight must be a non-negative number/);
  assert.throws(() => balancer([['s1', 1], ['s1', 1]]), /already added/);
  assert.deepEqual(picks(balancer([['s1', 1]]), 3), ['s1', 's1', 's1']);
});

test('the balancer: equal weights are strict order, 5,1,1 is smooth and proportional', () => {
  const equal = balancer([['s1', 1], ['s2', 1], ['s3', 1]]);
  assert.deepEqual(picks(equal, 300), Array.from({ length: 100 }, () => ['s1', 's2', 's3']).flat());
  const weighted = balancer([['s1', 5], ['s2', 1], ['s3', 1]]);
  assert.deepEqual(picks(weighted, 7), ['s1', 's1', 's2', 's1', 's3', 's1', 's1']);
  const counts = new Map<string, number>();
  for (const key of picks(weighted, 100)) counts.set(key, (counts.get(key) ?? 0) + 1);
  assert.ok(Math.abs(counts.get('s1')! - (100 * 5) / 7) <= 1);
  assert.ok(Math.abs(counts.get('s2')! - 100 / 7) <= 1);
});

test('the balancer: skip lowers the effective weight, and an item added later joins the cycle', () => {
  const b = balancer([['s1', 5], ['s2', 1], ['s3', 1]]);
  assert.deepEqual(picks(b, 7), ['s1', 's1', 's2', 's1', 's3', 's1', 's1']);
  b.skip(0);
  assert.deepEqual(picks(b, 3), ['s2', 's3', 's1']);
  const c = balancer([['s1', 5], ['s2', 1], ['s3', 1]]);
  assert.deepEqual(picks(c, 3), ['s1', 's1', 's2']);
  c.add('s4', 1);
  assert.deepEqual(picks(c, 8), ['s1', 's3', 's1', 's1', 's4', 's1', 's1', 's2']);
});

test('the balancer state keeps its identity when an item is added: answer caches hold it directly', () => {
  const b = balancer([['s1', 1], ['s2', 1]]);
  const state = b.state;
  assert.deepEqual(picks(b, 1), ['s1']);
  b.add('s3', 1);
  assert.equal(b.state, state);
  assert.deepEqual(state, [1, -1, 1, 1, 1, 1, 1, 0, 1], 'weight, current, effective per item, in order');
  assert.deepEqual(picks(b, 3), ['s2', 's3', 's1']);
});

test('select follows docs/compatibility.md, "Cluster selection": all good, B bad, B and C bad, B bad for three queries', () => {
  const run = (bad: (query: number) => Set<string>, n: number): string => {
    const b = balancer([['A', 1], ['B', 1], ['C', 1]]);
    return Array.from({ length: n }, (_, q) => {
      const index = b.select((i) => !bad(q).has(b.keyAt(i)));
      return index < 0 ? '-' : b.keyAt(index);
    }).join(' ');
  };
  assert.equal(run(() => new Set(), 6), 'A B C A B C');
  assert.equal(run(() => new Set(['B']), 6), 'A C A C A C');
  assert.equal(run(() => new Set(['B', 'C']), 3), 'A A A');
  assert.equal(run((q) => new Set(q < 3 ? ['B'] : []), 9), 'A C A C B A C B A');
  assert.equal(run(() => new Set(['A', 'B', 'C']), 2), '- -');
});

test('Gateways decide the local cluster id and connectivity (coredns/gateway/controller_test.go)', () => {
  const store = new ServiceStore('');
  assert.equal(store.isConnected('east'), true, 'no Submariner: every cluster counts as connected');
  store.submariners.upsert(submariner());
  assert.equal(store.isConnected('east'), false, 'Submariner but no Gateway yet: nothing is connected');
  store.gateways.upsert(gateway('east', []));
  assert.equal(store.localClusterId, 'east');
  assert.equal(store.isConnected('east'), true);
  store.gateways.upsert(gateway('west', []));
  assert.equal(store.localClusterId, 'west');

  const s = new ServiceStore('east');
  s.submariners.replace([submariner()]);
  s.gateways.upsert(gateway('east', [['west', 'connected'], ['south', 'connecting']]));
  assert.deepEqual(['west', 'east', 'south'].map((c) => s.isConnected(c)), [true, true, false]);
  s.gateways.upsert(gateway('east', [['west', 'error'], ['south', 'connected']]));
  assert.deepEqual(['west', 'south'].map((c) => s.isConnected(c)), [false, true]);
  s.gateways.upsert(gateway('east', [['west', 'connected'], ['south', 'error']]));
  assert.deepEqual(['west', 'south'].map((c) => s.isConnected(c)), [true, false]);
  assert.equal(s.isConnected('unknown'), false);
  // Entries are judged against the set before the update.
  s.gateways.upsert(gateway('east', [['south', 'connected'], ['south', 'error']]));
  assert.equal(s.isConnected('south'), true);
  // A deleted Gateway leaves every cluster as it was.
  s.gateways.remove(gateway('east', []));
  assert.equal(s.isConnected('south'), true);

  const passive = new ServiceStore('');
  passive.submariners.replace([submariner()]);
  passive.gateways.upsert(gateway('east', [['west', 'connected']], 'passive'));
  assert.equal(passive.localClusterId, 'east');
  assert.equal(passive.isConnected('east'), true);
  assert.equal(passive.isConnected('west'), false);
});

test('permitted addresses exclude unspecified, loopback, link-local, multicast and broadcast (docs/compatibility.md, "Inputs")', () => {
  const allowed = ['10.1.2.3', '172.16.0.1', '192.168.1.1', '203.0.113.7', '100.96.157.101', 'fd00::1', '2001:db8::1', 'fc00:2001::6757'];
  const denied = ['0.0.0.0', '::', '127.0.0.1', '127.255.0.1', '::1', '169.254.1.1', 'fe80::1', '224.0.0.1', '239.1.1.1', 'ff02::1', '255.255.255.255', 'not-an-ip', '::ffff:127.0.0.1'];
  for (const ip of allowed) assert.equal(isPermittedAddress(ip), true, ip);
  for (const ip of denied) assert.equal(isPermittedAddress(ip), false, ip);
  assert.equal(dashedHostname('10.1.2.3'), '10-1-2-3');
  assert.equal(dashedHostname('fc00:2001::6757'), 'fc00-2001--6757');
  assert.equal(reverseName('10.1.2.3'), '3.2.1.10.in-addr.arpa.');
  assert.equal(reverseName('2001:db8::1'), '1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa.');
});
