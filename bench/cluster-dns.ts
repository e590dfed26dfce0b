/**
 * The kubernetes plugin's figures that `npm run bench` does not give, measured on the real
 * `foghorn` process against the test API server (@foghorn/testkit/kube) in this process:
 *   npm run build && node bench/dist/cluster-dns.js [SERVICES...]
 * For each size (default 10,000 and 50,000 services, 5 endpoints each, every fifth headless;
 * see cluster-objects.ts):
 * 1. the time from start to `/ready` (the initial list of every resource), and the process's
 *    resident memory (VmRSS, what a container's memory limit counts) once settled;
 * 2. event to answer: an EndpointSlice update of a headless service applied to the API server,
 *    until a DNS query over UDP answers the new address (the watch, the index and the answer
 *    cache in between); the same for a Service created. p50/p99 over 200 events each.
 * Then kubernetes and lighthouse (10,000 ServiceImports in 3 clusters) in one process, sharing
 * the connection: resident memory next to each alone.
 */
import { saveResults } from './results.js';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freeTcpPort, httpGet, query } from '@foghorn/testkit';
import { startKubeApiServer, syntheticClusterset } from '@foghorn/testkit/kube';
import type { ApiObject, KubeApiServer } from '@foghorn/testkit/kube';
import { clusterObjects, endpointSlice, isHeadless, namespaces, service } from './cluster-objects.js';

const cli = fileURLToPath(new URL('../../packages/foghorn/dist/src/cli.js', import.meta.url));
const endpointsPerService = 5;
const events = 200;

interface Running {
  readonly child: ChildProcess;
  readonly dnsPort: number;
  /** Milliseconds from spawn to /ready answering 200. */
  readonly readyMs: number;
}

async function startFoghorn(corefile: string): Promise<Running> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-cluster-dns-'));
  const readyPort = await freeTcpPort();
  const conf = join(dir, 'Corefile');
  writeFileSync(conf, corefile.replace('READY', `    ready 127.0.0.1:${readyPort}\n`));
  const started = performance.now();
  const child = spawn(process.execPath, [cli, '-conf', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  let output = '';
  const dnsPort = await new Promise<number>((resolve, reject) => {
    const collect = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /:(\d+) on 127\.0\.0\.1$/m.exec(output);
      if (match) resolve(Number(match[1]));
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    child.on('exit', (code) => reject(new Error(`foghorn exited with ${code}: ${output}`)));
  });
  for (;;) {
    const status = await httpGet(readyPort, '/ready').then((r) => r.status, () => 0);
    if (status === 200) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { child, dnsPort, readyMs: performance.now() - started };
}

/** Resident memory of a process, in MB, from /proc. */
function rssMb(pid: number): number {
  const line = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(line?.[1]) / 1024;
}

/** RSS once the process has settled (GC after the initial list): the lowest of a few samples. */
async function settledRss(pid: number): Promise<number> {
  let lowest = Infinity;
  for (let i = 0; i < 10; i++) {
    await new Promise((resolve) => setTimeout(resolve, 300));
    lowest = Math.min(lowest, rssMb(pid));
  }
  return lowest;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

/** Applies `object`, then asks `name` A until `done(addresses)`; returns the milliseconds it took. */
async function eventToAnswer(api: KubeApiServer, port: number, object: ApiObject, name: string, done: (addresses: string[]) => boolean): Promise<number> {
  const start = performance.now();
  api.apply(object);
  for (;;) {
    const reply = await query({ port }, name, 'A');
    if (done((reply.answers ?? []).map((rr) => String((rr as { data?: unknown }).data)))) return performance.now() - start;
    if (performance.now() - start > 10_000) throw new Error(`${name}: no answer within 10 s`);
  }
}

function summary(latencies: number[]): string {
  latencies.sort((a, b) => a - b);
  return `p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, max ${latencies.at(-1)!.toFixed(1)} ms`;
}

const kubernetesBlock = (url: string): string =>
  `cluster.local:0 in-addr.arpa:0 {\n    bind 127.0.0.1\nREADY    kubernetes cluster.local in-addr.arpa {\n        endpoint ${url}\n        pods insecure\n        fallthrough in-addr.arpa\n    }\n}\n`;
const lighthouseBlock = (url: string): string => `clusterset.local:0 {\n    bind 127.0.0.1\n    lighthouse {\n        endpoint ${url}\n        cluster_id cluster1\n    }\n}\n`;

async function size(count: number): Promise<number> {
  const api = await startKubeApiServer();
  try {
    for (const object of clusterObjects(count, endpointsPerService)) api.apply(object);
    const foghorn = await startFoghorn(kubernetesBlock(api.url));
    try {
      const rss = await settledRss(foghorn.child.pid!);
      console.log(`${count.toLocaleString('en')} services, ${(count * endpointsPerService).toLocaleString('en')} endpoints: ready after ${foghorn.readyMs.toFixed(0)} ms, RSS ${rss.toFixed(0)} MB`);
      const slices: number[] = [];
      for (let k = 0; k < events; k++) {
        let i = (k * 7919) % count;
        while (!isHeadless(i)) i = (i + 1) % count;
        const slice = endpointSlice(i, endpointsPerService, 1000 + k);
        const wanted = (slice['endpoints'] as { addresses: string[] }[])[0]!.addresses[0]!;
        slices.push(await eventToAnswer(api, foghorn.dnsPort, slice, `svc${i}.ns${i % namespaces}.svc.cluster.local`, (a) => a.includes(wanted)));
      }
      console.log(`  event to answer, EndpointSlice update (headless): ${summary(slices)}`);
      const created: number[] = [];
      for (let k = 0; k < events; k++) {
        const i = count + k * 5; // ClusterIP, not in the index yet
        created.push(await eventToAnswer(api, foghorn.dnsPort, service(i), `svc${i}.ns${i % namespaces}.svc.cluster.local`, (a) => a.length === 1));
      }
      console.log(`  event to answer, Service created (ClusterIP): ${summary(created)}`);
      return rss;
    } finally {
      foghorn.child.kill('SIGKILL');
    }
  } finally {
    await api.close();
  }
}

async function shared(count: number, kubernetesAlone: number): Promise<void> {
  const api = await startKubeApiServer();
  try {
    for (const object of clusterObjects(count, endpointsPerService)) api.apply(object);
    const { imports, slices } = syntheticClusterset(count);
    for (const object of [...imports, ...slices.flat()]) api.apply(object as ApiObject);
    const measure = async (corefile: string): Promise<number> => {
      const foghorn = await startFoghorn(corefile);
      try {
        return await settledRss(foghorn.child.pid!);
      } finally {
        foghorn.child.kill('SIGKILL');
      }
    };
    const lighthouseAlone = await measure(lighthouseBlock(api.url).replace('    bind 127.0.0.1\n', '    bind 127.0.0.1\nREADY'));
    const both = await measure(kubernetesBlock(api.url) + lighthouseBlock(api.url));
    console.log(
      `kubernetes (${count.toLocaleString('en')} services) + lighthouse (${count.toLocaleString('en')} ServiceImports, 3 clusters) in one process: RSS ${both.toFixed(0)} MB` +
        ` (kubernetes alone ${kubernetesAlone.toFixed(0)} MB, lighthouse alone ${lighthouseAlone.toFixed(0)} MB)`,
    );
  } finally {
    await api.close();
  }
}

console.log(`node ${process.versions.node}; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
{
  // The baseline: the process with the plugin and an empty cluster (100 namespaces).
  const api = await startKubeApiServer();
  for (const object of clusterObjects(0, endpointsPerService)) api.apply(object);
  const foghorn = await startFoghorn(kubernetesBlock(api.url));
  console.log(`empty cluster: ready after ${foghorn.readyMs.toFixed(0)} ms, RSS ${(await settledRss(foghorn.child.pid!)).toFixed(0)} MB`);
  foghorn.child.kill('SIGKILL');
  await api.close();
}
const sizes = process.argv.slice(2).map(Number);
const rss = new Map<number, number>();
for (const count of sizes.length > 0 ? sizes : [10_000, 50_000]) rss.set(count, await size(count));
const smallest = Math.min(...rss.keys());
await shared(smallest, rss.get(smallest)!);
console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
saveResults('cluster-dns');
