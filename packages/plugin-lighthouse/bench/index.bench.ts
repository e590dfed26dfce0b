/**
 * The lighthouse figures that `npm run bench` does not give (docs/performance.md, "lighthouse").
 * Run after building:
 *   node --expose-gc packages/plugin-lighthouse/dist/bench/index.bench.js [SERVICES...]
 * For each size (default 10,000 and 50,000 services, 3 clusters, every fifth headless):
 * 1. build and memory: the objects arrive as a watch delivers them (parsed JSON with a
 *    resourceVersion, dropped by the caller once delivered); time until the store and the table
 *    hold everything, then RSS and heap (after GC), and again once every service's bare name
 *    has been asked for A and SRV (the answer cache full);
 * 2. serveDNS: ns per query for a round-robin ClusterSetIP name, a headless name and a miss
 *    (cached), and for a name asked for the first time (built on the query);
 * 3. event to answer through a sink (the watch layer's call): p50/p99 of one EndpointSlice update
 *    until the table answers with the new address;
 * 4. event to answer through the Kubernetes watch: the test API server applies an EndpointSlice,
 *    client-node's watch delivers it, the table answers it (p50/p99 over 200 updates); then the
 *    heap the shared informers hold (@foghorn/kube keeps every object for late subscribers).
 */
import { createLogger, Request } from '@foghorn/core';
import type { ResponseWriter } from '@foghorn/core';
import { readQuery } from '@foghorn/core/wire';
import type { QueryHeader } from '@foghorn/core/wire';
import { makeQuery } from '@foghorn/testkit';
import { startKubeApiServer, syntheticClusterset, syntheticEndpointSlice } from '@foghorn/testkit/kube';
import type { ApiObject } from '@foghorn/testkit/kube';
import { AnswerTable, ServiceStore } from '../src/index.js';
import type { KubeObject } from '../src/index.js';
import { Lighthouse } from '../src/handler.js';
import { KubeSource } from '../src/kube-source.js';

const zone = 'clusterset.local.';
let version = 10_000_000;
const stamp = (): string => String(version++);

function objects(count: number): { imports: KubeObject[]; slices: KubeObject[] } {
  const { imports, slices } = syntheticClusterset(count, stamp);
  // Every string its own copy, as JSON from the API server would be.
  return JSON.parse(JSON.stringify({ imports, slices: slices.flat() })) as { imports: KubeObject[]; slices: KubeObject[] };
}

/** A change to service `i` in cluster2: its address's last octet. */
function update(i: number, lastOctet: number): KubeObject {
  return syntheticEndpointSlice(i, 1, { resourceVersion: stamp(), lastOctet }) as KubeObject;
}

function mb(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(0)} MB`;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

function gc(): void {
  // Twice: the first full collection can leave objects that only the second one frees.
  (globalThis as { gc?: () => void }).gc?.();
  (globalThis as { gc?: () => void }).gc?.();
}

function table(store: ServiceStore): AnswerTable {
  const t = new AnswerTable(store, { zones: [zone], ttlSeconds: 5, families: { v4: true, v6: false }, servedCell: () => ({ value: 0 }) });
  t.open();
  return t;
}

/** The A answer's records, as the handler would look them up. */
function answerA(t: AnswerTable, name: string): Buffer {
  return t.lookup(name, 1, t.matchZone(name)!).body;
}

function request(name: string, type: 'A' | 'SRV' = 'A'): Request {
  const wire = makeQuery(name, type, { id: 7 });
  const header = {} as QueryHeader;
  readQuery(wire, header);
  return new Request(wire, header, 'udp', '127.0.0.1', 5353);
}

/**
 * Delivers `count` services' objects as the watch layer would, and lets go of them (in a function
 * of its own, so no interpreter register of the caller keeps them alive). Returns the time the
 * store and a table took to take them in.
 */
function load(store: ServiceStore, count: number): number {
  const { imports, slices } = objects(count);
  const started = performance.now();
  store.serviceImports('v1alpha1').replace(imports);
  store.endpointSlices.replace(slices);
  table(store).close();
  return performance.now() - started;
}

async function size(count: number): Promise<void> {
  gc();
  const before = process.memoryUsage();
  const store = new ServiceStore('');
  const loadMs = load(store, count);
  const t = table(store);
  gc();
  const after = process.memoryUsage();
  console.log(`${count.toLocaleString('en')} services: build ${loadMs.toFixed(0)} ms; RSS ${mb(after.rss)} (+${mb(after.rss - before.rss)}), heap used +${mb(after.heapUsed - before.heapUsed)}`);

  const writer: ResponseWriter = { write: () => 0, writeWire: (wire) => wire.length };
  const handler = new Lighthouse({ table: t, synced: () => true, zones: [zone] }, [], new Float64Array(8), null);
  // First queries: every service's bare name, A and SRV, each built on its query (fills the cache).
  let firsts: Request[] | undefined = [];
  for (let i = 0; i < count; i++) {
    firsts.push(request(`svc${i}.ns${i % 100}.svc.clusterset.local`), request(`svc${i}.ns${i % 100}.svc.clusterset.local`, 'SRV'));
  }
  const first = performance.now();
  for (const req of firsts) handler.serveDNS(req, writer);
  const firstNs = ((performance.now() - first) * 1e6) / firsts.length;
  firsts = undefined;
  gc();
  const warm = process.memoryUsage();
  console.log(`  after A and SRV for every service (${t.size.toLocaleString('en')} answers cached): RSS ${mb(warm.rss)}, heap used +${mb(warm.heapUsed - before.heapUsed)}`);
  console.log(`  serveDNS first query of a name (answer built): ${firstNs.toFixed(0)} ns/query`);

  // serveDNS alone, with a writer that drops the bytes.
  for (const [label, name] of [
    ['round robin', 'svc4321.ns21.svc.clusterset.local'],
    ['headless', 'svc4324.ns24.svc.clusterset.local'],
    ['miss', 'nothing.ns21.svc.clusterset.local'],
  ] as const) {
    const req = request(name);
    const n = 500_000;
    for (let i = 0; i < 50_000; i++) handler.serveDNS(req, writer);
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) handler.serveDNS(req, writer);
    console.log(`  serveDNS ${label}: ${(Number(process.hrtime.bigint() - start) / n).toFixed(0)} ns/query`);
  }

  // Event to answer through the sink: the update, then the query that answers it.
  const latencies: number[] = [];
  for (let k = 0; k < 1000; k++) {
    const i = (k * 7919) % count;
    if (i % 5 === 4) continue;
    const change = update(i, 2 + (k % 200));
    const t0 = performance.now();
    store.endpointSlices.upsert(change);
    const body = answerA(t, `cluster2.svc${i}.ns${i % 100}.svc.clusterset.local.`);
    latencies.push(performance.now() - t0);
    if (body.length === 0) throw new Error('no answer');
  }
  latencies.sort((x, y) => x - y);
  console.log(`  event to answer (sink): p50 ${(percentile(latencies, 50) * 1000).toFixed(0)} µs, p99 ${(percentile(latencies, 99) * 1000).toFixed(0)} µs`);
  t.close();
}

async function throughWatch(count: number): Promise<void> {
  const api = await startKubeApiServer();
  const { imports, slices } = objects(count);
  for (const object of [...imports, ...slices]) api.apply(object as ApiObject);
  const store = new ServiceStore('');
  const source = new KubeSource(store, { endpoint: api.url }, createLogger(() => undefined).forPlugin('lighthouse'));
  const t0 = performance.now();
  await source.start();
  while (!source.synced) await new Promise((resolve) => setTimeout(resolve, 5));
  const t = table(store);
  console.log(`  initial list through the watch: ${(performance.now() - t0).toFixed(0)} ms`);
  const latencies: number[] = [];
  for (let k = 0; k < 200; k++) {
    const i = (k * 7919) % count;
    if (i % 5 === 4) continue;
    const name = `cluster2.svc${i}.ns${i % 100}.svc.clusterset.local.`;
    const before = answerA(t, name);
    const done = new Promise<number>((resolve) => {
      const stop = store.subscribe(() => {
        if (!answerA(t, name).equals(before)) {
          stop();
          resolve(performance.now());
        }
      });
    });
    const start = performance.now();
    api.apply(update(i, 2 + (k % 200)) as ApiObject);
    latencies.push((await done) - start);
  }
  latencies.sort((x, y) => x - y);
  console.log(`  event to answer (API server → watch → table): p50 ${percentile(latencies, 50).toFixed(2)} ms, p99 ${percentile(latencies, 99).toFixed(2)} ms`);
  t.close();
  // What the shared informers' store (one copy of every object, for every block and plugin)
  // adds to the compact index: the heap with the source running, less the heap once it stopped.
  gc();
  const running = process.memoryUsage().heapUsed;
  await source.stop();
  // The closed sockets' streams let go of the informers on their 'close' events, a moment later.
  await new Promise((resolve) => setTimeout(resolve, 100));
  gc();
  console.log(`  heap held by the shared informers (their store of the objects): ${mb(running - process.memoryUsage().heapUsed)}`);
  await api.close();
}

const sizes = process.argv.slice(2).map(Number);
for (const count of sizes.length > 0 ? sizes : [10_000, 50_000]) {
  await size(count);
  if (count <= 10_000) await throughWatch(count);
}
