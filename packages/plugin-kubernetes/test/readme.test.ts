/** The README is the operator's page: CoreDNS's sections, valid Corefile examples, every metric. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import bind from '@foghorn/plugin-bind';
import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import kubernetes from '../src/index.js';
import { KubernetesMetrics } from '../src/metrics.js';

const readme = new URL('../../README.md', import.meta.url);

checkPluginReadme(readme, { name: 'kubernetes', directives: directivesOf(bind, kubernetes), sections: ['Metrics', 'Ready'], minExamples: 4 });

test('the README lists every metric the plugin registers, and nothing else', async () => {
  const registry = new Registry();
  new KubernetesMetrics(registry);
  const registered = (await registry.getMetricsAsJSON()).map((m) => m.name).sort();
  const listed = [...new Set([...readFileSync(readme, 'utf8').matchAll(/`(coredns_kubernetes_[a-z_]+)/g)].map((m) => m[1]!))].sort();
  assert.deepEqual(listed, registered);
});
