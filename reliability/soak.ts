/**
 * `npm run soak [-- SECONDS [QPS]]`: Corefile.example under constant load while its manifests
 * churn, the Corefile is reloaded (SIGUSR1) and a hostile TCP client connects, for as long as
 * asked (default 60 s). Prints, every sample: RSS, heap, active handles, descriptors, queries
 * sent/answered/lost and errors logged; then the drift and the totals. A query is lost when no
 * answer came within 2 s: across reloads that must stay zero.
 */
import dgram from 'node:dgram';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeQuery } from '@foghorn/testkit';
import { freshClientServed, idleConnections, longPrefix, pipelined, randomFrames, slowloris, stillOpen, zeroLength } from './abuse.js';
import { examplePorts, exampleCorefile, mib, sampleProcess, scratch, scrapeRuntime, startFoghorn } from './harness.js';

export interface SoakOptions {
  readonly seconds: number;
  /** UDP queries per second of the steady load. */
  readonly qps: number;
  /** Seconds between samples. */
  readonly sampleEvery: number;
  /** Seconds between reloads and between manifest changes. */
  readonly reloadEvery: number;
  readonly churnEvery: number;
  /** Connections of the hostile client's idle and slowloris rounds. */
  readonly hostileConnections: number;
  readonly log?: (line: string) => void;
}

export interface SoakSample {
  readonly second: number;
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
  readonly handles: number;
  readonly descriptors: number;
  readonly sent: number;
  readonly answered: number;
  readonly lost: number;
  readonly errors: number;
}

export interface SoakReport {
  readonly samples: SoakSample[];
  readonly reloads: number;
  readonly churns: number;
  readonly hostileRounds: number;
  /** Fresh TCP clients served during the hostile rounds, of those tried. */
  readonly freshServed: number;
  readonly freshTried: number;
  readonly errors: string[];
  readonly crashed: boolean;
}

const names = ['whoami.example.org', 'checkout.shop.svc.clusterset.local', 'web.shop.svc.clusterset.local', 'cluster1.nginx.default.svc.clusterset.local', 'churn.soak.svc.clusterset.local'];

export async function soak(options: SoakOptions): Promise<SoakReport> {
  const log = options.log ?? (() => {});
  const work = await scratch();
  const ports = await examplePorts();
  const child = await startFoghorn(await exampleCorefile(ports, work.manifests), ports.dns, work.dir);
  const reloadsDone = child.count(/\[INFO\] Reloading complete/);
  const samples: SoakSample[] = [];
  let reloads = 0;
  let churns = 0;
  let hostileRounds = 0;
  let freshServed = 0;
  let freshTried = 0;
  try {
    // Steady UDP load: one socket, unique IDs, an answer expected within 2 s.
    const socket = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    const outstanding = new Map<number, number>();
    let sent = 0;
    let answered = 0;
    let lost = 0;
    let nextId = 0;
    socket.on('message', (msg) => {
      if (msg.length >= 2 && outstanding.delete(msg.readUInt16BE(0))) answered++;
    });
    const perTick = Math.max(1, Math.round(options.qps / 100));
    const load = setInterval(() => {
      const now = Date.now();
      for (const [id, at] of outstanding) {
        if (now - at < 2000) break;
        outstanding.delete(id);
        lost++;
      }
      for (let i = 0; i < perTick; i++) {
        const id = nextId++ & 0xffff;
        if (outstanding.has(id)) continue;
        outstanding.set(id, now);
        sent++;
        socket.send(makeQuery(names[id % names.length]!, id % 3 === 0 ? 'SRV' : 'A', { id }), ports.dns, '127.0.0.1');
      }
    }, 10);

    // Manifests churn: a service appears, moves and disappears; an endpoint address flips; a broken file comes and goes.
    const cluster1 = join(work.manifests, 'cluster1.yaml');
    const original = await readFile(cluster1, 'utf8');
    const churn = setInterval(() => {
      churns++;
      const step = churns % 4;
      const io =
        step === 0
          ? rm(join(work.manifests, 'churn.yaml'), { force: true })
          : step === 1
            ? writeFile(join(work.manifests, 'churn.yaml'), churnService(`100.9.${churns % 250}.1`))
            : step === 2
              ? writeFile(cluster1, original.replace('100.1.10.20', `100.1.10.${20 + (churns % 200)}`))
              : writeFile(join(work.manifests, 'broken.yaml'), churns % 8 === 3 ? 'kind: [unclosed\n' : '# fixed\n');
      io.catch((error: Error) => log(`churn: ${error.message}`));
    }, options.churnEvery * 1000);

    const reload = setInterval(() => {
      reloads++;
      child.process.kill('SIGUSR1');
    }, options.reloadEvery * 1000);

    // The hostile client: one abuse after another, all the time, and a fresh client must still be served.
    let stopHostile = false;
    const hostile = (async () => {
      while (!stopHostile) {
        hostileRounds++;
        const round = hostileRounds % 6;
        if (round === 0) {
          const idle = await idleConnections(ports.dns, options.hostileConnections);
          freshTried++;
          if (await freshClientServed(ports.dns)) freshServed++;
          log(`hostile: ${idle.length} idle connections opened, ${stillOpen(idle)} still open`);
          for (const s of idle) s.destroy();
        } else if (round === 1) {
          const loris = await slowloris(ports.dns, Math.min(500, options.hostileConnections), 60_000, 500);
          await delay(1500);
          freshTried++;
          if (await freshClientServed(ports.dns)) freshServed++;
          loris.stop();
        } else if (round === 2) await randomFrames(ports.dns, 50);
        else if (round === 3) await longPrefix(ports.dns, 200);
        else if (round === 4) await zeroLength(ports.dns);
        else await pipelined(ports.dns, 1000);
        await delay(200);
      }
    })();

    const started = Date.now();
    const end = started + options.seconds * 1000;
    while (Date.now() < end && child.exitCode === undefined) {
      await delay(Math.min(options.sampleEvery * 1000, Math.max(0, end - Date.now())));
      if (child.exitCode !== undefined) break;
      const proc = await sampleProcess(child.process.pid!);
      const runtime = await scrapeRuntime(ports.metrics).catch(() => ({ heapUsedBytes: NaN, handles: NaN, openFds: NaN, panics: NaN }));
      const sample: SoakSample = {
        second: Math.round((Date.now() - started) / 1000),
        rssBytes: proc.rssBytes,
        heapUsedBytes: runtime.heapUsedBytes,
        handles: runtime.handles,
        descriptors: proc.descriptors,
        sent,
        answered,
        lost,
        errors: child.errors.length,
      };
      samples.push(sample);
      log(formatSample(sample));
    }
    clearInterval(load);
    clearInterval(churn);
    clearInterval(reload);
    stopHostile = true;
    await hostile;
    // The queries still outstanding get their 2 s.
    await delay(2100);
    lost += outstanding.size;
    socket.close();
    const last = samples.at(-1);
    if (last) samples[samples.length - 1] = { ...last, sent, answered, lost };
    const crashed = child.exitCode !== undefined;
    reloads = Math.min(reloads, reloadsDone());
    return { samples, reloads, churns, hostileRounds, freshServed, freshTried, errors: [...child.errors], crashed };
  } finally {
    await child.stop();
    await work.close();
  }
}

function churnService(ip: string): string {
  return [
    'apiVersion: multicluster.x-k8s.io/v1alpha1',
    'kind: ServiceImport',
    'metadata: {name: churn, namespace: soak}',
    'spec: {type: ClusterSetIP, ports: [{name: http, protocol: TCP, port: 80}]}',
    '---',
    'apiVersion: discovery.k8s.io/v1',
    'kind: EndpointSlice',
    'metadata:',
    '  name: churn-cluster1',
    '  namespace: soak',
    '  labels:',
    '    endpointslice.kubernetes.io/managed-by: lighthouse-agent.submariner.io',
    '    multicluster.kubernetes.io/service-name: churn',
    '    lighthouse.submariner.io/sourceNamespace: soak',
    '    multicluster.kubernetes.io/source-cluster: cluster1',
    'addressType: IPv4',
    `endpoints: [{addresses: ["${ip}"], conditions: {ready: true}}]`,
    'ports: [{name: http, protocol: TCP, port: 80}]',
    '',
  ].join('\n');
}

export function formatSample(s: SoakSample): string {
  return `${String(s.second).padStart(5)} s  RSS ${mib(s.rssBytes).padStart(10)}  heap ${mib(s.heapUsedBytes).padStart(10)}  handles ${String(s.handles).padStart(5)}  fds ${String(s.descriptors).padStart(5)}  queries ${s.sent} sent, ${s.answered} answered, ${s.lost} lost  errors ${s.errors}`;
}

export function formatSoak(report: SoakReport): string {
  const first = report.samples[0];
  const last = report.samples.at(-1);
  const lines = [
    `reloads: ${report.reloads}, manifest changes: ${report.churns}, hostile rounds: ${report.hostileRounds}, fresh TCP clients served during them: ${report.freshServed}/${report.freshTried}`,
  ];
  if (first && last) {
    lines.push(
      `queries: ${last.sent} sent, ${last.answered} answered, ${last.lost} lost`,
      `drift from the first sample to the last: RSS ${mib(last.rssBytes - first.rssBytes)}, heap ${mib(last.heapUsedBytes - first.heapUsedBytes)}, handles ${last.handles - first.handles}, descriptors ${last.descriptors - first.descriptors}`,
    );
  }
  lines.push(`crashed: ${report.crashed}, errors logged: ${report.errors.length}`);
  for (const error of report.errors.slice(0, 10)) lines.push(`error: ${error}`);
  return lines.join('\n');
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function main(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 60);
  const qps = Number(process.argv[3] ?? 500);
  console.log(`soak: Corefile.example for ${seconds} s at ${qps} queries/s, manifests churning, reloads, a hostile TCP client`);
  const report = await soak({ seconds, qps, sampleEvery: Math.max(1, Math.round(seconds / 20)), reloadEvery: 5, churnEvery: 1, hostileConnections: 5000, log: (line) => console.log(line) });
  console.log(formatSoak(report));
  const last = report.samples.at(-1);
  process.exitCode = report.crashed || (last?.lost ?? 1) > 0 || report.errors.length > 0 ? 1 : 0;
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
