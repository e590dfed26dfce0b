import { test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Answer, Packet } from 'dns-packet';
import { writeDnssecKey } from '@foghorn/testkit';
import { readKeyFiles, SignatureCache, Signer, SigningKey } from '../src/index.js';
import type { CachedSignature, RrsigData } from '../src/index.js';

// CoreDNS's plugin/dnssec/cache_test.go and dnssec_test.go's cache and failure cases, on the
// signer with the clock in the test's hands. The socket tests (dnssec.test.ts) count the same
// hits and misses through the metrics.

const DAY = 24 * 3600;
const now = 1_800_000_000;

function key(t: TestContext): SigningKey {
  const dir = mkdtempSync(join(tmpdir(), 'foghorn-dnssec-cache-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return readKeyFiles(writeDnssecKey(dir, 'miek.nl', { ksk: true }).base);
}

const cells = () => ({ entries: { value: 0 }, hits: { value: 0 }, misses: { value: 0 } });

/** dnssec_test.go's testMsg: an MX answer and an NS authority. */
const testMsg = (): Packet => ({
  type: 'response',
  flags: 0x8400,
  questions: [{ name: 'miek.nl', type: 'MX', class: 'IN' }],
  answers: [{ name: 'miek.nl', type: 'MX', ttl: 1703, class: 'IN', data: { preference: 1, exchange: 'aspmx.l.google.com' } }],
  authorities: [{ name: 'miek.nl', type: 'NS', ttl: 1703, class: 'IN', data: 'omval.tednet.nl' }],
});

const sigCount = (records: readonly Answer[] | undefined): number => (records ?? []).filter((rr) => rr.type === 'RRSIG').length;

test('dnssec caches the signatures it makes and hands them out again (TestCacheSet)', (t) => {
  const signer = new Signer(['miek.nl.'], { keys: [key(t)], split: false }, new SignatureCache(10));
  const counts = cells();
  const first = signer.signReply(testMsg(), 'miek.nl.', 15, 'miek.nl.', now, counts);
  const second = signer.signReply(testMsg(), 'miek.nl.', 15, 'miek.nl.', now + 60, counts);
  assert.deepEqual([counts.misses.value, counts.hits.value, signer.cache.size], [2, 2, 2]);
  assert.deepEqual(second.answers, first.answers);
  assert.equal(sigCount(second.authorities), 1);
});

test('dnssec makes a signature anew once it has less than 2 of its 8 days left (TestCacheNotValidExpired)', (t) => {
  const signer = new Signer(['miek.nl.'], { keys: [key(t)], split: false }, new SignatureCache(10));
  const counts = cells();
  signer.signReply(testMsg(), 'miek.nl.', 15, 'miek.nl.', now - 9 * DAY, counts);
  const fresh = signer.signReply(testMsg(), 'miek.nl.', 15, 'miek.nl.', now, counts);
  assert.deepEqual([counts.misses.value, counts.hits.value], [4, 0]);
  // Made at now: valid from 3 hours before, for 8 days.
  const sig = fresh.answers!.find((rr) => rr.type === 'RRSIG')!.data as RrsigData;
  assert.deepEqual([sig.inception, sig.expiration], [now - 3 * 3600, now + 8 * DAY]);
  // Six days on it is still handed out; a second later it is made again.
  signer.signReply(testMsg(), 'miek.nl.', 15, 'miek.nl.', now + 6 * DAY, counts);
  assert.deepEqual([counts.misses.value, counts.hits.value], [4, 2]);
  signer.signReply(testMsg(), 'miek.nl.', 15, 'miek.nl.', now + 6 * DAY + 1, counts);
  assert.deepEqual([counts.misses.value, counts.hits.value], [6, 2]);
});

test('dnssec does not hand out a signature that is not valid yet (TestCacheNotValidYet)', (t) => {
  const signer = new Signer(['miek.nl.'], { keys: [key(t)], split: false }, new SignatureCache(10));
  const counts = cells();
  signer.signReply(testMsg(), 'miek.nl.', 15, 'miek.nl.', now + 9 * DAY, counts);
  signer.signReply(testMsg(), 'miek.nl.', 15, 'miek.nl.', now, counts);
  assert.deepEqual([counts.misses.value, counts.hits.value], [4, 0]);
});

test('dnssec without keys signs nothing and caches nothing (TestCacheEmptySigsNotCached)', () => {
  const signer = new Signer(['miek.nl.'], { keys: [], split: false }, new SignatureCache(10));
  const reply = signer.signReply(testMsg(), 'miek.nl.', 15, 'miek.nl.', now, cells());
  assert.equal(sigCount(reply.answers), 0);
  assert.equal(signer.cache.size, 0);
});

test('dnssec sends the reply unsigned and caches nothing when one of its keys fails (TestSignReturnsNilOnError)', (t) => {
  const good = key(t);
  const broken = Object.create(good, { sign: { value: () => { throw new Error('simulated signing failure'); } } }) as SigningKey;
  const signer = new Signer(['miek.nl.'], { keys: [good, broken], split: false }, new SignatureCache(10));
  const reply = signer.signReply(testMsg(), 'miek.nl.', 15, 'miek.nl.', now, cells());
  assert.deepEqual([sigCount(reply.answers), sigCount(reply.authorities), signer.cache.size], [0, 0, 0]);
});

test('dnssec leaves the message and the records it was given as they were', (t) => {
  const signer = new Signer(['miek.nl.'], { keys: [key(t)], split: false }, new SignatureCache(10));
  const msg = testMsg();
  const answers = msg.answers!;
  const signed = signer.signReply(msg, 'miek.nl.', 15, 'miek.nl.', now, cells());
  assert.equal(msg.answers, answers);
  assert.equal(answers.length, 1);
  assert.equal(signed.answers!.length, 2);
});

test('dnssec keys the cache by signer and canonical RRset: TTL and case do not matter, the data does', (t) => {
  const signer = new Signer(['miek.nl.'], { keys: [key(t)], split: false }, new SignatureCache(10));
  const counts = cells();
  const a = (name: string, ttl: number, address: string): Packet => ({ type: 'response', questions: [{ name, type: 'A' }], answers: [{ name, type: 'A', ttl, class: 'IN', data: address }] });
  signer.signReply(a('a.miek.nl', 300, '192.0.2.1'), 'a.miek.nl.', 1, 'miek.nl.', now, counts);
  signer.signReply(a('A.Miek.NL', 17, '192.0.2.1'), 'a.miek.nl.', 1, 'miek.nl.', now, counts);
  signer.signReply(a('a.miek.nl', 300, '192.0.2.2'), 'a.miek.nl.', 1, 'miek.nl.', now, counts);
  assert.deepEqual([counts.misses.value, counts.hits.value], [2, 1]);
});

test('dnssec evicts a random entry when the cache is full, and drops stale ones when it cleans', () => {
  const sig = (expiration: number): CachedSignature[] => [{ fields: { typeCovered: 'A', algorithm: 13, labels: 2, originalTTL: 3600, expiration, inception: now - 3600, keyTag: 1, signersName: 'miek.nl' }, signature: 'x'.repeat(64) }];
  const picks = [0.99, 0, 0.5];
  const cache = new SignatureCache(3, () => picks.shift() ?? 0);
  for (const key of ['a', 'b', 'c']) cache.set(key, sig(now + 8 * DAY));
  cache.set('d', sig(now + 8 * DAY)); // evicts slot 2, 'c'
  cache.set('e', sig(now + 8 * DAY)); // evicts slot 0, 'a'
  assert.equal(cache.size, 3);
  assert.deepEqual(['a', 'b', 'c', 'd', 'e'].map((k) => cache.get(k, now) !== undefined), [false, true, false, true, true]);
  cache.set('b', sig(now + DAY)); // replaced in place: stale from now on
  assert.equal(cache.size, 3);
  assert.equal(cache.clean(now), 1);
  assert.deepEqual(['b', 'd', 'e'].map((k) => cache.get(k, now) !== undefined), [false, true, true]);
  assert.equal(new SignatureCache(0).get('x', now), undefined);
  const none = new SignatureCache(0);
  none.set('x', sig(now + 8 * DAY));
  assert.equal(none.size, 0);
});
