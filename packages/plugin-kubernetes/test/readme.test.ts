/** The README is the operator's page: CoreDNS's sections, valid Corefile examples, every metric. */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import bind from '@foghorn/plugin-bind';
import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import kubernetes from '../src/index.js';
import { KubernetesMetrics } from '../src/metrics.js';

const readme = new URL('../../README.md', import.meta.url);

// The metrics are registered in setup; an empty manifests directory starts the plugin without a cluster.
const noObjects = mkdtempSync(join(tmpdir(), 'foghorn-k8s-readme-'));
checkPluginReadme(readme, {
  name: 'kubernetes',
  directives: directivesOf(bind, kubernetes),
  sections: ['Metrics', 'Ready'],
  minExamples: 4,
  metrics: { corefile: `.:0 {\n    kubernetes cluster.local {\n        manifests ${noObjects}\n    }\n}\n` },
});

test('the README lists every metric the plugin registers, and nothing else', async () => {
  const registry = new Registry();
  new KubernetesMetrics(registry);
  const registered = (await registry.getMetricsAsJSON()).map((m) => m.name).sort();
  const listed = [...new Set([...readFileSync(readme, 'utf8').matchAll(/`(coredns_kubernetes_[a-z_]+)/g)].map((m) => m[1]!))].sort();
  assert.deepEqual(listed, registered);
});
