import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Counter, Registry } from 'prom-client';
import type { Metric } from 'prom-client';
import { counter, counterVec, gauge, histogram, histogramVec, registerCollector, slimTimeBuckets, timeBuckets } from '../src/metrics.js';

test("the time buckets are CoreDNS's: 0.25 ms doubling sixteen times, and the slim set", () => {
  // prometheus.ExponentialBuckets(0.00025, 2, 16) multiplies as it goes; the values are exact.
  const expected: number[] = [];
  for (let b = 0.00025, i = 0; i < 16; i++, b *= 2) expected.push(b);
  assert.deepEqual(timeBuckets, expected);
  assert.equal(timeBuckets.at(-1), 8.192);
  assert.deepEqual(slimTimeBuckets, [0.00025, 0.0025, 0.025, 0.25, 2.5]);
});

test('a second setup gets the counter, gauge and histogram the first one registered', () => {
  const registry = new Registry();
  const make = () => ({
    c: counter(registry, { name: 'c_total', help: 'h', labelNames: ['server'] }),
    g: gauge(registry, { name: 'g', help: 'h' }),
    h: histogram(registry, { name: 'h_seconds', help: 'h', buckets: [...timeBuckets] }),
  });
  const first = make();
  first.c.inc({ server: 'dns://:53' });
  const second = make();
  assert.equal(second.c, first.c);
  assert.equal(second.g, first.g);
  assert.equal(second.h, first.h);
  assert.equal(registry.getMetricsAsArray().length, 3);
});

test('a name taken by another kind of metric is refused', () => {
  const registry = new Registry();
  counter(registry, { name: 'taken', help: 'h' });
  assert.throws(() => gauge(registry, { name: 'taken', help: 'h' }), /metric taken is already registered as a different collector/);
});

test('a custom collector is registered once and later copies give way to it', async () => {
  const registry = new Registry();
  class Fixed {
    constructor(
      readonly name: string,
      readonly value: number,
    ) {}
    get() {
      return Promise.resolve({ name: this.name, help: 'h', type: 'gauge', aggregator: 'sum', values: [{ labels: {}, value: this.value }] });
    }
    reset(): void {}
  }
  const isFixed = (m: unknown): m is Fixed => m instanceof Fixed;
  const first = registerCollector(registry, new Fixed('fixed', 1), isFixed);
  assert.equal(registerCollector(registry, new Fixed('fixed', 2), isFixed), first);
  assert.match(await registry.metrics(), /^fixed 1$/m);
  new Counter({ name: 'plain', help: 'h', registers: [registry] });
  assert.throws(() => registerCollector(registry, new Fixed('plain', 3), isFixed), /already registered/);
  assert.ok((registry.getSingleMetric('plain') as Metric | undefined) instanceof Counter);
});

test("cell vecs print what prom-client's Counter and Histogram print for the same updates", async () => {
  const theirs = new Registry();
  const ours = new Registry();
  const labelNames = ['proxy_name', 'to', 'rcode'];
  const help = 'Histogram of the time each request took.';
  const histogramTheirs = histogram(theirs, { name: 'd_seconds', help, labelNames, buckets: [...timeBuckets] });
  const counterTheirs = counter(theirs, { name: 'hits_total', help: 'Hits.', labelNames: ['to', 'proto'] });
  const histogramOurs = histogramVec(ours, { name: 'd_seconds', help, labelNames, buckets: timeBuckets });
  const counterOurs = counterVec(ours, { name: 'hits_total', help: 'Hits.', labelNames: ['to', 'proto'] });
  // Values on bounds, between them, past the last one, and a second label set.
  const observations: [string, number][] = [['NOERROR', 0.0001], ['NOERROR', 0.00025], ['NOERROR', 0.003], ['NXDOMAIN', 9], ['NOERROR', 0.5]];
  for (const [rcode, seconds] of observations) {
    histogramTheirs.labels('forward', '127.0.0.1:53', rcode).observe(seconds);
    histogramOurs.child('forward', '127.0.0.1:53', rcode).observe(seconds);
  }
  for (let i = 0; i < 3; i++) {
    counterTheirs.labels('127.0.0.1:53', 'udp').inc();
    counterOurs.child('127.0.0.1:53', 'udp').value++;
  }
  assert.equal(await ours.metrics(), await theirs.metrics());
  // A second setup (reload, another block) gets the registered vec, rows and all.
  assert.equal(histogramVec(ours, { name: 'd_seconds', help, labelNames, buckets: timeBuckets }), histogramOurs);
  assert.equal(counterVec(ours, { name: 'hits_total', help: 'Hits.', labelNames: ['to', 'proto'] }), counterOurs);
  assert.throws(() => counterVec(ours, { name: 'd_seconds', help, labelNames }), /already registered as a different collector/);
});
