/**
 * `npm run bench:informer-hub`: what `-workers` costs the informers. The primary's hub
 * (@foghorn/kube's startInformerHub) holds the list+watch of Services and EndpointSlices of a
 * synthetic cluster (bench/cluster-objects.ts, 5 endpoints per service) from the test API server;
 * WORKERS forked workers (bench/informer-hub-worker.ts) mirror them over IPC (JSON, the default
 * serialization). Printed per size:
 *
 * - replace: from the primary's own subscriber getting a relist to each worker's subscriber
 *   getting it, for Services, then EndpointSlices alone (ROUNDS 410 relists each); how long
 *   (wall and CPU) the hub's sends to every worker hold the primary's event loop; the CPU a
 *   worker spends receiving, parsing and storing it; and for scale one JSON.stringify and one
 *   JSON.parse of the whole list. Wall times include waiting for a core: on a loaded machine
 *   the CPU figures are the ones to compare;
 * - event: from the primary's subscriber getting a watch event to each worker's subscriber
 *   getting it (EVENTS Service updates, 2 ms apart), p50/p99/max.
 *
 * Environment: SIZES (default 10000,50000), WORKERS (2), ROUNDS (5), EVENTS (300).
 */
import { saveResults } from './results.js';
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createLogger } from '@foghorn/core';
import { endpointSlicesResource, servicesResource, startInformerHub } from '@foghorn/kube';
import type { KubeObject } from '@foghorn/kube';
import { startKubeApiServer } from '@foghorn/testkit/kube';
import { clusterObjects, service } from './cluster-objects.js';

const sizes = (process.env['SIZES'] ?? '10000,50000').split(',').map(Number);
const workers = Number(process.env['WORKERS'] ?? 2);
const rounds = Number(process.env['ROUNDS'] ?? 5);
const events = Number(process.env['EVENTS'] ?? 300);
const script = fileURLToPath(new URL('./informer-hub-worker.js', import.meta.url));
const now = (): number => performance.timeOrigin + performance.now();
/** CPU time of this process so far, ms. */
const cpu = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

interface Stamp {
  readonly at: number;
  readonly plural: string;
  readonly op: string;
  readonly count?: number;
  readonly name?: string;
  readonly version?: string;
  readonly cpu?: number;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function summary(values: number[]): string {
  values.sort((a, b) => a - b);
  return `p50 ${percentile(values, 50).toFixed(2)} ms, p99 ${percentile(values, 99).toFixed(2)} ms, max ${values.at(-1)!.toFixed(2)} ms (${values.length})`;
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(1);
  }
}

function timeIt(run: () => void, times = 3): number {
  let best = Infinity;
  for (let i = 0; i < times; i++) {
    const start = performance.now();
    run();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

async function size(count: number): Promise<void> {
  const api = await startKubeApiServer();
  const hub = startInformerHub({ logger: createLogger() });
  const children: ChildProcess[] = [];
  try {
    for (const object of clusterObjects(count, 5)) api.apply(object);
    // The primary's own subscriber, first in line: the reference times.
    const primary: Stamp[] = [];
    const seen: Stamp[][] = [];
    for (let w = 0; w < workers; w++) {
      const child = fork(script, [], { env: { ...process.env, FOGHORN_INFORMER_HUB: '1' }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      children.push(child);
      hub.attach(child);
      const stamps: Stamp[] = [];
      seen.push(stamps);
      child.on('message', (message: Stamp & { bench?: boolean }) => {
        if (message.bench) stamps.push(message);
      });
      await once(child, 'message');
    }
    const ops = (stamps: Stamp[], op: string, plural: string): Stamp[] => stamps.filter((s) => s.op === op && s.plural === plural);
    /** Watches `plural` in the primary and every worker, until the returned release. */
    const watch = async (plural: 'services' | 'endpointslices'): Promise<{ objects: () => readonly KubeObject[]; release: () => Promise<void> }> => {
      // The last list as this subscriber got it (whole: it takes no parts).
      let listed: readonly KubeObject[] = [];
      const lease = await hub.registry.acquire({ endpoint: api.url }, plural === 'services' ? servicesResource() : endpointSlicesResource(), {
        replace: (items) => {
          listed = items;
          primary.push({ at: now(), plural, op: 'replace', count: items.length, cpu: cpu() });
        },
        upsert: (item) => primary.push({ at: now(), plural, op: 'upsert', name: item.metadata?.name!, version: item.metadata?.resourceVersion! }),
        remove: () => {},
      }, { logger: createLogger().forPlugin('bench'), backoffInitialMs: 10, backoffMaxMs: 50 });
      const before = seen.map((s) => ops(s, 'replace', plural).length);
      for (const child of children) child.send({ bench: 'acquire', plural, endpoint: api.url });
      await until(() => seen.every((s, w) => ops(s, 'replace', plural).length === before[w]! + 1), `the workers to list ${plural}`);
      // Subscribed after the workers' streams: its replace comes when the hub has sent to every worker.
      const tail = await hub.registry.acquire({ endpoint: api.url }, plural === 'services' ? servicesResource() : endpointSlicesResource(), {
        replace: () => primary.push({ at: now(), plural, op: 'sent', cpu: cpu() }),
        upsert: () => {},
        remove: () => {},
      }, { logger: createLogger().forPlugin('bench') });
      // Its joining relists (the registry keeps no objects to replay): let that settle first.
      await until(() => ops(primary, 'sent', plural).length > 0 && seen.every((s, w) => ops(s, 'replace', plural).length === before[w]! + 2), `the relist for the tail subscriber of ${plural}`);
      return {
        objects: () => listed,
        release: async () => {
          const released = seen.map((s) => ops(s, 'released', plural).length);
          for (const child of children) child.send({ bench: 'release', plural });
          await until(() => seen.every((s, w) => ops(s, 'released', plural).length === released[w]! + 1), 'the workers to release');
          await Promise.all([lease.release(), tail.release()]);
        },
      };
    };
    console.log(`${count.toLocaleString('en')} services (${count.toLocaleString('en')} Services, ${count.toLocaleString('en')} EndpointSlices of 5 endpoints), ${workers} workers:`);
    // Relists, one resource at a time: a 410 makes the primary list again and hand each worker the whole list.
    for (const plural of ['services', 'endpointslices'] as const) {
      const watched = await watch(plural);
      const message = { foghorn: 'kube', type: 'replace', id: 1, items: watched.objects() };
      let text = '';
      const stringify = timeIt(() => (text = JSON.stringify(message)));
      const parse = timeIt(() => JSON.parse(text));
      const latencies: number[] = [];
      const blocked: number[] = [];
      const primaryCpu: number[] = [];
      const workerCpu: number[] = [];
      for (let r = 0; r < rounds; r++) {
        const before = ops(primary, 'replace', plural).length;
        const workerBefore = seen.map((s) => ops(s, 'replace', plural).length);
        api.errorWatches(410);
        await until(() => ops(primary, 'replace', plural).length === before + 1, 'the primary to relist');
        await until(() => seen.every((s, w) => ops(s, 'replace', plural).length === workerBefore[w]! + 1), 'the workers to get the relist');
        const head = ops(primary, 'replace', plural).at(-1)!;
        const reference = head.at;
        blocked.push(ops(primary, 'sent', plural).at(-1)!.at - reference);
        primaryCpu.push(ops(primary, 'sent', plural).at(-1)!.cpu! - head.cpu!);
        for (const stamps of seen) {
          const [previous, last] = ops(stamps, 'replace', plural).slice(-2);
          latencies.push(last!.at - reference);
          workerCpu.push(last!.cpu! - previous!.cpu!);
        }
      }
      console.log(`  ${plural}: a replace is ${(text.length / 1e6).toFixed(1)} MB of JSON; JSON.stringify ${stringify.toFixed(1)} ms (primary, per worker), JSON.parse ${parse.toFixed(1)} ms (worker)`);
      console.log(`  ${plural}: replace, primary to worker: ${summary(latencies)}`);
      console.log(`  ${plural}: replace, the primary's sends to ${workers} workers block it: ${summary(blocked)}; CPU ${summary(primaryCpu)}`);
      console.log(`  ${plural}: replace, CPU in a worker (receive, parse, store): ${summary(workerCpu)}`);
      await watched.release();
    }
    // Events: one Service updated every 2 ms.
    const watched = await watch('services');
    const eventLatencies: number[] = [];
    const upsertsBefore = seen.map((s) => ops(s, 'upsert', 'services').length);
    for (let k = 0; k < events; k++) {
      const object = service(k % count);
      (object.metadata as { labels?: Record<string, string> }).labels = { round: String(k) };
      api.apply(object);
      await sleep(2);
    }
    await until(() => seen.every((s, w) => ops(s, 'upsert', 'services').length === upsertsBefore[w]! + events), 'every event in every worker');
    const sent = new Map(ops(primary, 'upsert', 'services').map((s) => [s.version, s.at]));
    for (const stamps of seen) for (const s of ops(stamps, 'upsert', 'services').slice(-events)) eventLatencies.push(s.at - sent.get(s.version)!);
    console.log(`  event (Service update), primary to worker: ${summary(eventLatencies)}`);
    await watched.release();
  } finally {
    for (const child of children) child.kill('SIGKILL');
    await hub.close();
    await api.close();
  }
}

for (const count of sizes) await size(count);
saveResults('informer-hub', { env: ['SIZES', 'WORKERS', 'ROUNDS', 'EVENTS'] });
