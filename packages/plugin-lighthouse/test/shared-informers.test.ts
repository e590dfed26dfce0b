/**
 * Lighthouse's watches go through @foghorn/kube's informer registry: server blocks and other
 * plugins on the same connection share each list+watch, and a reload keeps them. A store that
 * comes new (another cluster id) gets its state from a relist: the registry keeps no objects.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import bind from '@foghorn/plugin-bind';
import { definePlugin } from '@foghorn/core';
import { endpointSlicesResource, informerRegistry } from '@foghorn/kube';
import type { EndpointSlice, InformerLease } from '@foghorn/kube';
import { directivesOf, eventually, startServer } from '@foghorn/testkit';
import { startKubeApiServer } from '@foghorn/testkit/kube';
import type { ApiObject } from '@foghorn/testkit/kube';
import lighthouse from '../src/index.js';
import { managedBySelector } from '../src/store.js';
import { a, ask, gateway, http, serviceImport, serviceSlice, submariner } from './fixtures.js';

const slices = `/apis/discovery.k8s.io/v1/endpointslices?labelSelector=${managedBySelector}`;
/** What one Kubernetes-backed lighthouse watches; v1beta1 ServiceImports are not served (404, no watch). */
const watched = {
  '/apis/multicluster.x-k8s.io/v1alpha1/serviceimports': 1,
  [slices]: 1,
  '/apis/submariner.io/v1alpha1/submariners': 1,
  '/apis/submariner.io/v1/gateways': 1,
};

/** Another plugin that wants lighthouse's EndpointSlices: `slicewatch URL`; what it is told goes to `seen`. */
function sliceWatch(leases: InformerLease<EndpointSlice>[], seen: EndpointSlice[]) {
  return definePlugin({
    name: 'slicewatch',
    setup(c) {
      c.next();
      const endpoint = c.remainingArgs()[0] ?? '';
      const informers = informerRegistry(c);
      let lease: InformerLease<EndpointSlice> | undefined;
      c.onStartup(async () => {
        const subscriber = { replace: (items: readonly EndpointSlice[]) => seen.push(...items), upsert: (item: EndpointSlice) => seen.push(item), remove: () => {} };
        // The first block's plugin subscribes; the second shares its lease's informer without.
        lease = await informers.acquire({ endpoint }, endpointSlicesResource({ labelSelector: managedBySelector }), leases.length === 0 ? subscriber : undefined, { logger: c.log });
        leases.push(lease);
      });
      c.onShutdown(() => lease?.release());
    },
  });
}

test('two lighthouse blocks and another plugin on one connection open each watch once, and a reload keeps them', async (t) => {
  const api = await startKubeApiServer();
  t.after(() => api.close());
  for (const object of [
    serviceImport('service1', 'namespace1', { ports: [http] }),
    serviceSlice('service1', 'namespace1', 'cluster1', '10.0.0.1', [http]),
    submariner(),
    gateway('cluster1', [['cluster2', 'connected']]),
  ]) {
    api.apply(object as ApiObject);
  }
  const leases: InformerLease<EndpointSlice>[] = [];
  const seen: EndpointSlice[] = [];
  // Different cluster ids: two lighthouse stores, fed by the same informers.
  const block = (zone: string, clusterId: string): string =>
    `${zone}:0 {\n    bind 127.0.0.1\n    lighthouse {\n        endpoint ${api.url}\n        cluster_id ${clusterId}\n    }\n    slicewatch ${api.url}\n}\n`;
  const corefile = block('clusterset.local', 'cluster1') + block('supercluster.local', 'cluster2');
  const server = await startServer(corefile, { directives: directivesOf(bind, lighthouse, sliceWatch(leases, seen)) });
  t.after(() => server.close());
  await eventually(() => api.watchCount === 4, 5000, 'the watches');
  for (const zone of ['clusterset.local', 'supercluster.local']) {
    const name = `service1.namespace1.svc.${zone}`;
    assert.deepEqual((await ask(server, name, 'A')).answers, [a(name, '10.0.0.1')]);
  }
  assert.deepEqual(api.requestCounts('watch'), watched);
  assert.deepEqual(api.openWatches(), watched);
  assert.equal(leases.length, 2);
  assert.equal(seen.find((slice) => slice.metadata?.name === 'service1-cluster1')?.endpoints?.[0]?.addresses?.[0], '10.0.0.1');
  const lists = api.requestCounts('list')[slices]!;

  assert.equal(await server.reload(), true);
  assert.equal(api.requestCounts('list')[slices], lists, 'a reload that changes nothing relists nothing');
  // A new cluster id is a new store: it fills from one relist of the informers it shares.
  assert.equal(await server.reload(corefile.replace('cluster_id cluster2', 'cluster_id cluster3')), true);
  const name = 'service1.namespace1.svc.supercluster.local';
  await eventually(async () => (await ask(server, name, 'A')).answers.length === 1 && api.watchCount === 4, 5000, 'the relist for the new store');
  assert.deepEqual((await ask(server, name, 'A')).answers, [a(name, '10.0.0.1')]);
  assert.equal(api.requestCounts('list')[slices], lists + 1);
  assert.deepEqual(api.openWatches(), watched, 'still one watch of each');

  // Without any Kubernetes user left, every watch ends.
  assert.equal(await server.reload(`clusterset.local:0 {\n    bind 127.0.0.1\n}\n`), true);
  await eventually(() => api.watchCount === 0, 5000, 'every watch closed');
});
