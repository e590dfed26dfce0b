/**
 * Per-query cost of the rrl handler on queries within their limits: `serveDNS` of whoami alone
 * against rrl → whoami, in the same run, for one client, for 10,000 clients in as many /24s
 * (the accounts spread over the table), and over TCP (never limited). A no-op writer keeps
 * sockets out of it; a new Request per call, as the listener makes one per query. Time is this
 * process's CPU time (user + system), not the wall clock, and the variants take turns in each
 * round, so a busy machine slows them alike; each figure is the best round.
 *
 *   npx tsc -b packages/plugin-rrl && node packages/plugin-rrl/dist/bench/handler.bench.js
 */
import { createLogger, Request } from '@foghorn/core';
import type { Handler, ResponseWriter } from '@foghorn/core';
import { emptyHeader, readQuery } from '@foghorn/core/wire';
import { Whoami } from '@foghorn/plugin-whoami';
import { makeQuery } from '@foghorn/testkit';
import { Registry } from 'prom-client';
import { Rrl } from '../src/handler.js';
import { createRrlMetrics } from '../src/metrics.js';
import type { RrlOptions } from '../src/setup.js';

const iterations = Number(process.env.ITERATIONS ?? 200_000);
const rounds = 7;

const raw = makeQuery('www.example.org', 'A');
const header = emptyHeader();
readQuery(raw, header);

const noop: ResponseWriter = { write: () => 60, writeWire: (wire) => wire.length };

/** CPU time of `iterations` calls of `run`, in ns per call. */
function cpuPerCall(run: (i: number) => void): number {
  const start = process.cpuUsage();
  for (let i = 0; i < iterations; i++) run(i);
  const used = process.cpuUsage(start);
  return ((used.user + used.system) * 1000) / iterations;
}

/** Each variant once per round, in turn; the best round of each, in ns per call. */
function measure(variants: Record<string, (i: number) => void>): Record<string, number> {
  const best: Record<string, number> = {};
  for (let r = 0; r < rounds; r++) {
    for (const [name, run] of Object.entries(variants)) best[name] = Math.min(best[name] ?? Infinity, cpuPerCall(run));
  }
  return best;
}

function request(address: string, transport: 'udp' | 'tcp' = 'udp'): Request {
  const req = new Request(raw, header, transport, address, 5353);
  req.server = 'dns://:53';
  req.zone = '.';
  return req;
}

// Every category limited, at a rate no benchmark reaches: every query is accounted, none limited.
const rate = 1e12;
const options: RrlOptions = {
  zones: ['.'],
  windowMs: 15_000,
  ipv4PrefixLength: 24,
  ipv6PrefixLength: 56,
  responsesPerSecond: rate,
  nodataPerSecond: rate,
  nxdomainsPerSecond: rate,
  referralsPerSecond: rate,
  errorsPerSecond: rate,
  requestsPerSecond: 0,
  slipRatio: 2,
  maxTableSize: 100_000,
  reportOnly: false,
};
const whoami: Handler = new Whoami();
const limited: Handler = new Rrl(options, createRrlMetrics(new Registry()), createLogger(() => {}), new Whoami());
const withRequests: Handler = new Rrl({ ...options, requestsPerSecond: rate }, createRrlMetrics(new Registry()), createLogger(() => {}), new Whoami());
const clients = Array.from({ length: 10_000 }, (_, i) => `10.${i >> 8}.${i & 0xff}.7`);

const ns = measure({
  base: () => void whoami.serveDNS(request('192.0.2.1'), noop),
  one: () => void limited.serveDNS(request('192.0.2.1'), noop),
  many: (i) => void limited.serveDNS(request(clients[i % clients.length]!), noop),
  requests: () => void withRequests.serveDNS(request('192.0.2.1'), noop),
  baseTcp: () => void whoami.serveDNS(request('192.0.2.1', 'tcp'), noop),
  tcp: () => void limited.serveDNS(request('192.0.2.1', 'tcp'), noop),
});
const { base, one, many, requests, baseTcp, tcp } = ns as Record<'base' | 'one' | 'many' | 'requests' | 'baseTcp' | 'tcp', number>;

const fmt = (ns: number): string => `${ns.toFixed(0).padStart(6)} ns`;
process.stdout.write(
  [
    `node ${process.versions.node}, ${iterations} calls x ${rounds} rounds, CPU time per call (best round)`,
    `whoami alone (UDP)                         ${fmt(base)}`,
    `rrl -> whoami, one client                  ${fmt(one)}   rrl: ${fmt(one - base)}`,
    `rrl -> whoami, 10,000 clients in 10,000 /24 ${fmt(many)}   rrl: ${fmt(many - base)}`,
    `rrl -> whoami, one client, requests too    ${fmt(requests)}   rrl: ${fmt(requests - base)}`,
    `whoami alone (TCP)                         ${fmt(baseTcp)}`,
    `rrl -> whoami over TCP (not limited)       ${fmt(tcp)}   rrl: ${fmt(tcp - baseTcp)}`,
    '',
  ].join('\n'),
);
