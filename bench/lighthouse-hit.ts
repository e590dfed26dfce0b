/**
 * `node bench/dist/lighthouse-hit.js` (after `npm run build`): the lighthouse handler's answer
 * path in process, without sockets: `Request.fromWire` and `Lighthouse.serveDNS` for the
 * lighthouse scenario's queries (scenario-lighthouse.ts: BENCH_LIGHTHOUSE_SERVICES services in 3
 * clusters, one name in ten NXDOMAIN, cycled in order so every per-name object is cache-cold as
 * under dnsperf). On a shared machine dnsperf cannot tell a few hundred nanoseconds per query
 * apart; this can, since it measures only the work that changes.
 *
 * With BENCH_BASELINE (another built checkout, as bench:dnsperf takes it) both run in the same
 * process, rounds interleaved, each with its own store and table. Prints the best and the median
 * round in ns per query. Environment: BENCH_LIGHTHOUSE_SERVICES (default 10,000),
 * BENCH_QUERIES per round (default 60,000), BENCH_ROUNDS (default 21).
 * It is a benchmark: nothing here asserts a time.
 */
import { saveResults } from './results.js';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import dnsPacket from 'dns-packet';
import { here } from './harness.js';

const env = process.env;
const services = Number(env['BENCH_LIGHTHOUSE_SERVICES'] ?? 10_000);
const queriesPerRound = Number(env['BENCH_QUERIES'] ?? 60_000);
const rounds = Number(env['BENCH_ROUNDS'] ?? 21);

/** The few shapes this bench reads from a checkout, loaded by path so a baseline's are its own. */
interface Sink {
  upsert(object: unknown): void;
}
interface Checkout {
  readonly ServiceStore: new (clusterId: string) => { serviceImports(version: string): Sink; endpointSlices: Sink };
  readonly AnswerTable: new (store: unknown, options: unknown) => { open(): void };
  readonly Lighthouse: new (state: unknown, fallthrough: readonly string[], outcomes: Float64Array, next: null) => { serveDNS(req: unknown, w: unknown): unknown };
  readonly Request: { fromWire(raw: Buffer, transport: string, address: string, port: number): unknown };
  readonly syntheticClusterset: (count: number) => { imports: { apiVersion: string }[]; slices: unknown[][] };
}

async function load(root: string): Promise<Checkout> {
  const from = async (path: string): Promise<Record<string, unknown>> => (await import(pathToFileURL(join(root, path)).href)) as Record<string, unknown>;
  const lighthouse = 'packages/plugin-lighthouse/dist/src/';
  return {
    ServiceStore: (await from(`${lighthouse}store.js`))['ServiceStore'] as Checkout['ServiceStore'],
    AnswerTable: (await from(`${lighthouse}answers.js`))['AnswerTable'] as Checkout['AnswerTable'],
    Lighthouse: (await from(`${lighthouse}handler.js`))['Lighthouse'] as Checkout['Lighthouse'],
    Request: (await from('packages/core/dist/src/index.js'))['Request'] as Checkout['Request'],
    syntheticClusterset: (await from('packages/testkit/dist/src/kube/index.js'))['syntheticClusterset'] as Checkout['syntheticClusterset'],
  };
}

/** The scenario's query list as wire queries (scenario-lighthouse.ts's `clustersetQueries`). */
function queries(): Buffer[] {
  return Array.from({ length: services }, (_, i) =>
    dnsPacket.encode({
      type: 'query',
      id: i & 0xffff,
      flags: dnsPacket.RECURSION_DESIRED,
      questions: [{ name: `${i % 10 === 9 ? 'missing' : 'svc'}${i}.ns${i % 100}.svc.clusterset.local`, type: 'A', class: 'IN' }],
    }),
  );
}

interface Run {
  readonly name: string;
  readonly times: number[];
  round(): void;
}

async function prepare(name: string, root: string, raws: readonly Buffer[]): Promise<Run> {
  const c = await load(root);
  const store = new c.ServiceStore('');
  const { imports, slices } = c.syntheticClusterset(services);
  const sink = store.serviceImports(imports[0]!.apiVersion.split('/')[1]!);
  for (const object of imports) sink.upsert(object);
  for (const list of slices) for (const object of list) store.endpointSlices.upsert(object);
  const zones = ['clusterset.local.'];
  const table = new c.AnswerTable(store, { zones, ttlSeconds: 5, families: { v4: true, v6: false }, servedCell: () => ({ value: 0 }) });
  table.open();
  const handler = new c.Lighthouse({ table, synced: () => true, zones }, [], new Float64Array(8), null);
  let written = 0;
  const writer = {
    writeWire: (_out: Buffer, length: number): number => (written += length),
    write: (): never => {
      throw new Error('the bench queries carry no EDNS options');
    },
  };
  const times: number[] = [];
  return {
    name,
    times,
    round() {
      const start = process.hrtime.bigint();
      for (let q = 0; q < queriesPerRound; q++) handler.serveDNS(c.Request.fromWire(raws[q % raws.length]!, 'udp', '127.0.0.1', 53000), writer);
      times.push(Number(process.hrtime.bigint() - start) / queriesPerRound);
      if (written === 0) throw new Error(`${name} wrote no reply`);
    },
  };
}

const raws = queries();
const runs = [await prepare('this checkout', resolve(here('../..')), raws)];
const baseline = env['BENCH_BASELINE'];
if (baseline) runs.push(await prepare(`baseline ${baseline}`, resolve(baseline), raws));
// Warm-up: every name answered once (cached), and the JIT settled.
for (let i = 0; i < 3; i++) for (const run of runs) run.round();
for (const run of runs) run.times.length = 0;
for (let i = 0; i < rounds; i++) for (const run of runs) run.round();
console.log(`lighthouse hit path, ${services.toLocaleString('en')} services, ${rounds} rounds of ${queriesPerRound.toLocaleString('en')} queries, interleaved`);
for (const run of runs) {
  const sorted = [...run.times].sort((x, y) => x - y);
  console.log(`${run.name}: best ${sorted[0]!.toFixed(0)} ns/q, median ${sorted[sorted.length >> 1]!.toFixed(0)} ns/q`);
}
saveResults('lighthouse-hit');
