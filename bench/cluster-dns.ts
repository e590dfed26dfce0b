/**
 * `npm run bench:cluster-dns`: the cluster-DNS job as kubeadm deploys it, measured on the real
 * `foghorn` process and, in the same run, on a real CoreDNS: memory (what a container's limit
 * counts and kills on), start to ready, answers under load, and event to answer.
 *
 *   npm run bench:cluster-dns [-- [--coredns PATH] [SERVICES...]]     (default 0 10000 50000 100000)
 *
 * Every server runs kubeadm's Corefile (its plugins and options; high ports on 127.0.0.1, and
 * `kubeconfig` naming the API server) against the test API server of @foghorn/testkit/kube in
 * this process, over HTTPS with a bearer token as in a cluster. The cluster is SERVICES services
 * in 100 namespaces, every fifth headless, one EndpointSlice of 5 ready endpoints each
 * (cluster-objects.ts). Per size and server:
 * - start to ready: from spawn until `/ready` answers 200 (the initial list of every resource),
 *   and the CPU time the server used meanwhile (the steadier figure on a loaded machine);
 * - peak: VmHWM when it turned ready, the highest resident memory from start to ready;
 * - RSS ready: VmRSS once settled (the lowest of ten samples 0.3 s apart);
 * - RSS after BENCH_QUERIES (default 1,000,000) queries from dnsperf, cycling over 10,000 of the
 *   cluster's names (A; ClusterIP and headless), and the QPS of that run: server pinned to
 *   BENCH_SERVER_CPUS (default 0), dnsperf to BENCH_CLIENT_CPUS (default 1). On a shared
 *   machine compare QPS only between servers of one run;
 * - event to answer: an EndpointSlice update of a headless service applied to the API server,
 *   until a UDP query answers the new address (the watch, the index and any answer cache in
 *   between); the same for a Service created. p50/p99 over BENCH_EVENTS (default 200) each.
 * Servers: Foghorn; CoreDNS when `--coredns PATH` or COREDNS_BINARY names a binary (not a
 * dependency: without one its rows are left out, and the run says so); Foghorn `-workers 2`
 * (pinned to both cores; memory summed over the primary and its workers) at the sizes in
 * BENCH_WORKERS_SIZES (default 10000,50000). Then lighthouse (BENCH_LIGHTHOUSE_SERVICES
 * ServiceImports exported by 3 clusters, default 10,000; 0 skips), alone, and in one process
 * with kubernetes on as many services. Resident memory of a process tree is summed over its
 * processes (proc.ts). A benchmark: nothing here asserts.
 */
import { saveResults } from './results.js';
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { v8Flags } from 'foghorn';
import { freeDnsPort, freeTcpPort, httpGet, query } from '@foghorn/testkit';
import { startKubeApiServer, syntheticClusterset, writeKubeconfig } from '@foghorn/testkit/kube';
import type { ApiObject, KubeApiServer } from '@foghorn/testkit/kube';
import { clusterObjects, endpointSlice, isHeadless, namespaces, service } from './cluster-objects.js';
import { cli } from './harness.js';
import { childrenOf, treeCpuSeconds, treeMemory } from './proc.js';

const env = process.env;
const queries = Number(env['BENCH_QUERIES'] ?? 1_000_000);
const events = Number(env['BENCH_EVENTS'] ?? 200);
const serverCpus = env['BENCH_SERVER_CPUS'] ?? '0';
const clientCpus = env['BENCH_CLIENT_CPUS'] ?? '1';
const workersSizes = (env['BENCH_WORKERS_SIZES'] ?? '10000,50000').split(',').filter(Boolean).map(Number);
const lighthouseServices = Number(env['BENCH_LIGHTHOUSE_SERVICES'] ?? 10_000);
const endpointsPerService = 5;
const token = 'bench-token';

interface Options {
  readonly coredns: string | undefined;
  readonly sizes: readonly number[];
}

function parseArgs(argv: readonly string[]): Options {
  let coredns = env['COREDNS_BINARY'];
  const sizes: number[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--coredns') coredns = argv[++i];
    else sizes.push(Number(argv[i]));
  }
  return { coredns: coredns || undefined, sizes: sizes.length > 0 ? sizes : [0, 10_000, 50_000, 100_000] };
}

/** What runs: Foghorn (optionally with more CLI arguments) or the CoreDNS binary. */
interface ServerKind {
  readonly label: string;
  readonly command: (corefile: string) => [string, string[]];
  readonly cpus: string;
}

const foghorn = (extra: readonly string[] = [], cpus = serverCpus): ServerKind => ({
  label: `Foghorn${extra.length > 0 ? ` ${extra.join(' ')}` : ''}`,
  // The V8 flags the image and `npm start` give it (packages/foghorn/src/v8-flags.ts).
  command: (corefile) => [process.execPath, [...v8Flags, cli, '-conf', corefile, ...extra]],
  cpus,
});

const coredns = (binary: string): ServerKind => ({ label: 'CoreDNS', command: (corefile) => [binary, ['-conf', corefile]], cpus: serverCpus });

interface Ports {
  readonly dns: number;
  readonly health: number;
  readonly ready: number;
  readonly metrics: number;
}

async function freePorts(): Promise<Ports> {
  return { dns: await freeDnsPort(), health: await freeTcpPort(), ready: await freeTcpPort(), metrics: await freeTcpPort() };
}

/**
 * kubeadm's Corefile (cmd/kubeadm/app/phases/addons/dns/manifests.go), on loopback and high
 * ports, with the API server named by a kubeconfig.
 */
function kubeadmBlock(ports: Ports, kubeconfig: string): string {
  return `.:${ports.dns} {
    bind 127.0.0.1
    errors
    health 127.0.0.1:${ports.health} {
       lameduck 5s
    }
    ready 127.0.0.1:${ports.ready}
    kubernetes cluster.local in-addr.arpa ip6.arpa {
       kubeconfig ${kubeconfig}
       pods insecure
       fallthrough in-addr.arpa ip6.arpa
       ttl 30
    }
    prometheus 127.0.0.1:${ports.metrics}
    forward . /etc/resolv.conf {
       max_concurrent 1000
    }
    cache 30 {
       disable success cluster.local
       disable denial cluster.local
    }
    loop
    reload
    loadbalance
}
`;
}

/** The block Submariner's operator writes for Lighthouse, on loopback and high ports. */
function lighthouseBlock(ports: Ports, kubeconfig: string, withEndpoints: boolean): string {
  const endpoints = withEndpoints ? `    errors\n    health 127.0.0.1:${ports.health}\n    ready 127.0.0.1:${ports.ready}\n    prometheus 127.0.0.1:${ports.metrics}\n` : '    errors\n';
  return `clusterset.local:${ports.dns} {\n    bind 127.0.0.1\n    lighthouse {\n        kubeconfig ${kubeconfig}\n        cluster_id cluster1\n    }\n${endpoints}}\n`;
}

interface Started {
  readonly child: ChildProcess;
  readonly dir: string;
  /** Milliseconds from spawn to /ready answering 200. */
  readonly readyMs: number;
  /** VmHWM summed over the process tree when it turned ready, kB. */
  readonly peakKb: number;
  /** CPU seconds the process tree used from start to ready: what the wall time is on a quiet machine. */
  readonly cpuToReady: number;
}

async function start(kind: ServerKind, corefile: string, readyPort: number): Promise<Started> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-cluster-dns-'));
  const file = join(dir, 'Corefile');
  writeFileSync(file, corefile);
  const [command, args] = kind.command(file);
  const started = performance.now();
  const child = spawn('taskset', ['-c', kind.cpus, command, ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer): void => {
    if (output.length < 100_000) output += chunk.toString();
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${kind.label} exited with ${child.exitCode}:\n${output}`);
    const status = await httpGet(readyPort, '/ready').then((r) => r.status, () => 0);
    if (status === 200) break;
    if (performance.now() - started > 600_000) throw new Error(`${kind.label}: not ready within 10 minutes:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const readyMs = performance.now() - started;
  return { child, dir, readyMs, peakKb: treeMemory(child.pid!).hwmKb, cpuToReady: treeCpuSeconds(child.pid) };
}

/** Kills a server and every process under it (`-workers`), and removes its directory. */
async function stop(server: Started): Promise<void> {
  const pids: number[] = [];
  const collect = (pid: number): void => {
    pids.push(pid);
    for (const child of childrenOf(pid)) collect(child);
  };
  collect(server.child.pid!);
  const exited = server.child.exitCode !== null ? Promise.resolve() : new Promise((resolve) => server.child.once('exit', resolve));
  for (const pid of pids.reverse()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  await exited;
  rmSync(server.dir, { recursive: true, force: true });
}

/** Resident memory once settled (GC after the initial list): the lowest of ten samples, kB. */
async function settledRss(pid: number): Promise<number> {
  let lowest = Infinity;
  for (let i = 0; i < 10; i++) {
    await new Promise((resolve) => setTimeout(resolve, 300));
    lowest = Math.min(lowest, treeMemory(pid).rssKb);
  }
  return lowest;
}

/** dnsperf sends `total` queries from `names` (cycling); resolves with its QPS. */
async function load(port: number, names: readonly string[], total: number, dir: string): Promise<number> {
  const file = join(dir, 'queries.txt');
  writeFileSync(file, names.map((name) => `${name} A\n`).join(''));
  const runs = Math.max(1, Math.round(total / names.length));
  const child = spawn('taskset', ['-c', clientCpus, 'dnsperf', '-s', '127.0.0.1', '-p', String(port), '-d', file, '-n', String(runs), '-c', '16', '-q', '100', '-t', '2'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`dnsperf exited with ${code}: ${text.slice(-500)}`);
  return Number(/Queries per second:\s+([\d.]+)/.exec(text)?.[1] ?? NaN);
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

/** Applies `object`, then asks `name` A until `done(addresses)`; returns the milliseconds it took. */
async function eventToAnswer(api: KubeApiServer, port: number, object: ApiObject, name: string, done: (addresses: string[]) => boolean): Promise<number> {
  const started = performance.now();
  api.apply(object);
  for (;;) {
    const reply = await query({ port }, name, 'A');
    if (done((reply.answers ?? []).map((rr) => String((rr as { data?: unknown }).data)))) return performance.now() - started;
    if (performance.now() - started > 10_000) throw new Error(`${name}: no answer within 10 s`);
  }
}

interface Latency {
  readonly p50: number;
  readonly p99: number;
}

function latency(values: number[]): Latency {
  values.sort((a, b) => a - b);
  return { p50: percentile(values, 50), p99: percentile(values, 99) };
}

interface Row {
  readonly cluster: string;
  readonly server: string;
  readonly readyMs: number;
  readonly cpuToReady: number;
  readonly peakKb: number;
  readonly rssReadyKb: number;
  readonly rssLoadedKb: number;
  readonly qps: number;
  readonly processes: number;
  readonly slice?: Latency;
  readonly created?: Latency;
}

const rows: Row[] = [];

/** Names of the synthetic cluster to query: 10,000 spread over it (NXDOMAIN in an empty one). */
function clusterNames(count: number, zone: string): string[] {
  const names: string[] = [];
  const span = count > 0 ? count : 10_000;
  for (let k = 0; k < Math.min(10_000, span); k++) {
    const i = (k * 7919) % span;
    names.push(`svc${i}.ns${i % namespaces}.svc.${zone}`);
  }
  return names;
}

/**
 * One server through the whole measure. `ordinal` keeps the events of successive servers on one
 * API server apart: each creates services and moves addresses no earlier server did.
 */
async function measure(cluster: string, kind: ServerKind, corefile: string, ports: Ports, names: readonly string[], eventsOn?: { api: KubeApiServer; count: number; ordinal: number }): Promise<Row> {
  const server = await start(kind, corefile, ports.ready);
  try {
    const pid = server.child.pid!;
    const rssReadyKb = await settledRss(pid);
    const qps = queries > 0 ? await load(ports.dns, names, queries, server.dir) : NaN;
    const { rssKb: rssLoadedKb, processes } = treeMemory(pid);
    let slice: Latency | undefined;
    let created: Latency | undefined;
    if (eventsOn && events > 0 && eventsOn.count > 0) {
      const { api, count, ordinal } = eventsOn;
      const slices: number[] = [];
      for (let k = 0; k < events; k++) {
        let i = (k * 7919) % count;
        while (!isHeadless(i)) i = (i + 1) % count;
        const update = endpointSlice(i, endpointsPerService, 1000 * (ordinal + 1) + k);
        const wanted = (update['endpoints'] as { addresses: string[] }[])[0]!.addresses[0]!;
        slices.push(await eventToAnswer(api, ports.dns, update, `svc${i}.ns${i % namespaces}.svc.cluster.local`, (a) => a.includes(wanted)));
      }
      const added: number[] = [];
      for (let k = 0; k < events; k++) {
        const i = count + (ordinal * events + k) * 5; // ClusterIP, in nobody's index yet
        added.push(await eventToAnswer(api, ports.dns, service(i), `svc${i}.ns${i % namespaces}.svc.cluster.local`, (a) => a.length === 1));
      }
      slice = latency(slices);
      created = latency(added);
    }
    const row: Row = { cluster, server: kind.label, readyMs: server.readyMs, cpuToReady: server.cpuToReady, peakKb: server.peakKb, rssReadyKb, rssLoadedKb, qps, processes, ...(slice ? { slice } : {}), ...(created ? { created } : {}) };
    console.error(describe(row));
    return row;
  } finally {
    await stop(server);
  }
}

const mb = (kb: number): string => (kb / 1024).toFixed(0);
const ms = (value: number): string => value.toFixed(1);

function describe(row: Row): string {
  const events = row.slice && row.created ? `, event to answer: slice update ${ms(row.slice.p50)} / ${ms(row.slice.p99)} ms, service created ${ms(row.created.p50)} / ${ms(row.created.p99)} ms (p50 / p99)` : '';
  return `${row.cluster}, ${row.server}: ready after ${(row.readyMs / 1000).toFixed(1)} s (${row.cpuToReady.toFixed(1)} s of CPU), peak ${mb(row.peakKb)} MB, RSS ${mb(row.rssReadyKb)} MB ready, ${mb(row.rssLoadedKb)} MB after ${queries.toLocaleString('en')} queries at ${row.qps.toFixed(0)} QPS${row.processes > 1 ? ` (${row.processes} processes)` : ''}${events}`;
}

function table(): string {
  const lines = [
    `| cluster | server | start to ready (CPU) | peak to ready (VmHWM) | RSS ready | RSS after ${queries.toLocaleString('en')} queries | QPS | event → answer p50 / p99: slice update | service created |`,
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const events = r.slice && r.created ? `${ms(r.slice.p50)} / ${ms(r.slice.p99)} ms | ${ms(r.created.p50)} / ${ms(r.created.p99)} ms` : ' | ';
    lines.push(`| ${r.cluster} | ${r.server} | ${(r.readyMs / 1000).toFixed(1)} s (${r.cpuToReady.toFixed(1)} s) | ${mb(r.peakKb)} MB | ${mb(r.rssReadyKb)} MB | ${mb(r.rssLoadedKb)} MB | ${Number.isFinite(r.qps) ? Math.round(r.qps).toLocaleString('en') : '–'} | ${events} |`);
  }
  return lines.join('\n');
}

async function withApi<T>(objects: Iterable<ApiObject>, body: (api: KubeApiServer, kubeconfig: string) => Promise<T>): Promise<T> {
  const api = await startKubeApiServer({ tls: true, token });
  const dir = mkdtempSync(join(tmpdir(), 'bench-cluster-dns-api-'));
  try {
    for (const object of objects) api.apply(object);
    const kubeconfig = writeKubeconfig(join(dir, 'kubeconfig'), [{ name: 'bench', server: api.url, ca: api.ca!, token }]);
    return await body(api, kubeconfig);
  } finally {
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const clusterLabel = (count: number): string =>
  count === 0 ? `empty (${namespaces} namespaces)` : `${count.toLocaleString('en')} services, ${(count * endpointsPerService).toLocaleString('en')} endpoints`;

function* lighthouseObjects(count: number): Generator<ApiObject> {
  const { imports, slices } = syntheticClusterset(count);
  yield* imports as ApiObject[];
  for (const cluster of slices) yield* cluster as ApiObject[];
}

const options = parseArgs(process.argv.slice(2));
if (spawnSync('sh', ['-c', 'command -v dnsperf && command -v taskset'], { stdio: 'ignore' }).status !== 0) {
  console.error('bench:cluster-dns needs dnsperf and taskset (scripts/bench-tools.sh installs them)');
  process.exit(1);
}
const loadLine = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');
console.log(`node ${process.versions.node}; ${new Date().toISOString()}; load average ${loadLine()}`);
if (options.coredns === undefined) console.log('no CoreDNS to compare with (set COREDNS_BINARY or pass --coredns PATH): its rows are left out');
const servers = (count: number): ServerKind[] => [
  foghorn(),
  ...(options.coredns !== undefined ? [coredns(options.coredns)] : []),
  ...(workersSizes.includes(count) ? [foghorn(['-workers', '2'], `${serverCpus},${clientCpus}`)] : []),
];
for (const count of options.sizes) {
  await withApi(clusterObjects(count, endpointsPerService), async (api, kubeconfig) => {
    let ordinal = 0;
    for (const kind of servers(count)) {
      const ports = await freePorts();
      rows.push(await measure(clusterLabel(count), kind, kubeadmBlock(ports, kubeconfig), ports, clusterNames(count, 'cluster.local'), { api, count, ordinal: ordinal++ }));
    }
  });
}
if (lighthouseServices > 0) {
  const count = lighthouseServices;
  const objects = function* (): Generator<ApiObject> {
    yield* clusterObjects(count, endpointsPerService);
    yield* lighthouseObjects(count);
  };
  await withApi(objects(), async (_api, kubeconfig) => {
    const ports = await freePorts();
    rows.push(await measure(`lighthouse: ${count.toLocaleString('en')} ServiceImports, 3 clusters`, foghorn(), lighthouseBlock(ports, kubeconfig, true), ports, clusterNames(count, 'clusterset.local')));
    const both = await freePorts();
    rows.push(
      await measure(
        `kubernetes (${clusterLabel(count)}) + lighthouse (${count.toLocaleString('en')} ServiceImports), one process`,
        foghorn(),
        kubeadmBlock(both, kubeconfig) + lighthouseBlock(both, kubeconfig, false),
        both,
        clusterNames(count, 'cluster.local'),
      ),
    );
  });
}
console.log(`\n${table()}\n\nload average ${loadLine()}`);
saveResults('cluster-dns');
// Closed TLS sockets of the API servers can keep Node 20 spinning on exit (api-server.ts, dropConnections).
process.exit(0);
