/**
 * kubernetes with kubeadm's options answering a ClusterIP name from a cluster of 10,000 services
 * and 50,000 endpoints (manifests source, the same index the API server would fill).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clusterObjects } from './cluster-objects.js';
import type { BenchScenario, ScenarioSetup } from './scenario.js';

export const services = Number(process.env['BENCH_KUBERNETES_SERVICES'] ?? 10_000);
export const endpointsPerService = 5;

/** Writes the synthetic cluster to a temporary directory and serves it as kubeadm's block does. */
export function clusterSetup(queryName: string): Promise<ScenarioSetup> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-kubernetes-cluster-'));
  writeFileSync(join(dir, 'cluster.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: clusterObjects(services, endpointsPerService) }));
  return Promise.resolve({
    corefile: `cluster.local:0 in-addr.arpa:0 {\n    bind 127.0.0.1\n    kubernetes cluster.local in-addr.arpa {\n        manifests ${dir}\n        pods insecure\n        fallthrough in-addr.arpa\n        ttl 30\n    }\n}\n`,
    queryName,
    queryType: 'A',
    cleanup: () => {
      rmSync(dir, { recursive: true, force: true });
      return Promise.resolve();
    },
  });
}

const scenario: BenchScenario = {
  title: `kubernetes ${services / 1000}k svc ${(services * endpointsPerService) / 1000}k ep, ClusterIP A`,
  targetRatio: 1.2,
  setup: () => clusterSetup('svc4321.ns21.svc.cluster.local'),
};
export default scenario;
