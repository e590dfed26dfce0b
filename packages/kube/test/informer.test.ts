import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { captureLog, eventually } from '@foghorn/testkit';
import { RecordingSink, startKubeApiServer } from '@foghorn/testkit/kube';
import type { ApiObject, KubeApiServer, KubeApiServerOptions } from '@foghorn/testkit/kube';
import { startWatch } from '../src/index.js';
import type { ResourceSpec, StartWatchOptions, Watch } from '../src/index.js';

const serviceImports: ResourceSpec = { group: 'multicluster.x-k8s.io', version: 'v1alpha1', plural: 'serviceimports' };
const managedBy = 'endpointslice.kubernetes.io/managed-by';
const endpointSlices: ResourceSpec = {
  group: 'discovery.k8s.io',
  version: 'v1',
  plural: 'endpointslices',
  labelSelector: `${managedBy}=lighthouse-agent.submariner.io`,
};

function serviceImport(name: string, ip = '10.0.0.1', namespace = 'default'): ApiObject {
  return { apiVersion: 'multicluster.x-k8s.io/v1alpha1', kind: 'ServiceImport', metadata: { name, namespace }, spec: { type: 'ClusterSetIP', ips: [ip] } };
}

function endpointSlice(name: string, manager: string): ApiObject {
  return { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name, namespace: 'default', labels: { [managedBy]: manager } }, addressType: 'IPv4', endpoints: [] };
}

/** Small numbers so every retry in these tests takes milliseconds. */
const fast = { backoffInitialMs: 10, backoffMaxMs: 80, watchTimeoutSeconds: 5, watchdogMs: 2000 } as const;

async function watchWith(
  t: TestContext,
  resource: ResourceSpec,
  prepare: (api: KubeApiServer) => void = () => {},
  options: Partial<StartWatchOptions> = {},
  serverOptions: KubeApiServerOptions = {},
): Promise<{ api: KubeApiServer; sink: RecordingSink; watch: Watch; lines: string[] }> {
  const api = await startKubeApiServer(serverOptions);
  t.after(() => api.close());
  prepare(api);
  const { logger, lines } = captureLog();
  const sink = new RecordingSink();
  const watch = await startWatch({ endpoint: api.url }, resource, sink, { logger: logger.forPlugin('lighthouse'), env: {}, ...fast, ...options });
  t.after(() => watch.stop());
  return { api, sink, watch, lines };
}

test('a watch lists, then delivers adds, changes and deletes to the sink in order', async (t) => {
  const { api, sink, watch } = await watchWith(t, serviceImports, (api) => {
    api.apply(serviceImport('a'));
    api.apply(serviceImport('b'));
  });
  await eventually(() => watch.synced && api.watchCount === 1, 3000, 'sync');
  api.apply(serviceImport('c'));
  api.apply(serviceImport('a', '10.0.0.9'));
  api.delete(serviceImport('b'));
  await eventually(() => sink.calls.length === 4, 3000, 'four sink calls');
  assert.deepEqual(sink.calls, [
    { op: 'replace', names: ['default/a', 'default/b'] },
    { op: 'upsert', name: 'default/c' },
    { op: 'upsert', name: 'default/a' },
    { op: 'remove', name: 'default/b' },
  ]);
  assert.deepEqual(sink.names(), ['default/a', 'default/c']);
  assert.deepEqual((sink.state.get('default/a')?.['spec'] as { ips: string[] }).ips, ['10.0.0.9']);
  assert.equal(sink.state.get('default/c')?.['kind'], 'ServiceImport');

  const [list, watchRequest] = api.requests;
  assert.equal(list?.verb, 'list');
  assert.equal(list?.path, '/apis/multicluster.x-k8s.io/v1alpha1/serviceimports');
  assert.equal(list?.query['limit'], '500');
  assert.equal(watchRequest?.verb, 'watch');
  assert.equal(watchRequest?.query['allowWatchBookmarks'], 'true');
  assert.equal(watchRequest?.query['timeoutSeconds'], '5');
  // The watch resumes exactly where the list ended: no event in between is lost or repeated.
  assert.equal(watchRequest?.query['resourceVersion'], '3');
  assert.equal(watch.restarts, 0);
});

test('a namespaced core resource is listed and watched under /api/v1/namespaces', async (t) => {
  const configMaps: ResourceSpec = { group: '', version: 'v1', plural: 'configmaps', namespace: 'submariner-operator' };
  const { api, sink, watch } = await watchWith(t, configMaps, (api) => {
    api.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'submariner-lighthouse-coredns', namespace: 'submariner-operator' }, data: { 'dns.ttl': '30' } });
    api.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other', namespace: 'kube-system' }, data: {} });
  });
  await eventually(() => watch.synced, 3000, 'sync');
  assert.deepEqual(sink.names(), ['submariner-operator/submariner-lighthouse-coredns']);
  // Lists of built-in types leave apiVersion/kind off the items; the sink still gets them.
  const cm = sink.state.get('submariner-operator/submariner-lighthouse-coredns');
  assert.equal(cm?.['apiVersion'], 'v1');
  assert.equal(cm?.['kind'], 'ConfigMap');
  assert.equal(api.requests[0]?.path, '/api/v1/namespaces/submariner-operator/configmaps');
});

test('the label selector filters the list, and label changes arrive as adds and removes', async (t) => {
  const { api, sink, watch } = await watchWith(t, endpointSlices, (api) => {
    api.apply(endpointSlice('mine', 'lighthouse-agent.submariner.io'));
    api.apply(endpointSlice('theirs', 'endpointslice-controller.k8s.io'));
  });
  await eventually(() => watch.synced && api.watchCount === 1, 3000, 'sync');
  assert.deepEqual(sink.names(), ['default/mine']);
  assert.equal(sink.state.get('default/mine')?.['kind'], 'EndpointSlice');
  assert.equal(sink.state.get('default/mine')?.['apiVersion'], 'discovery.k8s.io/v1');

  api.apply(endpointSlice('theirs', 'lighthouse-agent.submariner.io'));
  api.apply(endpointSlice('mine', 'someone-else'));
  api.apply(endpointSlice('unrelated', 'endpointslice-controller.k8s.io'));
  await eventually(() => sink.calls.length === 3, 3000, 'three sink calls');
  assert.deepEqual(sink.calls.slice(1), [
    { op: 'upsert', name: 'default/theirs' },
    { op: 'remove', name: 'default/mine' },
  ]);
  for (const request of api.requests) assert.equal(request.query['labelSelector'], `${managedBy}=lighthouse-agent.submariner.io`);
});

test('410 Gone makes the watch relist, and the sink gets the new state in one replace', async (t) => {
  const { api, sink, watch } = await watchWith(t, serviceImports, (api) => {
    api.apply(serviceImport('a'));
    api.apply(serviceImport('b'));
  });
  await eventually(() => watch.synced && api.watchCount === 1, 3000, 'sync');
  // Changes the client misses, then the history it would resume from is compacted away.
  api.silenceWatches();
  api.delete(serviceImport('a'));
  api.apply(serviceImport('c'));
  api.compact();
  api.dropConnections();
  await eventually(() => sink.calls.length === 2, 3000, 'relist');
  // No remove of 'a' and no empty list in between: readers never see a state the cluster never had.
  assert.deepEqual(sink.calls, [
    { op: 'replace', names: ['default/a', 'default/b'] },
    { op: 'replace', names: ['default/b', 'default/c'] },
  ]);
  assert.deepEqual(
    api.requests.map((r) => r.verb),
    ['list', 'watch', 'watch', 'list', 'watch'].slice(0, api.requests.length),
  );
  const gone = api.requests.filter((r) => r.verb === 'watch')[1];
  assert.equal(gone?.query['resourceVersion'], '3');
  assert.ok(watch.restarts >= 1);
  assert.equal(watch.synced, true);
});

test('bookmarks advance the resourceVersion, so a resumed watch needs no relist after compaction', async (t) => {
  const { api, sink, watch } = await watchWith(t, serviceImports, (api) => {
    api.apply(serviceImport('a'));
  });
  await eventually(() => watch.synced && api.watchCount === 1, 3000, 'sync');
  // Other resources change: the global resourceVersion moves on while this one stays quiet.
  const latest = api.bumpResourceVersion(40);
  assert.equal(api.bookmark(), 1);
  api.compact();
  // Ends the stream after the bookmark, in order, as the server-side timeout does.
  api.endWatches();
  await eventually(() => api.requests.filter((r) => r.verb === 'watch').length === 2 && api.watchCount === 1, 3000, 'second watch');
  const resumed = api.requests.filter((r) => r.verb === 'watch')[1];
  assert.equal(resumed?.query['resourceVersion'], latest);
  assert.equal(api.requests.filter((r) => r.verb === 'list').length, 1);
  api.apply(serviceImport('b'));
  await eventually(() => sink.calls.length === 2, 3000, 'upsert after resume');
  assert.deepEqual(sink.calls, [
    { op: 'replace', names: ['default/a'] },
    { op: 'upsert', name: 'default/b' },
  ]);
  assert.equal(watch.restarts, 0);
});

test('the server-side watch timeout ends a stream and the watch resumes without relisting', async (t) => {
  const { api, sink, watch } = await watchWith(t, serviceImports, (api) => api.apply(serviceImport('a')), { watchTimeoutSeconds: 1 });
  await eventually(() => watch.synced, 3000, 'sync');
  await eventually(() => api.requests.filter((r) => r.verb === 'watch').length === 2, 3000, 'second watch after timeout');
  api.apply(serviceImport('b'));
  await eventually(() => sink.names().length === 2, 3000, 'upsert');
  assert.equal(api.requests.filter((r) => r.verb === 'list').length, 1);
  assert.equal(watch.restarts, 0);
});

test('an optional resource that is not served is synced and empty, and is picked up once it appears', async (t) => {
  const v1beta1: ResourceSpec = { group: 'multicluster.x-k8s.io', version: 'v1beta1', plural: 'serviceimports', optional: true };
  const { api, sink, watch, lines } = await watchWith(t, v1beta1);
  await eventually(() => watch.synced, 3000, 'sync');
  assert.deepEqual(sink.calls, [{ op: 'replace', names: [] }]);
  assert.equal(api.requests[0]?.status, 404);
  assert.equal(lines.filter((l) => l.startsWith('[WARNING]')).length, 0);
  assert.match(lines[0] ?? '', /^\[INFO\] plugin\/lighthouse: watch serviceimports\.v1beta1\.multicluster\.x-k8s\.io: not served by the API server \(404\)/);

  // The CRD version gets installed: the slow re-check (backoffMaxMs) lists it.
  api.serve({ group: 'multicluster.x-k8s.io', version: 'v1beta1', plural: 'serviceimports', kind: 'ServiceImport' });
  api.apply({ ...serviceImport('nginx'), apiVersion: 'multicluster.x-k8s.io/v1beta1' });
  await eventually(() => sink.names().length === 1 && api.watchCount === 1, 3000, 'resource appears');
  assert.deepEqual(sink.calls.at(-1), { op: 'replace', names: ['default/nginx'] });

  // Removed again (CRD deleted): the open watch ends and the sink is emptied.
  api.unserve({ group: 'multicluster.x-k8s.io', version: 'v1beta1', plural: 'serviceimports' });
  await eventually(() => sink.names().length === 0, 3000, 'resource disappears');
  assert.deepEqual(sink.calls.at(-1), { op: 'replace', names: [] });
  assert.equal(watch.synced, true);
});

test('a required resource that is not served is retried and never reported synced', async (t) => {
  const missing: ResourceSpec = { group: 'submariner.io', version: 'v9', plural: 'gateways' };
  const { api, sink, watch, lines } = await watchWith(t, missing);
  await eventually(() => api.requests.length >= 3, 3000, 'retries');
  assert.equal(watch.synced, false);
  assert.deepEqual(sink.calls, []);
  assert.equal(lines.length, 1);
  assert.match(lines[0] ?? '', /^\[WARNING\] plugin\/lighthouse: watch gateways\.v9\.submariner\.io: list: 404 NotFound: the server could not find the requested resource; retrying in \d+ms$/);
});

test('a required resource removed after its first sync is emptied and stays synced, even when its watch missed the deletions', async (t) => {
  const { api, sink, watch, lines } = await watchWith(t, serviceImports);
  api.apply(serviceImport('a'));
  await eventually(() => sink.names().length === 1 && api.watchCount === 1, 3000, 'sync');
  // The CRD's deletion deletes its objects, which this watch does not hear of, then ends it.
  api.silenceWatches();
  api.delete(serviceImport('a'));
  api.unserve({ group: 'multicluster.x-k8s.io', version: 'v1alpha1', plural: 'serviceimports' });
  await eventually(() => sink.names().length === 0, 3000, 'emptied');
  assert.deepEqual(sink.calls.at(-1), { op: 'replace', names: [] });
  assert.equal(watch.synced, true);
  assert.ok(lines.some((l) => /^\[INFO\] .*: not served by the API server \(404\); treating it as empty/.test(l)), lines.join('\n'));
  api.serve({ group: 'multicluster.x-k8s.io', version: 'v1alpha1', plural: 'serviceimports', kind: 'ServiceImport' });
  api.apply(serviceImport('b'));
  await eventually(() => sink.names().join() === 'default/b' && api.watchCount === 1, 3000, 'back');
});

test('stop() closes every connection, leaves no handle open, and nothing logs or reaches the sink afterwards', async (t) => {
  // Sockets, servers, DNS and connect requests, and timers; transient requests (CloseReq,
  // FSReqCallback) come and go with the test runner's own work.
  const kinds = new Set(['TCPSocketWrap', 'TCPServerWrap', 'TLSWrap', 'TCPConnectWrap', 'GetAddrInfoReqWrap', 'Timeout']);
  const handles = (): string[] =>
    process
      .getActiveResourcesInfo()
      .filter((h) => kinds.has(h))
      .sort();
  const before = handles();
  const api = await startKubeApiServer();
  t.after(() => api.close());
  api.apply(serviceImport('a'));
  const { logger, lines } = captureLog();
  const sink = new RecordingSink();
  const watch = await startWatch({ endpoint: api.url }, serviceImports, sink, { logger, env: {}, ...fast });
  await eventually(() => watch.synced && api.watchCount === 1, 3000, 'sync');
  await watch.stop();
  await watch.stop();
  await eventually(() => api.watchCount === 0, 3000, 'server sees the watch closed');
  const callsAtStop = sink.calls.length;
  const linesAtStop = lines.length;
  // Trouble after stop() would produce warnings and relists if anything still ran.
  api.apply(serviceImport('b'));
  api.compact();
  await api.stop();
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(lines.length, linesAtStop);
  assert.equal(sink.calls.length, callsAtStop);
  assert.equal(api.requests.length, 2);
  await api.close();
  // At most what was open before (a server closed by the previous test may still be going away).
  const atMostBefore = (): boolean => [...kinds].every((k) => handles().filter((h) => h === k).length <= before.filter((h) => h === k).length);
  await eventually(atMostBefore, 3000, `handles back to [${before.join()}], not [${handles().join()}]`);
});

test('a list is read page by page and delivered as one replace; an expired continue token restarts it', async (t) => {
  const { api, sink, watch } = await watchWith(
    t,
    serviceImports,
    (api) => {
      for (const n of ['a', 'b', 'c', 'd', 'e']) api.apply(serviceImport(n));
      // The second page's continue token has expired (compaction between pages).
      api.failNext(410, { match: (r) => r.verb === 'list' && r.query['continue'] !== undefined });
    },
    { listPageSize: 2 },
  );
  await eventually(() => watch.synced && api.watchCount === 1, 3000, 'sync');
  assert.deepEqual(sink.calls, [{ op: 'replace', names: ['default/a', 'default/b', 'default/c', 'default/d', 'default/e'] }]);
  const lists = api.requests.filter((r) => r.verb === 'list');
  assert.deepEqual(
    lists.map((r) => [r.query['limit'], r.query['continue'] !== undefined, r.status]),
    [
      ['2', false, 200],
      ['2', true, 410],
      ['2', false, 200],
      ['2', true, 200],
      ['2', true, 200],
    ],
  );
  // Not an error worth a restart: the list simply starts over.
  assert.equal(watch.restarts, 0);
  const watchRequest = api.requests.find((r) => r.verb === 'watch');
  assert.equal(watchRequest?.query['resourceVersion'], '6');
});
