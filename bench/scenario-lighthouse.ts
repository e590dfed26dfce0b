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
import { syntheticClusters, syntheticClusterset } from '@foghorn/testkit/kube';
import type { BenchScenario } from './scenario.js';

const services = Number(process.env['BENCH_LIGHTHOUSE_SERVICES'] ?? 10_000);
/** Writes `count` synthetic services as JSON lists, one file per cluster plus the imports. */
export function writeClusterset(dir: string, count: number): void {
  const { imports, slices } = syntheticClusterset(count);
  writeFileSync(join(dir, 'serviceimports.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: imports }));
  syntheticClusters.forEach((cluster, c) => writeFileSync(join(dir, `${cluster}.json`), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: slices[c] })));
}

/**
 * A query for each of `count` services in turn (ClusterSetIP and headless alike), every tenth
 * one for a service nobody exports (NXDOMAIN), as a client population would ask.
 */
function clustersetQueries(count: number): string[] {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) lines.push(`${i % 10 === 9 ? 'missing' : 'svc'}${i}.ns${i % 100}.svc.clusterset.local A`);
  return lines;
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
      queries: clustersetQueries(services),
      cleanup: () => {
        rmSync(dir, { recursive: true, force: true });
        return Promise.resolve();
      },
    });
  },
};
export default scenario;
