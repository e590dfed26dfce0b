/**
 * kubernetes answering `cluster.local` from 10,000 ClusterIP services (manifests source): an A
 * query for one service, the cached wire-bytes path.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchScenario } from './scenario.js';

const services = Number(process.env['BENCH_KUBERNETES_SERVICES'] ?? 10_000);

const scenario: BenchScenario = {
  title: `foghorn kubernetes (${services.toLocaleString('en')} services, ClusterIP A)`,
  targetRatio: 1.2,
  setup: () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-kubernetes-'));
    const items: unknown[] = [];
    for (let n = 0; n < 100; n++) items.push({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `ns${n}` } });
    for (let i = 0; i < services; i++) {
      items.push({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: `svc${i}`, namespace: `ns${i % 100}` },
        spec: { type: 'ClusterIP', clusterIP: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, ports: [{ name: 'http', protocol: 'TCP', port: 80 }] },
      });
    }
    writeFileSync(join(dir, 'cluster.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
    return Promise.resolve({
      corefile: `cluster.local:0 {\n    bind 127.0.0.1\n    kubernetes {\n        manifests ${dir}\n    }\n}\n`,
      queryName: 'svc4321.ns21.svc.cluster.local',
      queryType: 'A',
      cleanup: () => {
        rmSync(dir, { recursive: true, force: true });
        return Promise.resolve();
      },
    });
  },
};
export default scenario;
