/**
 * Per-query cost of the prometheus handler: `serveDNS` of whoami alone, of prometheus → whoami,
 * and of the six prom-client label-child updates the handler would make with prom-client's own
 * Counter/Histogram (what `collectors.ts` avoids). A no-op writer keeps sockets out of it.
 *
 *   npx tsc -b packages/plugin-prometheus && node packages/plugin-prometheus/dist/bench/handler.bench.js
 */
import { Request, timeBuckets } from '@foghorn/core';
import type { Handler, ResponseWriter } from '@foghorn/core';
import { emptyHeader, readQuery } from '@foghorn/core/wire';
import { Whoami } from '@foghorn/plugin-whoami';
import { makeQuery } from '@foghorn/testkit';
import { Counter, Histogram, Registry } from 'prom-client';
import { Prometheus } from '../src/handler.js';
import { createDnsMetrics, sizeBuckets } from '../src/metrics.js';

const iterations = Number(process.env.ITERATIONS ?? 100_000);
const rounds = 5;

const raw = makeQuery('www.example.org', 'A');
const header = emptyHeader();
readQuery(raw, header);

/**
 * A new Request per call, as the listener makes one per query: a reused one would keep the
 * timing start of its first call (Request.startTime) and spare later calls a clock read.
 */
function request(): Request {
  const req = new Request(raw, header, 'udp', '192.0.2.1', 5353);
  req.server = 'dns://:53';
  req.zone = 'example.org.';
  return req;
}

const noop: ResponseWriter = { write: () => 60, writeWire: (wire) => wire.length };

/** Best of `rounds` runs, in ns per call. */
function measure(run: () => void): number {
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) run();
    best = Math.min(best, Number(process.hrtime.bigint() - start) / iterations);
  }
  return best;
}

const whoami: Handler = new Whoami();
const chained: Handler = new Prometheus('prometheus', new Whoami(), createDnsMetrics(new Registry()));

const registry = new Registry();
const requests = new Counter({ name: 'r', help: 'h', labelNames: ['server', 'zone', 'view', 'proto', 'family', 'type'], registers: [registry] });
const responses = new Counter({ name: 'rc', help: 'h', labelNames: ['server', 'zone', 'view', 'rcode', 'plugin'], registers: [registry] });
const duration = new Histogram({ name: 'd', help: 'h', labelNames: ['server', 'zone', 'view'], buckets: [...timeBuckets], registers: [registry] });
const reqSize = new Histogram({ name: 'q', help: 'h', labelNames: ['server', 'zone', 'view', 'proto'], buckets: [...sizeBuckets], registers: [registry] });
const respSize = new Histogram({ name: 's', help: 'h', labelNames: ['server', 'zone', 'view', 'proto'], buckets: [...sizeBuckets], registers: [registry] });
// Children resolved once, as the brief suggests for prom-client.
const children = {
  requests: requests.labels('dns://:53', 'example.org.', '', 'udp', '1', 'A'),
  responses: responses.labels('dns://:53', 'example.org.', '', 'NOERROR', ''),
  duration: duration.labels('dns://:53', 'example.org.', ''),
  reqSize: reqSize.labels('dns://:53', 'example.org.', '', 'udp'),
  respSize: respSize.labels('dns://:53', 'example.org.', '', 'udp'),
};
const promClientReport = (): void => {
  children.requests.inc();
  children.responses.inc();
  children.duration.observe(0.0003);
  children.reqSize.observe(33);
  children.respSize.observe(60);
};

const base = measure(() => void whoami.serveDNS(request(), noop));
const withMetrics = measure(() => void chained.serveDNS(request(), noop));
const promClient = measure(promClientReport);

const fmt = (ns: number): string => `${ns.toFixed(0).padStart(6)} ns`;
process.stdout.write(
  [
    `node ${process.versions.node}, ${iterations} calls x ${rounds} rounds (best round)`,
    `whoami alone                          ${fmt(base)}`,
    `prometheus -> whoami                  ${fmt(withMetrics)}`,
    `prometheus overhead per query         ${fmt(withMetrics - base)}`,
    `same updates via prom-client children ${fmt(promClient)} (5 of the 6 updates, without the Recorder and clock)`,
    '',
  ].join('\n'),
);
