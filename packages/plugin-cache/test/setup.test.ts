import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setupTable } from '@foghorn/testkit';
import type { BadCase, GoodCase } from '@foghorn/testkit';
import cache, { parseCache } from '@foghorn/plugin-cache';
import { effectiveCapacity } from '../src/store.js';
import type { CacheOptions } from '@foghorn/plugin-cache';

const defaults: CacheOptions = {
  zones: ['example.org.'],
  success: { capacity: 10000, maxTtlSeconds: 3600, minTtlSeconds: 5 },
  denial: { capacity: 10000, maxTtlSeconds: 1800, minTtlSeconds: 5 },
  prefetchAmount: 0,
  prefetchDurationMs: 60_000,
  prefetchPercentage: 10,
  staleUpToMs: 0,
  staleMode: 'immediate',
  verifyTimeoutMs: 0,
  staleResponseTtlSeconds: 0,
  failureRecheckMs: 0,
  preferPositive: false,
  servfailMs: 5000,
  disableSuccess: [],
  disableDenial: [],
  keepTtl: false,
};

/** Each case lists what differs from the defaults. */
const changes: GoodCase<Partial<CacheOptions>>[] = [
  { input: 'cache', want: {} },
  { input: 'cache', key: 'example.org example.net:1053 10.0.0.0/24', want: { zones: ['example.org.', 'example.net.', '0.0.10.in-addr.arpa.'] } },
  { input: 'cache 30', want: { success: { capacity: 10000, maxTtlSeconds: 30, minTtlSeconds: 5 }, denial: { capacity: 10000, maxTtlSeconds: 30, minTtlSeconds: 5 } } },
  { input: 'cache 30 Example.COM dns://other.net:53', want: { zones: ['example.com.', 'other.net.'], success: { capacity: 10000, maxTtlSeconds: 30, minTtlSeconds: 5 }, denial: { capacity: 10000, maxTtlSeconds: 30, minTtlSeconds: 5 } } },
  { input: 'cache example.com', want: { zones: ['example.com.'] } },
  { input: 'cache {\n success 20000\n}', want: { success: { capacity: 20000, maxTtlSeconds: 3600, minTtlSeconds: 5 } } },
  { input: 'cache {\n success 20000 60 10\n denial 100 30 0\n}', want: { success: { capacity: 20000, maxTtlSeconds: 60, minTtlSeconds: 10 }, denial: { capacity: 100, maxTtlSeconds: 30, minTtlSeconds: 0 } } },
  { input: 'cache 100 {\n denial 5 10\n}', want: { success: { capacity: 10000, maxTtlSeconds: 100, minTtlSeconds: 5 }, denial: { capacity: 5, maxTtlSeconds: 10, minTtlSeconds: 5 } } },
  { input: 'cache {\n prefetch 10\n}', want: { prefetchAmount: 10 } },
  { input: 'cache {\n prefetch 0\n}', want: {} },
  { input: 'cache {\n prefetch 2 30s 50%\n}', want: { prefetchAmount: 2, prefetchDurationMs: 30_000, prefetchPercentage: 50 } },
  { input: 'cache {\n prefetch 2 1h 10%\n}', want: { prefetchAmount: 2, prefetchDurationMs: 3_600_000, prefetchPercentage: 10 } },
  { input: 'cache {\n serve_stale\n}', want: { staleUpToMs: 3_600_000 } },
  { input: 'cache {\n serve_stale 20m\n}', want: { staleUpToMs: 1_200_000 } },
  { input: 'cache {\n serve_stale 0s\n}', want: { staleUpToMs: 0 } },
  { input: 'cache {\n serve_stale 1h VERIFY\n}', want: { staleUpToMs: 3_600_000, staleMode: 'verify' } },
  { input: 'cache {\n serve_stale 1h immediate 30s 1m\n}', want: { staleUpToMs: 3_600_000, staleResponseTtlSeconds: 30, failureRecheckMs: 60_000 } },
  { input: 'cache {\n serve_stale 1h verify 2s 10s 5m\n}', want: { staleUpToMs: 3_600_000, staleMode: 'verify', verifyTimeoutMs: 2000, staleResponseTtlSeconds: 10, failureRecheckMs: 300_000 } },
  { input: 'cache {\n serve_stale\n serve_stale_policy prefer_positive\n}', want: { staleUpToMs: 3_600_000, preferPositive: true } },
  { input: 'cache {\n serve_stale_policy prefer_positive\n serve_stale\n}', want: { staleUpToMs: 3_600_000, preferPositive: true } },
  { input: 'cache {\n servfail 0\n}', want: { servfailMs: 0 } },
  { input: 'cache {\n servfail 5m\n}', want: { servfailMs: 300_000 } },
  { input: 'cache {\n disable success\n}', want: { disableSuccess: ['.'] } },
  { input: 'cache {\n disable denial Example.org sub.example.net.\n}', want: { disableDenial: ['example.org.', 'sub.example.net.'] } },
  { input: 'cache {\n disable denial a.org\n disable denial b.org\n}', want: { disableDenial: ['b.org.'] } },
  { input: 'cache {\n keepttl\n}', want: { keepTtl: true } },
];

const good: GoodCase<CacheOptions>[] = changes.map((c) => ({ ...c, want: { ...defaults, ...c.want } }));

const bad: BadCase[] = [
  { input: 'cache\ncache', error: 'Corefile:3:1 - Error during parsing: this plugin can only be used once per Server Block' },
  { input: 'cache 0', error: 'Corefile:2:7 - Error during parsing: cache TTL can not be zero or negative: 0' },
  { input: 'cache -5', error: 'Corefile:2:7 - Error during parsing: cache TTL can not be zero or negative: -5' },
  { input: 'cache {\n success\n}', error: "Corefile:3:2 - Error during parsing: Wrong argument count or unexpected line ending after 'success'" },
  { input: 'cache {\n success x\n}', error: 'Corefile:3:10 - Error during parsing: strconv.Atoi: parsing "x": invalid syntax' },
  { input: 'cache {\n success 10 0\n}', error: 'Corefile:3:13 - Error during parsing: cache TTL can not be zero or negative: 0' },
  { input: 'cache {\n success 10 10 -1\n}', error: 'Corefile:3:16 - Error during parsing: cache min TTL can not be negative: -1' },
  { input: 'cache {\n denial 10 x\n}', error: 'Corefile:3:12 - Error during parsing: strconv.Atoi: parsing "x": invalid syntax' },
  { input: 'cache {\n denial 10 10 -2\n}', error: 'Corefile:3:15 - Error during parsing: cache min TTL can not be negative: -2' },
  { input: 'cache {\n prefetch\n}', error: "Corefile:3:2 - Error during parsing: Wrong argument count or unexpected line ending after 'prefetch'" },
  { input: 'cache {\n prefetch 1 1m 10% extra\n}', error: 'Corefile:3:20 - Error during parsing: Wrong argument count or unexpected line ending after' },
  { input: 'cache {\n prefetch -1\n}', error: 'Corefile:3:11 - Error during parsing: prefetch amount should be positive: -1' },
  { input: 'cache {\n prefetch 1 soon\n}', error: 'Corefile:3:13 - Error during parsing: time: invalid duration "soon"' },
  { input: 'cache {\n prefetch 1 1m 50\n}', error: "Corefile:3:16 - Error during parsing: last character of percentage should be `%`, but is: '0'" },
  { input: 'cache {\n prefetch 1 1m 95%\n}', error: 'Corefile:3:16 - Error during parsing: percentage should fall in range [10, 90]: 95' },
  { input: 'cache {\n prefetch 1 1m 5%\n}', error: 'Corefile:3:16 - Error during parsing: percentage should fall in range [10, 90]: 5' },
  { input: 'cache {\n serve_stale -1h\n}', error: 'Corefile:3:14 - Error during parsing: invalid negative duration for serve_stale' },
  { input: 'cache {\n serve_stale 1h later\n}', error: 'Corefile:3:17 - Error during parsing: invalid value for serve_stale refresh mode: later' },
  { input: 'cache {\n serve_stale 1h immediate 1s 1s 1s\n}', error: 'Corefile:3:33 - Error during parsing: Wrong argument count or unexpected line ending after' },
  { input: 'cache {\n serve_stale 1h verify 1s 1s 1s 1s\n}', error: 'Corefile:3:33 - Error during parsing: Wrong argument count or unexpected line ending after' },
  { input: 'cache {\n serve_stale 1h immediate 1500ms\n}', error: 'Corefile:3:27 - Error during parsing: serve_stale response TTL must be a whole number of seconds' },
  { input: 'cache {\n serve_stale 1h immediate 0s 6m\n}', error: 'Corefile:3:30 - Error during parsing: serve_stale failure recheck over 5 minutes is not permitted' },
  { input: 'cache {\n serve_stale_policy prefer_positive\n}', error: 'Corefile:4:1 - Error during parsing: serve_stale_policy requires serve_stale' },
  { input: 'cache {\n serve_stale\n serve_stale_policy prefer_negative\n}', error: 'Corefile:4:21 - Error during parsing: invalid value for serve_stale_policy: prefer_negative' },
  { input: 'cache {\n serve_stale\n serve_stale_policy prefer_positive\n serve_stale_policy prefer_positive\n}', error: 'Corefile:5:21 - Error during parsing: serve_stale_policy can only be specified once' },
  { input: 'cache {\n servfail\n}', error: "Corefile:3:2 - Error during parsing: Wrong argument count or unexpected line ending after 'servfail'" },
  { input: 'cache {\n servfail -1s\n}', error: 'Corefile:3:11 - Error during parsing: invalid negative ttl for servfail' },
  { input: 'cache {\n servfail 6m\n}', error: 'Corefile:3:11 - Error during parsing: caching SERVFAIL responses over 5 minutes is not permitted' },
  { input: 'cache {\n disable\n}', error: "Corefile:3:2 - Error during parsing: Wrong argument count or unexpected line ending after 'disable'" },
  { input: 'cache {\n disable positive\n}', error: 'Corefile:3:10 - Error during parsing: cache type for disable must be "success" or "denial"' },
  { input: 'cache {\n keepttl 10\n}', error: "Corefile:3:10 - Error during parsing: Wrong argument count or unexpected line ending after '10'" },
  { input: 'cache {\n unknown 1\n}', error: "Corefile:3:2 - Error during parsing: Wrong argument count or unexpected line ending after 'unknown'" },
];

setupTable('cache', parseCache, { good, bad, plugin: cache });

test('capacity is rounded to 256 shards of at least 4 entries, so never below 1024', () => {
  assert.equal(effectiveCapacity(10000), 9984);
  assert.equal(effectiveCapacity(0), 1024);
  assert.equal(effectiveCapacity(-5), 1024);
  assert.equal(effectiveCapacity(2048), 2048);
});
