/**
 * What *autopath* saves an ndots:5 pod, and what it costs the server.
 *
 *   npm run bench:autopath [-- RESOLUTIONS]        (default 3000 per name and server)
 *
 * Two Foghorn servers watch the same test API server (HTTPS, a kubeconfig) in which the client
 * (127.0.0.1) is a pod of `default`: one with `autopath @kubernetes` and `pods verified`, one
 * without. Outside names are answered by *hosts* with `fallthrough` ahead of kubernetes, in
 * forward's stead (no network in the figure). The client resolves each name as a stub resolver
 * with `search default.svc.cluster.local svc.cluster.local cluster.local` and `ndots:5` does: each
 * search domain in turn until a reply is not NXDOMAIN, then the name as given. Reported per
 * name and server: queries per resolution, and the server's CPU per resolution and per query
 * (/proc), 8 resolutions in flight, the servers measured alternately in one run.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeReply, makeQuery, udpExchange } from '@foghorn/testkit';
import { startKubeApiServer, writeKubeconfig } from '@foghorn/testkit/kube';
import type { ApiObject } from '@foghorn/testkit/kube';
import { cli, foghornListening, stopChild, waitForPort } from './harness.js';
import { cpuSeconds } from './proc.js';
import { saveResults } from './results.js';

const resolutions = Number(process.argv[2] ?? 3000);
const inFlight = 8;
const search = ['default.svc.cluster.local.', 'svc.cluster.local.', 'cluster.local.'];

const cluster: ApiObject[] = [
  ...['default', 'other'].map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })),
  ...Array.from({ length: 200 }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: `svc${i}`, namespace: i % 2 === 0 ? 'default' : 'other' },
    spec: { clusterIP: `10.0.${i >> 8}.${i & 255}`, ports: [{ name: 'http', protocol: 'TCP', port: 80 }] },
  })),
  { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'client', namespace: 'default' }, status: { phase: 'Running', podIP: '127.0.0.1', podIPs: [{ ip: '127.0.0.1' }] } },
];

/** What a pod asks for: its own namespace's service, another namespace's, a name outside. */
const names: [string, string][] = [
  ['same namespace (svc0)', 'svc0'],
  ['other namespace (svc1.other)', 'svc1.other'],
  ['outside (example.net)', 'example.net'],
];

function corefile(kubeconfig: string, autopath: boolean): string {
  return `.:0 {\n  bind 127.0.0.1\n${autopath ? '  autopath @kubernetes\n' : ''}  hosts {\n    192.0.2.1 example.net\n    fallthrough\n  }\n  kubernetes cluster.local {\n    kubeconfig ${kubeconfig} bench\n    pods verified\n  }\n}\n`;
}

/** One stub-resolver resolution: the queries it took. */
async function resolve(port: number, name: string): Promise<number> {
  let asked = 0;
  for (const suffix of [...search, '']) {
    asked++;
    const wire = await udpExchange({ port }, makeQuery(`${name}.${suffix}`, 'A'), 2000);
    if (wire === null) throw new Error(`no reply for ${name}.${suffix}`);
    if (decodeReply(wire).rcode !== 'NXDOMAIN') return asked;
  }
  return asked;
}

async function measure(server: { child: ChildProcess; port: number }, name: string, count: number): Promise<{ queries: number; cpuUs: number }> {
  const before = cpuSeconds(server.child.pid);
  let queries = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < count) {
        next++;
        // Not `queries += await ...`: that reads `queries` before the await.
        const asked = await resolve(server.port, name);
        queries += asked;
      }
    }),
  );
  return { queries, cpuUs: (cpuSeconds(server.child.pid) - before) * 1e6 };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'foghorn-bench-autopath-'));
  const api = await startKubeApiServer({ tls: true, token: 'bench' });
  const children: ChildProcess[] = [];
  try {
    for (const object of cluster) api.apply(object);
    const kubeconfig = writeKubeconfig(join(dir, 'kubeconfig'), [{ name: 'bench', server: api.url, ca: api.ca!, token: 'bench' }]);
    const servers: { label: string; child: ChildProcess; port: number }[] = [];
    for (const [label, autopath] of [['without autopath', false], ['autopath @kubernetes', true]] as const) {
      const file = join(dir, `Corefile.${autopath}`);
      writeFileSync(file, corefile(kubeconfig, autopath));
      const child = spawn(process.execPath, [cli, '-conf', file], { stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(child);
      servers.push({ label, child, port: await waitForPort(child, foghornListening) });
    }
    // Warm up: the index synced, the JIT settled.
    for (const server of servers) for (const [, name] of names) await measure(server, name, 300);
    const rows: string[] = [];
    for (const [label, name] of names) {
      const figures = [];
      for (const server of servers) figures.push({ server: server.label, ...(await measure(server, name, resolutions)) });
      const [without, withAutopath] = figures as [(typeof figures)[0], (typeof figures)[0]];
      for (const f of figures) {
        rows.push(`| ${label} | ${f.server} | ${(f.queries / resolutions).toFixed(2)} | ${(f.cpuUs / resolutions).toFixed(0)} | ${(f.cpuUs / f.queries).toFixed(0)} |`);
      }
      rows.push(`| ${label} | ratio (autopath/without) | ${(withAutopath.queries / without.queries).toFixed(2)} | ${(withAutopath.cpuUs / without.cpuUs).toFixed(2)} | |`);
    }
    console.log(`# autopath: an ndots:5 pod's resolutions\n\n${new Date().toISOString()}, ${resolutions} resolutions per row, ${inFlight} in flight, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
    console.log('| name | server | queries per resolution | server CPU µs per resolution | server CPU µs per query |\n|---|---|---|---|---|');
    console.log(rows.join('\n'));
    saveResults('autopath');
  } finally {
    for (const child of children) await stopChild(child);
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
