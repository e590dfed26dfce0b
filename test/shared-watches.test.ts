/**
 * kubernetes and lighthouse in one Corefile, on one API server connection, share @foghorn/kube's
 * informers: each distinct (resource, selector) is listed and watched once for the process,
 * however many server blocks use it, and a reload opens nothing new.
 *
 * EndpointSlices are watched by both, with different selectors, so they are three watches:
 * kubernetes takes every slice (it indexes them by the `kubernetes.io/service-name` label), its
 * `multicluster` option the slices labelled `multicluster.kubernetes.io/service-name`, and
 * lighthouse only those its agent manages (`endpointslice.kubernetes.io/managed-by`). The
 * ServiceImports watch has no selector in either plugin, so it is shared.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import bind from '@foghorn/plugin-bind';
import kubernetes from '@foghorn/plugin-kubernetes';
import lighthouse from '@foghorn/plugin-lighthouse';
import { directivesOf, eventually, query, rcodeOf, startServer } from '@foghorn/testkit';
import { startKubeApiServer } from '@foghorn/testkit/kube';
import { exampleObjects } from './example-objects.js';

const kubernetesWatches = {
  '/api/v1/services': 1,
  '/apis/discovery.k8s.io/v1/endpointslices': 1,
  '/api/v1/namespaces': 1,
};
const multiclusterWatches = {
  '/apis/multicluster.x-k8s.io/v1alpha1/serviceimports': 1,
  '/apis/discovery.k8s.io/v1/endpointslices?labelSelector=multicluster.kubernetes.io/service-name': 1,
};
const lighthouseWatches = {
  '/apis/multicluster.x-k8s.io/v1alpha1/serviceimports': 1,
  '/apis/discovery.k8s.io/v1/endpointslices?labelSelector=endpointslice.kubernetes.io/managed-by=lighthouse-agent.submariner.io': 1,
  '/apis/submariner.io/v1alpha1/submariners': 1,
  '/apis/submariner.io/v1/gateways': 1,
};
const sorted = (counts: Record<string, number>): Record<string, number> => Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));

test('kubernetes and lighthouse in one Corefile open each watch once, and a reload keeps them', async (t) => {
  const api = await startKubeApiServer();
  t.after(() => api.close());
  for (const object of [...exampleObjects('cluster'), ...exampleObjects('clusterset')]) api.apply(object);
  const k8s = (zones: string, options = ''): string => `    kubernetes ${zones} {\n        endpoint ${api.url}\n        pods insecure\n${options}    }\n`;
  const block = (keys: string, body: string): string => `${keys} {\n    bind 127.0.0.1\n${body}}\n`;
  const lighthouseBlock = `    lighthouse {\n        endpoint ${api.url}\n        cluster_id cluster1\n    }\n`;
  const corefile =
    block('cluster.local:0 10.in-addr.arpa:0', k8s('cluster.local 10.in-addr.arpa')) +
    block('clusterset.local:0', lighthouseBlock) +
    // A second block of each: same connection, same selectors, no new watch.
    block('cluster.internal:0', k8s('cluster.internal')) +
    block('supercluster.local:0', lighthouseBlock.replace('cluster1', 'cluster2'));
  const server = await startServer(corefile, { directives: directivesOf(bind, kubernetes, lighthouse) });
  t.after(() => server.close());
  const expected = sorted({ ...kubernetesWatches, ...lighthouseWatches });
  await eventually(() => api.watchCount === Object.keys(expected).length, 5000, 'the watches');

  /** The A records of `name`, asked of the block serving `zone`. */
  const a = async (zone: string, name: string): Promise<string[]> =>
    ((await query({ port: server.port(`${zone}.`) }, name, 'A')).answers ?? []).map((rr) => String((rr as { data?: unknown }).data)).sort();
  assert.deepEqual(await a('cluster.local', 'web.shop.svc.cluster.local'), ['10.96.100.10']);
  assert.deepEqual(await a('cluster.internal', 'web.shop.svc.cluster.internal'), ['10.96.100.10']);
  assert.deepEqual(await a('clusterset.local', 'api.shop.svc.clusterset.local'), ['243.1.0.10']);
  assert.equal(rcodeOf(await query({ port: server.port('supercluster.local.') }, 'checkout.shop.svc.supercluster.local', 'A')), 'NOERROR');
  assert.deepEqual(sorted(api.requestCounts('watch')), expected);
  assert.deepEqual(sorted(api.openWatches()), expected);
  for (const [path, count] of Object.entries(sorted(api.requestCounts('list')))) assert.equal(count, 1, `${path} listed once`);

  assert.equal(await server.reload(), true);
  assert.equal(await server.reload(corefile.replace('cluster_id cluster2', 'cluster_id cluster3')), true);
  assert.deepEqual(sorted(api.requestCounts('watch')), expected, 'no new watch after two reloads');
  assert.deepEqual(sorted(api.openWatches()), expected);
  for (const [path, count] of Object.entries(sorted(api.requestCounts('list')))) assert.equal(count, 1, `${path} still listed once`);
});

// @foghorn/kube's informer key includes `optional` (packages/kube/src/registry.ts informerKey):
// kubernetes asks for ServiceImports with optional: false (CoreDNS never gets ready without the
// CRD) and lighthouse with optional: true (a missing CRD is an empty list), so the same
// unselected list+watch of ServiceImports is opened twice.
test('kubernetes multicluster and lighthouse share the ServiceImports watch', async (t) => {
  const api = await startKubeApiServer();
  t.after(() => api.close());
  for (const object of [...exampleObjects('cluster'), ...exampleObjects('clusterset')]) api.apply(object);
  const corefile =
    `cluster.local:0 clusterset.internal:0 {\n    bind 127.0.0.1\n    kubernetes cluster.local clusterset.internal {\n        endpoint ${api.url}\n        multicluster clusterset.internal\n    }\n}\n` +
    `clusterset.local:0 {\n    bind 127.0.0.1\n    lighthouse {\n        endpoint ${api.url}\n        cluster_id cluster1\n    }\n}\n`;
  const server = await startServer(corefile, { directives: directivesOf(bind, kubernetes, lighthouse) });
  t.after(() => server.close());
  const all = sorted({ ...kubernetesWatches, ...lighthouseWatches, ...multiclusterWatches });
  await eventually(() => api.watchCount >= Object.keys(all).length, 5000, 'the watches');
  assert.deepEqual(
    (await query({ port: server.port('clusterset.internal.') }, 'api.shop.svc.clusterset.internal', 'A')).answers?.map((rr) => String((rr as { data?: unknown }).data)),
    ['243.1.0.10'],
  );
  assert.deepEqual(sorted(api.requestCounts('watch')), all);
  assert.deepEqual(sorted(api.openWatches()), all);
});
