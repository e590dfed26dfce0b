/**
 * `npm run bench:memory`: what an indexed service and endpoint cost in memory, for `kubernetes`
 * and `lighthouse`, on the real `foghorn` process watching the test API server
 * (@foghorn/testkit/kube) in this process:
 *
 *   npm run bench:memory [-- SERVICES...]     (default 10000 50000 100000)
 *
 * - kubernetes (kubeadm's options, as bench:cluster-dns): SERVICES services in 100 namespaces,
 *   every fifth headless, one EndpointSlice of 5 ready endpoints each (cluster-objects.ts); the
 *   largest size once more with 1 endpoint per service, so the cost of an endpoint separates
 *   from that of a service (the difference over the 4 × SERVICES endpoints between the two).
 * - lighthouse: SERVICES ServiceImports exported by 3 clusters, one EndpointSlice per cluster
 *   (1 endpoint, 3 for every fifth service, headless): 4.2 endpoints per service on average
 *   (syntheticClusterset in @foghorn/testkit/kube).
 *
 * Each row is read once the process is ready (`/ready` answers 200) and settled: resident memory
 * (VmRSS, the lowest of ten samples 0.3 s apart) and the V8 heap in use after a full garbage
 * collection (bench/peers/memory-stats.ts, preloaded). The empty row (100 namespaces, no service)
 * is subtracted: "÷ services" is the difference over SERVICES, "÷ endpoints" the same difference
 * over the endpoints (each figure carries all the rest too; the 5-against-1 line separates them).
 * BENCH_MEMORY_INDEXES (default `kubernetes,lighthouse`) picks the plugins;
 * BENCH_HEAP_SNAPSHOTS (a directory) leaves a heap snapshot of each row there
 * (`node bench/dist/heap-summary.js FILE` prints what dominates). A benchmark: nothing asserts.
 */
import { saveResults } from './results.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeTcpPort, httpGet } from '@foghorn/testkit';
import { startKubeApiServer, syntheticClusterset } from '@foghorn/testkit/kube';
import type { ApiObject } from '@foghorn/testkit/kube';
import { clusterObjects } from './cluster-objects.js';
import { mb, startProbed, vmRss } from './memory-probe.js';

const sizes = process.argv.slice(2).map(Number);
const counts = sizes.length > 0 ? sizes : [10_000, 50_000, 100_000];
const snapshots = process.env['BENCH_HEAP_SNAPSHOTS'];
const indexes = (process.env['BENCH_MEMORY_INDEXES'] ?? 'kubernetes,lighthouse').split(',');

interface Figures {
  readonly label: string;
  readonly services: number;
  readonly endpoints: number;
  readonly readyMs: number;
  /** Settled VmRSS, bytes. */
  readonly rss: number;
  /** V8 heap used after a full GC, bytes. */
  readonly heapUsed: number;
  /** ArrayBuffers (Buffers) after GC: the precomputed wire answers live there. */
  readonly arrayBuffers: number;
}

const kubernetesBlock = (url: string, readyPort: number): string =>
  `cluster.local:0 in-addr.arpa:0 {\n    bind 127.0.0.1\n    ready 127.0.0.1:${readyPort}\n    kubernetes cluster.local in-addr.arpa {\n        endpoint ${url}\n        pods insecure\n        fallthrough in-addr.arpa\n    }\n}\n`;
const lighthouseBlock = (url: string, readyPort: number): string =>
  `clusterset.local:0 {\n    bind 127.0.0.1\n    ready 127.0.0.1:${readyPort}\n    lighthouse {\n        endpoint ${url}\n        cluster_id cluster1\n    }\n}\n`;

/** Serves `objects` from a test API server to a Foghorn running `block`; reads its memory. */
async function measure(label: string, services: number, endpoints: number, objects: Iterable<ApiObject>, block: (url: string, readyPort: number) => string): Promise<Figures> {
  const api = await startKubeApiServer();
  const dir = mkdtempSync(join(tmpdir(), 'bench-memory-'));
  try {
    for (const object of objects) api.apply(object);
    const readyPort = await freeTcpPort();
    const corefile = join(dir, 'Corefile');
    writeFileSync(corefile, block(api.url, readyPort));
    const started = performance.now();
    const foghorn = await startProbed(corefile, { dir, name: 'memory', ...(snapshots ? { heapSnapshots: snapshots } : {}) });
    try {
      while ((await httpGet(readyPort, '/ready').then((r) => r.status, () => 0)) !== 200) await new Promise((resolve) => setTimeout(resolve, 20));
      const readyMs = performance.now() - started;
      let rss = Infinity;
      for (let i = 0; i < 10; i++) {
        await new Promise((resolve) => setTimeout(resolve, 300));
        rss = Math.min(rss, vmRss(foghorn.child.pid!));
      }
      const { afterGc } = await foghorn.read();
      const figures = { label, services, endpoints, readyMs, rss, heapUsed: afterGc.heapUsed, arrayBuffers: afterGc.arrayBuffers };
      console.error(`${label}, ${services.toLocaleString('en')} services, ${endpoints.toLocaleString('en')} endpoints: ready after ${readyMs.toFixed(0)} ms, RSS ${mb(rss)} MB, heap used ${mb(afterGc.heapUsed)} MB, array buffers ${mb(afterGc.arrayBuffers)} MB`);
      return figures;
    } finally {
      await foghorn.stop();
    }
  } finally {
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function* kubernetesObjects(count: number, endpointsPerService: number): Generator<ApiObject> {
  yield* clusterObjects(count, endpointsPerService);
}

function* lighthouseObjects(count: number): Generator<ApiObject> {
  for (let n = 0; n < 100; n++) yield { apiVersion: 'v1', kind: 'Namespace', metadata: { name: `ns${n}` } };
  const { imports, slices } = syntheticClusterset(count);
  yield* imports as ApiObject[];
  for (const cluster of slices) yield* cluster as ApiObject[];
}

/** Endpoints of the synthetic clusterset: 3 clusters × (1, or 3 for every fifth service). */
const lighthouseEndpoints = (count: number): number => 3 * (count + 2 * Math.floor((count + 1) / 5));

const perUnit = (delta: number, units: number): string => (units > 0 ? Math.round(delta / units).toLocaleString('en') : '');

function table(rows: Figures[], empty: Figures): string {
  const lines = ['| index | services | endpoints | ready after | RSS | heap used | RSS ÷ services | heap ÷ services | heap ÷ endpoints |', '|---|---|---|---|---|---|---|---|---|'];
  for (const row of rows) {
    const dRss = row.rss - empty.rss;
    const dHeap = row.heapUsed - empty.heapUsed;
    lines.push(
      `| ${row.label} | ${row.services.toLocaleString('en')} | ${row.endpoints.toLocaleString('en')} | ${(row.readyMs / 1000).toFixed(1)} s | ${mb(row.rss)} MB | ${mb(row.heapUsed)} MB | ${perUnit(dRss, row.services)} B | ${perUnit(dHeap, row.services)} B | ${perUnit(dHeap, row.endpoints)} B |`,
    );
  }
  return lines.join('\n');
}

const loadLine = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');
const loadBefore = loadLine();
console.error(`node ${process.versions.node}; load average ${loadBefore}`);

console.log(`node ${process.versions.node}`);
if (indexes.includes('kubernetes')) {
  const empty = await measure('kubernetes', 0, 0, kubernetesObjects(0, 5), kubernetesBlock);
  const rows: Figures[] = [];
  for (const count of counts) rows.push(await measure('kubernetes', count, count * 5, kubernetesObjects(count, 5), kubernetesBlock));
  const largest = Math.max(...counts);
  const oneEach = await measure('kubernetes, 1 endpoint each', largest, largest, kubernetesObjects(largest, 1), kubernetesBlock);
  const fiveEach = rows.find((row) => row.services === largest)!;
  const endpointHeap = (fiveEach.heapUsed - oneEach.heapUsed) / (4 * largest);
  const endpointRss = (fiveEach.rss - oneEach.rss) / (4 * largest);
  const serviceHeap = (oneEach.heapUsed - empty.heapUsed) / largest - endpointHeap;
  console.log(`\n${table([empty, ...rows, oneEach], empty)}`);
  console.log(
    `\nkubernetes at ${largest.toLocaleString('en')} services, 5 against 1 endpoint each: an endpoint costs ${Math.round(endpointHeap).toLocaleString('en')} B of heap ` +
      `(${Math.round(endpointRss).toLocaleString('en')} B of RSS), a service without its endpoints ${Math.round(serviceHeap).toLocaleString('en')} B of heap`,
  );
}
if (indexes.includes('lighthouse')) {
  const empty = await measure('lighthouse', 0, 0, lighthouseObjects(0), lighthouseBlock);
  const rows: Figures[] = [];
  for (const count of counts) rows.push(await measure('lighthouse', count, lighthouseEndpoints(count), lighthouseObjects(count), lighthouseBlock));
  console.log(`\n${table([empty, ...rows], empty)}`);
}
console.log(`\nload average before ${loadBefore}, after ${loadLine()}`);
saveResults('memory');
