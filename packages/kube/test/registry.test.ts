/**
 * The shared informer registry against the test API server: one list+watch per identity,
 * reference counting across a reload, late subscribers (served by a relist: the registry keeps no
 * objects), lists in pages passed through, selectors, and failures that leave nothing behind.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { captureLog, eventually } from '@foghorn/testkit';
import { startKubeApiServer } from '@foghorn/testkit/kube';
import type { ApiObject, KubeApiServer } from '@foghorn/testkit/kube';
import {
  endpointSlicesResource,
  headlessLabel,
  InformerRegistry,
  informerRegistry,
  KubeConnectionError,
  namespacesResource,
  objectKey,
  podsResource,
  serviceImportsResource,
  servicesResource,
} from '../src/index.js';
import type { AcquireOptions, InformerLease, InformerSubscriber, KubeObject, Namespace } from '../src/index.js';
import type { SharedKey } from '@foghorn/core';

const fast = { backoffInitialMs: 10, backoffMaxMs: 80, watchTimeoutSeconds: 30, watchdogMs: 5000 } as const;

function options(): AcquireOptions & { lines: string[] } {
  const { logger, lines } = captureLog();
  return { logger: logger.forPlugin('kubernetes'), env: {}, ...fast, lines };
}

async function apiServer(t: TestContext): Promise<KubeApiServer> {
  const api = await startKubeApiServer();
  t.after(() => api.close());
  return api;
}

function service(name: string, namespace = 'default', clusterIP = '10.0.0.1'): ApiObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace }, spec: { clusterIP, ports: [{ name: 'http', port: 80, protocol: 'TCP' }] } };
}

function pod(name: string, phase: string, ip: string): ApiObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, status: { phase, podIP: ip, podIPs: [{ ip }] } };
}

/** Records what a subscriber was told, as `op name` strings. */
class Recorder implements InformerSubscriber {
  readonly events: string[] = [];
  replace(items: readonly KubeObject[]): void {
    this.events.push(`replace ${items.map((i) => i.metadata?.name).join(',')}`);
  }
  upsert(item: KubeObject): void {
    this.events.push(`upsert ${item.metadata?.name}`);
  }
  remove(item: KubeObject): void {
    this.events.push(`delete ${item.metadata?.name}`);
  }
  synced(): void {
    this.events.push('synced');
  }
}

test('two users of the same resource and selector share one list and one watch', async (t) => {
  const api = await apiServer(t);
  api.apply(service('a'));
  const registry = new InformerRegistry();
  const connection = { endpoint: api.url };
  const first = new Recorder();
  const second = new Recorder();
  const [one, two] = await Promise.all([
    registry.acquire(connection, servicesResource(), first, options()),
    registry.acquire({ endpoint: `${api.url}/` }, servicesResource(), second, options()),
  ]);
  t.after(() => Promise.all([one.release(), two.release()]));
  assert.equal(one.key, two.key);
  await eventually(() => one.synced && api.watchCount === 1, 3000, 'sync');
  api.apply(service('b'));
  api.apply(service('a', 'default', '10.0.0.2'));
  api.delete(service('b'));
  await eventually(() => second.events.length === 5, 3000, 'four events');
  for (const recorder of [first, second]) assert.deepEqual(recorder.events, ['replace a', 'synced', 'upsert b', 'upsert a', 'delete b']);
  assert.deepEqual(api.requestCounts('list'), { '/api/v1/services': 1 });
  assert.deepEqual(api.requestCounts('watch'), { '/api/v1/services': 1 });
  assert.deepEqual(registry.list().map((i) => [i.resource.plural, i.users, i.subscribers]), [['services', 2, 2]]);
});

test('a list of many pages reaches subscribers page by page, and one without part() as a whole', async (t) => {
  const api = await apiServer(t);
  for (let i = 0; i < 5; i++) api.apply(service(`s${i}`));
  const registry = new InformerRegistry();
  const paged: string[] = [];
  const pager: InformerSubscriber = {
    part: (items, first) => paged.push(`part${first ? ' first' : ''} ${items.map((i) => i.metadata?.name).join(',')}`),
    replace: (items) => paged.push(`replace ${items.map((i) => i.metadata?.name).join(',')}`),
    upsert: () => {},
    remove: () => {},
  };
  const whole = new Recorder();
  const leases = await Promise.all([registry.acquire({ endpoint: api.url }, servicesResource(), pager, { ...options(), listPageSize: 2 }), registry.acquire({ endpoint: api.url }, servicesResource(), whole, options())]);
  t.after(() => Promise.all(leases.map((l) => l.release())));
  await eventually(() => leases.every((l) => l.synced), 3000, 'sync');
  assert.deepEqual(paged, ['part first s0,s1', 'part s2,s3', 'replace s4']);
  assert.deepEqual(whole.events, ['replace s0,s1,s2,s3,s4', 'synced']);
});

test('a different namespace, label selector or field selector is a watch of its own', async (t) => {
  const api = await apiServer(t);
  const registry = new InformerRegistry();
  const connection = { endpoint: api.url };
  const headless = `${headlessLabel}=`;
  const leases = await Promise.all([
    registry.acquire(connection, endpointSlicesResource(), undefined, options()),
    registry.acquire(connection, endpointSlicesResource({ labelSelector: headless }), undefined, options()),
    registry.acquire(connection, endpointSlicesResource({ labelSelector: headless }), undefined, options()),
    registry.acquire(connection, endpointSlicesResource({ namespace: 'kube-system' }), undefined, options()),
    registry.acquire(connection, podsResource({ fieldSelector: 'status.phase!=Failed' }), undefined, options()),
  ]);
  t.after(() => Promise.all(leases.map((l) => l.release())));
  await eventually(() => leases.every((l) => l.synced) && api.watchCount === 4, 3000, 'four watches');
  assert.deepEqual(api.openWatches(), {
    '/apis/discovery.k8s.io/v1/endpointslices': 1,
    [`/apis/discovery.k8s.io/v1/endpointslices?labelSelector=${headless}`]: 1,
    '/apis/discovery.k8s.io/v1/namespaces/kube-system/endpointslices': 1,
    '/api/v1/pods?fieldSelector=status.phase!=Failed': 1,
  });
});

test('the store and the subscribers get objects without managedFields and the last-applied copy', async (t) => {
  const api = await apiServer(t);
  const bulky = (name: string): ApiObject => ({
    ...service(name),
    metadata: {
      name,
      namespace: 'default',
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify(service(name)), keep: 'me' },
      managedFields: [{ manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:spec': {} } }],
    },
  });
  api.apply(bulky('a'));
  const seen: KubeObject[] = [];
  const lease = await new InformerRegistry().acquire({ endpoint: api.url }, servicesResource(), { replace: (items) => seen.push(...items), upsert: (item) => seen.push(item), remove: () => {} }, options());
  t.after(() => lease.release());
  await eventually(() => lease.synced && api.watchCount === 1, 3000, 'sync');
  api.apply(bulky('b'));
  await eventually(() => seen.length === 2, 3000, 'an event');
  for (const object of seen) {
    assert.deepEqual(Object.keys(object.metadata ?? {}).sort(), ['annotations', 'name', 'namespace', 'resourceVersion', 'uid']);
    assert.deepEqual(object.metadata?.annotations, { keep: 'me' });
  }
});

test('a field selector filters the list and the watch; a field change moves the object in or out', async (t) => {
  const api = await apiServer(t);
  api.apply(pod('running', 'Running', '10.1.0.1'));
  api.apply(pod('failed', 'Failed', '10.1.0.2'));
  const registry = new InformerRegistry();
  const recorder = new Recorder();
  const lease = await registry.acquire({ endpoint: api.url }, podsResource({ fieldSelector: 'status.phase!=Succeeded,status.phase!=Failed' }), recorder, options());
  t.after(() => lease.release());
  await eventually(() => lease.synced && api.watchCount === 1, 3000, 'sync');
  api.apply(pod('running', 'Failed', '10.1.0.1'));
  api.apply(pod('failed', 'Running', '10.1.0.2'));
  await eventually(() => recorder.events.length === 4, 3000, 'two events');
  assert.deepEqual(recorder.events, ['replace running', 'synced', 'delete running', 'upsert failed']);
});

test('cluster-scoped Namespaces with a label selector are keyed by name alone', async (t) => {
  const api = await apiServer(t);
  api.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'prod', labels: { env: 'prod' } } });
  api.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dev', labels: { env: 'dev' } } });
  const seen: Namespace[] = [];
  const subscriber: InformerSubscriber<Namespace> = { replace: (items) => seen.push(...items), upsert: () => {}, remove: () => {} };
  const lease = await new InformerRegistry().acquire({ endpoint: api.url }, namespacesResource({ labelSelector: 'env=prod' }), subscriber, options());
  t.after(() => lease.release());
  await eventually(() => lease.synced, 3000, 'sync');
  assert.deepEqual(seen.map(objectKey), ['/prod']);
  assert.equal(seen[0]?.metadata?.labels?.['env'], 'prod');
  assert.equal(api.requests[0]?.path, '/api/v1/namespaces');
});

test('a subscriber that comes later gets the current state from a relist, then the events', async (t) => {
  const api = await apiServer(t);
  api.apply(service('a'));
  const registry = new InformerRegistry();
  const early = new Recorder();
  const first = await registry.acquire({ endpoint: api.url }, servicesResource(), early, options());
  t.after(() => first.release());
  await eventually(() => first.synced && api.watchCount === 1, 3000, 'sync');
  const late = new Recorder();
  const second = await registry.acquire({ endpoint: api.url }, servicesResource(), late, options());
  t.after(() => second.release());
  // Not synced until its own first list: no copy of the objects is kept to replay.
  assert.equal(second.synced, false);
  await eventually(() => second.synced, 3000, 'the relist');
  assert.deepEqual(late.events, ['replace a', 'synced']);
  // The earlier subscriber gets the relist too: the same state again.
  assert.deepEqual(early.events, ['replace a', 'synced', 'replace a']);
  assert.equal(first.restarts, 0);
  await eventually(() => api.watchCount === 1, 3000, 'watching again');
  api.apply(service('b'));
  await eventually(() => late.events.length === 3, 3000, 'an event');
  assert.equal(late.events[2], 'upsert b');
  assert.deepEqual(api.requestCounts('list'), { '/api/v1/services': 2 });
});

test('a subscriber joining while a paged list is under way gets a whole list, never its tail', async (t) => {
  const api = await apiServer(t);
  for (let i = 0; i < 6; i++) api.apply(service(`s${i}`));
  const registry = new InformerRegistry();
  const early = new Recorder();
  const late = new Recorder();
  let joined: Promise<InformerLease> | undefined;
  const pager: InformerSubscriber = {
    // The second acquire lands between the first list's pages.
    part: () => {
      joined ??= registry.acquire({ endpoint: api.url }, servicesResource(), late, options());
    },
    replace: () => {},
    upsert: () => {},
    remove: () => {},
  };
  const one = await registry.acquire({ endpoint: api.url }, servicesResource(), pager, { ...options(), listPageSize: 2 });
  const two = await registry.acquire({ endpoint: api.url }, servicesResource(), early, options());
  t.after(async () => Promise.all([one.release(), two.release(), (await joined)?.release()]));
  await eventually(() => joined !== undefined && late.events.length >= 2, 3000, 'the late subscriber synced');
  assert.deepEqual(late.events, ['replace s0,s1,s2,s3,s4,s5', 'synced']);
  assert.deepEqual(early.events.slice(0, 2), ['replace s0,s1,s2,s3,s4,s5', 'synced']);
});

test('a reload acquires before it releases: the watch stays, the new subscriber gets a relist; the last release stops it', async (t) => {
  const api = await apiServer(t);
  const registry = new InformerRegistry();
  const old = new Recorder();
  const before = await registry.acquire({ endpoint: api.url }, servicesResource(), old, options());
  await eventually(() => before.synced && api.watchCount === 1, 3000, 'sync');
  // The new configuration's startup, then the old one's shutdown.
  const after = new Recorder();
  const kept = await registry.acquire({ endpoint: api.url }, servicesResource(), after, options());
  await before.release();
  await before.release();
  await eventually(() => kept.synced && api.watchCount === 1, 3000, 'the relist and the watch after it');
  api.apply(service('a'));
  await eventually(() => after.events.length === 3, 3000, 'an event for the new subscriber');
  assert.deepEqual(old.events, ['replace ', 'synced']);
  assert.deepEqual(after.events, ['replace ', 'synced', 'upsert a']);
  assert.deepEqual(api.requestCounts('list'), { '/api/v1/services': 2 });
  assert.equal(api.watchCount, 1);
  await kept.release();
  assert.deepEqual(registry.list(), []);
  await eventually(() => api.watchCount === 0, 3000, 'the watch closed');
  // Acquired again after everyone let go: a fresh informer lists again.
  const fresh = new Recorder();
  const again = await registry.acquire({ endpoint: api.url }, servicesResource(), fresh, options());
  t.after(() => again.release());
  await eventually(() => again.synced, 3000, 'sync');
  assert.deepEqual(api.requestCounts('list'), { '/api/v1/services': 3 });
  assert.deepEqual(fresh.events, ['replace a', 'synced']);
});

test('restarts count per lease from its acquisition; the informer logs through the first logger', async (t) => {
  const api = await apiServer(t);
  const registry = new InformerRegistry();
  const first = options();
  const one = await registry.acquire({ endpoint: api.url }, servicesResource(), undefined, first);
  t.after(() => one.release());
  await eventually(() => one.synced && api.watchCount === 1, 3000, 'sync');
  api.dropConnections();
  await eventually(() => one.restarts >= 1 && api.watchCount === 1, 3000, 'a restart');
  const second = options();
  const two = await registry.acquire({ endpoint: api.url }, servicesResource(), undefined, second);
  t.after(() => two.release());
  assert.equal(two.restarts, 0);
  assert.equal(second.lines.length, 0);
  assert.match(first.lines.join('\n'), /^\[WARNING\] plugin\/kubernetes: watch services\.v1: watch: /m);
});

test('an optional resource the API server lacks is synced and empty for every subscriber', async (t) => {
  const api = await apiServer(t);
  const registry = new InformerRegistry();
  const recorder = new Recorder();
  const lease = await registry.acquire({ endpoint: api.url }, serviceImportsResource({}, 'v1beta1'), recorder, options());
  t.after(() => lease.release());
  await eventually(() => lease.synced, 3000, 'sync');
  assert.deepEqual(recorder.events, ['replace ', 'synced']);
});

test('a subscriber that throws does not keep the others from their events', async (t) => {
  const api = await apiServer(t);
  const registry = new InformerRegistry();
  const opts = options();
  const broken: InformerSubscriber = {
    replace: () => {},
    upsert: () => {
      throw new Error('broken subscriber');
    },
    remove: () => {},
  };
  const recorder = new Recorder();
  const one = await registry.acquire({ endpoint: api.url }, servicesResource(), broken, opts);
  const two = await registry.acquire({ endpoint: api.url }, servicesResource(), recorder, options());
  t.after(() => Promise.all([one.release(), two.release()]));
  await eventually(() => one.synced && api.watchCount === 1, 3000, 'sync');
  api.apply(service('a'));
  api.apply(service('b'));
  await eventually(() => recorder.events.length === 4, 3000, 'both events');
  assert.deepEqual(recorder.events.slice(2), ['upsert a', 'upsert b']);
  assert.match(opts.lines[0] ?? '', /^\[ERROR\] plugin\/kubernetes: watch services\.v1: sink upsert failed: broken subscriber$/);
});

test('a connection that cannot be resolved rejects every acquire and leaves nothing running', async () => {
  const registry = new InformerRegistry();
  const opts = { ...options(), serviceAccountDir: '/nonexistent' };
  await assert.rejects(registry.acquire({}, servicesResource(), undefined, opts), KubeConnectionError);
  await assert.rejects(registry.acquire({}, servicesResource(), undefined, opts), KubeConnectionError);
  await assert.rejects(registry.connect({ endpoint: 'ftp://x' }), KubeConnectionError);
  assert.deepEqual(registry.list(), []);
});

test('informerRegistry(c) keeps one registry in core shared state', () => {
  const shared = new Map<SharedKey<unknown>, unknown>();
  const c = {
    shared<T>(key: SharedKey<T>, create: () => T): T {
      if (!shared.has(key)) shared.set(key, create());
      return shared.get(key) as T;
    },
  };
  const registry = informerRegistry(c);
  assert.ok(registry instanceof InformerRegistry);
  assert.equal(informerRegistry(c), registry);
});
