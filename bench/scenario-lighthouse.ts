/**
 * lighthouse answering `clusterset.local` from an index of 10,000 services in 3 clusters, read by
 * the manifests source from a generated temporary directory (JSON lists, as the Kubernetes watch
 * would deliver them). The query is a ClusterSetIP name without a clusterset IP and without a
 * local cluster, so every answer runs the smooth weighted round robin over three precomputed
 * per-cluster bodies: the most expensive positive path.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchScenario } from './scenario.js';

const services = Number(process.env['BENCH_LIGHTHOUSE_SERVICES'] ?? 10_000);
const clusters = ['cluster1', 'cluster2', 'cluster3'];

/** Writes `count` services (every fifth headless) exported by three clusters into `dir`. */
export function writeClusterset(dir: string, count: number): void {
  const imports: object[] = [];
  const slices: object[][] = clusters.map(() => []);
  for (let i = 0; i < count; i++) {
    const name = `svc${i}`;
    const namespace = `ns${i % 100}`;
    const headless = i % 5 === 4;
    const ports = [{ name: 'http', protocol: 'TCP', port: 8080 }];
    imports.push({
      apiVersion: 'multicluster.x-k8s.io/v1alpha1',
      kind: 'ServiceImport',
      metadata: { name, namespace, annotations: { 'lighthouse.submariner.io/use-clusterset-ip': 'false' } },
      spec: { type: headless ? 'Headless' : 'ClusterSetIP', ports },
    });
    clusters.forEach((cluster, c) => {
      const ip = (k: number): string => `10.${c * 64 + ((i >> 14) & 63)}.${(i >> 6) & 255}.${((i & 63) << 2) + k}`;
      slices[c]!.push({
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: {
          name: `${name}-${cluster}`,
          namespace,
          labels: {
            'endpointslice.kubernetes.io/managed-by': 'lighthouse-agent.submariner.io',
            'multicluster.kubernetes.io/service-name': name,
            'lighthouse.submariner.io/sourceNamespace': namespace,
            'multicluster.kubernetes.io/source-cluster': cluster,
            'lighthouse.submariner.io/is-headless': String(headless),
          },
        },
        addressType: 'IPv4',
        endpoints: headless
          ? [0, 1, 2].map((k) => ({ addresses: [ip(k + 1)], hostname: `${name}-${k}`, conditions: { ready: true } }))
          : [{ addresses: [ip(1)], conditions: { ready: true } }],
        ports,
      });
    });
  }
  writeFileSync(join(dir, 'serviceimports.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: imports }));
  clusters.forEach((cluster, c) => writeFileSync(join(dir, `${cluster}.json`), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: slices[c] })));
}

const scenario: BenchScenario = {
  title: `foghorn lighthouse (${services.toLocaleString('en')} services, 3 clusters, round robin)`,
  targetRatio: 1.2,
  setup: () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-lighthouse-'));
    writeClusterset(dir, services);
    return Promise.resolve({
      corefile: `clusterset.local:0 {\n    bind 127.0.0.1\n    lighthouse {\n        manifests ${dir}\n    }\n}\n`,
      queryName: `svc4321.ns21.svc.clusterset.local`,
      queryType: 'A',
      cleanup: () => {
        rmSync(dir, { recursive: true, force: true });
        return Promise.resolve();
      },
    });
  },
};
export default scenario;
