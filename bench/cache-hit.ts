/**
 * `node bench/dist/cache-hit.js` (after `npm run build`): the cache handler in
 * process, without sockets, in front of a backend that answers as `file` does (the A record, the
 * apex NS in authority; NXDOMAIN with the SOA for names it does not hold). Two figures:
 *
 * - hit time: `Request.fromWire` and `Cache.serveDNS` over the cache-file scenario's names
 *   (bench/scenario-cache-file.ts: 10,000 names cycled in order, so each entry is cache-cold as
 *   under dnsperf, with `cache 30`), then over the same names with a cache large enough to hold
 *   them all (`success 20000`: every query a hit on a cold entry, whatever the eviction), and
 *   over one name asked again and again (the `cache` scenario's hit, always warm), in ns per
 *   query: the best and the median round. Cycling with the default capacity includes the misses
 *   (names whose shard was full), as under dnsperf. Then misses alone: 50,000
 *   names cycled through a cache of 1,024 entries, each stored and the reply sent (what the
 *   listener would encode, encoded).
 * - memory: both caches filled with the default capacity (9,984 entries each) of cluster-DNS-like
 *   entries (`svcN.nsM.svc.cluster.local` A, and the search path's NXDOMAIN with the SOA), and the
 *   V8 heap and ArrayBuffers they hold after a full garbage collection: bytes per entry and MB
 *   for the full cache. Each checkout's is measured in a process of its own.
 *
 * With BENCH_BASELINE (another built checkout, as bench:dnsperf takes it) the hit rounds of both
 * run interleaved in one process, each with its own cache. Environment: BENCH_QUERIES per round
 * (default 100,000), BENCH_ROUNDS (default 21). It is a benchmark: nothing here asserts a time.
 */
import { saveResults } from './results.js';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import dnsPacket from 'dns-packet';
import type { Answer, Packet } from 'dns-packet';
import { here } from './harness.js';

const env = process.env;
const queriesPerRound = Number(env['BENCH_QUERIES'] ?? 100_000);
const rounds = Number(env['BENCH_ROUNDS'] ?? 21);
const names = 10_000;

/** The few shapes this bench reads from a checkout, loaded by path so a baseline's are its own. */
interface Handler {
  readonly name: string;
  serveDNS(req: unknown, w: unknown): unknown;
}
interface CacheHandler extends Handler {
  link(next: Handler): Handler;
  readonly size: { success: number; denial: number };
}
interface Checkout {
  readonly Cache: new (options: unknown, metrics: unknown, now: () => number) => CacheHandler;
  readonly createCacheMetrics: (registry: unknown) => unknown;
  readonly Registry: new () => unknown;
  readonly Request: { fromWire(raw: Buffer, transport: string, address: string, port: number): { name: string; id: number; qname: string } };
  readonly replyTo: (req: unknown, rcode?: number) => Packet;
}

async function load(root: string): Promise<Checkout> {
  const from = async (path: string): Promise<Record<string, unknown>> => (await import(pathToFileURL(join(root, path)).href)) as Record<string, unknown>;
  const cache = 'packages/plugin-cache/dist/src/';
  const core = await from('packages/core/dist/src/index.js');
  const prom = (await from('node_modules/prom-client/index.js'))['default'] as { Registry: Checkout['Registry'] };
  return {
    Cache: (await from(`${cache}handler.js`))['Cache'] as Checkout['Cache'],
    createCacheMetrics: (await from(`${cache}metrics.js`))['createCacheMetrics'] as Checkout['createCacheMetrics'],
    Registry: prom.Registry,
    Request: core['Request'] as Checkout['Request'],
    replyTo: core['replyTo'] as Checkout['replyTo'],
  };
}

/** CoreDNS's defaults (`cache` with no arguments), with `maxTtlSeconds` for the success cache. */
function options(successMaxTtlSeconds: number): unknown {
  return {
    zones: ['.'],
    success: { capacity: 10_000, maxTtlSeconds: successMaxTtlSeconds, minTtlSeconds: 5 },
    denial: { capacity: 10_000, maxTtlSeconds: 1800, minTtlSeconds: 5 },
    prefetchAmount: 0,
    prefetchDurationMs: 60_000,
    prefetchPercentage: 10,
    staleUpToMs: 0,
    staleMode: 'immediate',
    verifyTimeoutMs: 0,
    staleResponseTtlSeconds: 0,
    failureRecheckMs: 0,
    preferPositive: false,
    servfailMs: 5_000,
    disableSuccess: [],
    disableDenial: [],
    keepTtl: false,
  };
}

/**
 * A backend answering as `file` does for the zone `origin`: the A record of a name it holds,
 * with the apex NS in authority, or NXDOMAIN with the SOA.
 */
function backend(c: Checkout, origin: string, holds: (qname: string) => boolean): Handler & { served: number } {
  const soa: Answer = { type: 'SOA', name: origin, ttl: 3600, data: { mname: `ns.${origin}`, rname: `hostmaster.${origin}`, serial: 1, refresh: 7200, retry: 3600, expire: 1209600, minimum: 3600 } };
  const ns: Answer = { type: 'NS', name: origin, ttl: 3600, data: `ns.${origin}` };
  const handler = {
    name: 'file',
    /** Queries that reached the backend: the cache's misses. */
    served: 0,
    serveDNS(req: unknown, w: { write(msg: Packet): number }) {
      handler.served++;
      const r = req as { name: string; qname: string };
      const held = holds(r.qname);
      const msg = c.replyTo(req, held ? 0 : 3);
      msg.flags = (msg.flags ?? 0) | dnsPacket.AUTHORITATIVE_ANSWER;
      if (held) {
        msg.answers = [{ type: 'A', name: r.name.slice(0, -1), ttl: 3600, data: '10.0.0.1' }];
        msg.authorities = [ns];
      } else msg.authorities = [soa];
      w.write(msg);
      return 0;
    },
  };
  return handler;
}

const query = (name: string, id: number): Buffer => dnsPacket.encode({ type: 'query', id: id & 0xffff, flags: dnsPacket.RECURSION_DESIRED, questions: [{ name, type: 'A', class: 'IN' }] });

/** Where the cache writes: the listener's writer without a socket, which encodes a message it is given. */
const sink = { writeWire: (out: Buffer): number => out.length, write: (msg: Packet): number => dnsPacket.encode(msg).length };

interface Run {
  readonly name: string;
  readonly many: number[];
  readonly held: number[];
  readonly one: number[];
  readonly misses: number[];
  readonly missShare: number[];
  round(): void;
}

async function prepare(name: string, root: string): Promise<Run> {
  const c = await load(root);
  const cache = new c.Cache(options(30), c.createCacheMetrics(new c.Registry()), Date.now);
  const file = backend(c, 'example.org', () => true);
  cache.link(file);
  const many = Array.from({ length: names }, (_, i) => query(`h${i}.example.org`, i));
  const one = query('h4321.example.org', 1);
  const w = sink;
  const small = new c.Cache({ ...(options(30) as object), success: { capacity: 1024, maxTtlSeconds: 30, minTtlSeconds: 5 } }, c.createCacheMetrics(new c.Registry()), Date.now);
  small.link(backend(c, 'example.org', () => true));
  const unheld = Array.from({ length: 5 * names }, (_, i) => query(`m${i}.example.org`, i));
  const large = new c.Cache({ ...(options(30) as object), success: { capacity: 20_000, maxTtlSeconds: 30, minTtlSeconds: 5 } }, c.createCacheMetrics(new c.Registry()), Date.now);
  large.link(backend(c, 'example.org', () => true));
  const run: Run = {
    name,
    many: [],
    held: [],
    one: [],
    misses: [],
    missShare: [],
    round() {
      const served = file.served;
      let start = process.hrtime.bigint();
      for (let q = 0; q < queriesPerRound; q++) cache.serveDNS(c.Request.fromWire(many[q % names]!, 'udp', '127.0.0.1', 53000), w);
      run.many.push(Number(process.hrtime.bigint() - start) / queriesPerRound);
      run.missShare.push((file.served - served) / queriesPerRound);
      start = process.hrtime.bigint();
      for (let q = 0; q < queriesPerRound; q++) large.serveDNS(c.Request.fromWire(many[q % names]!, 'udp', '127.0.0.1', 53000), w);
      run.held.push(Number(process.hrtime.bigint() - start) / queriesPerRound);
      start = process.hrtime.bigint();
      for (let q = 0; q < queriesPerRound; q++) cache.serveDNS(c.Request.fromWire(one, 'udp', '127.0.0.1', 53000), w);
      run.one.push(Number(process.hrtime.bigint() - start) / queriesPerRound);
      start = process.hrtime.bigint();
      for (const raw of unheld) small.serveDNS(c.Request.fromWire(raw, 'udp', '127.0.0.1', 53000), w);
      run.misses.push(Number(process.hrtime.bigint() - start) / unheld.length);
    },
  };
  return run;
}

/** Bytes of V8 heap and ArrayBuffers in use after a full garbage collection. */
function usedBytes(): number {
  (globalThis as { gc?: () => void }).gc!();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

/** Fills both caches of a checkout's cache and prints its memory as one JSON line. */
async function measureMemory(root: string): Promise<void> {
  const c = await load(root);
  const origin = 'cluster.local';
  const before = usedBytes();
  const cache = new c.Cache(options(3600), c.createCacheMetrics(new c.Registry()), Date.now);
  cache.link(backend(c, origin, (qname) => !qname.endsWith('.cluster.local.cluster.local.')));
  const w = sink;
  // Three times the capacity, so every shard is full whichever way the names fall.
  for (let i = 0; i < 30_000; i++) {
    const service = `svc${i}.ns${i % 100}.svc.${origin}`;
    cache.serveDNS(c.Request.fromWire(query(service, i), 'udp', '127.0.0.1', 53000), w);
    cache.serveDNS(c.Request.fromWire(query(`${service}.${origin}`, i), 'udp', '127.0.0.1', 53000), w);
  }
  const bytes = usedBytes() - before;
  const { success, denial } = cache.size;
  console.log(JSON.stringify({ success, denial, bytes }));
}

if (process.argv[2] === '--memory') {
  await measureMemory(process.argv[3]!);
} else {
  const checkouts: Array<[string, string]> = [['this checkout', resolve(here('../..'))]];
  const baseline = env['BENCH_BASELINE'];
  if (baseline) checkouts.push([`baseline ${baseline}`, resolve(baseline)]);

  console.log(`cache memory: both caches full (default capacity), cluster-DNS-like entries; V8 heap + ArrayBuffers after GC`);
  for (const [name, root] of checkouts) {
    const child = spawnSync(process.execPath, ['--expose-gc', here('./cache-hit.js'), '--memory', root], { encoding: 'utf8' });
    if (child.status !== 0) throw new Error(`memory run of ${name} failed: ${child.stderr}`);
    const { success, denial, bytes } = JSON.parse(child.stdout) as { success: number; denial: number; bytes: number };
    console.log(`${name}: ${success.toLocaleString('en')} + ${denial.toLocaleString('en')} entries, ${(bytes / 1e6).toFixed(1)} MB, ${Math.round(bytes / (success + denial))} bytes an entry`);
  }

  const runs: Run[] = [];
  for (const [name, root] of checkouts) runs.push(await prepare(name, root));
  // Warm-up: every name asked (stored), and the JIT settled.
  for (let i = 0; i < 3; i++) for (const run of runs) run.round();
  for (const run of runs) {
    run.many.length = 0;
    run.held.length = 0;
    run.one.length = 0;
    run.misses.length = 0;
    run.missShare.length = 0;
  }
  for (let i = 0; i < rounds; i++) for (const run of runs) run.round();
  console.log(`\ncache hit path, ${rounds} rounds of ${queriesPerRound.toLocaleString('en')} queries, interleaved; ns per query, best / median`);
  const figures = (times: number[]): string => {
    const sorted = [...times].sort((x, y) => x - y);
    return `${sorted[0]!.toFixed(0)} / ${sorted[sorted.length >> 1]!.toFixed(0)}`;
  };
  for (const run of runs) {
    const misses = [...run.missShare].sort((x, y) => x - y)[run.missShare.length >> 1]!;
    console.log(`${run.name}: ${names.toLocaleString('en')} names cycled ${figures(run.many)} (misses ${(misses * 100).toFixed(1)} %); all held (success 20000) ${figures(run.held)}; one name ${figures(run.one)}; misses alone ${figures(run.misses)}`);
  }
  saveResults('cache-hit');
}
