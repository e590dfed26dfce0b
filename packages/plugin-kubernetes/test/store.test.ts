/**
 * Which changes move the SOA serial (CoreDNS controller.go `updateModified`, controller_test.go
 * `TestServiceModified`, `TestPodModified`, `TestDetectChangesPodUpdate`), fed to the index's
 * sinks with an injected clock.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ClusterStore } from '../src/index.js';
import { endpointSlice, mcSlice, pod, service, serviceImport } from './fixtures.js';

const http = { name: 'http', protocol: 'TCP', port: 80 };
const withRv = <T extends { metadata: object }>(o: T, rv: string): T => ({ ...o, metadata: { ...o.metadata, resourceVersion: rv } });

function clocked(): { store: ClusterStore; tick: () => void } {
  let now = 1000;
  return { store: new ClusterStore({ now: () => now }), tick: () => void now++ };
}

test('services: adds and deletes move the serial; port or ExternalName changes do, a ClusterIP change does not', () => {
  const { store, tick } = clocked();
  store.serviceSink.upsert(withRv(service('s', 'ns', { clusterIPs: ['10.0.0.1'], ports: [http] }), '1'));
  assert.equal(store.serial('internal'), 1000);
  tick();
  store.serviceSink.upsert(withRv(service('s', 'ns', { clusterIPs: ['10.0.0.2'], ports: [http] }), '2'));
  assert.equal(store.serial('internal'), 1000, 'ClusterIP changes are not counted (upstream quirk)');
  assert.deepEqual([...store.services.byIp.keys()], ['10.0.0.2'], 'but the index has the new address');
  store.serviceSink.upsert(withRv(service('s', 'ns', { clusterIPs: ['10.0.0.2'], ports: [{ ...http, port: 8080 }] }), '3'));
  assert.equal(store.serial('internal'), 1001);
  tick();
  store.serviceSink.upsert(withRv(service('s', 'ns', { clusterIPs: ['10.0.0.2'], ports: [{ ...http, port: 9090 }] }), '3'));
  assert.equal(store.serial('internal'), 1001, 'an unchanged resourceVersion is ignored');
  store.serviceSink.remove(service('s', 'ns', {}));
  assert.equal(store.serial('internal'), 1002);
});

test('endpoint slices: address, hostname and port changes move the serial; readiness-neutral changes keep the cache', () => {
  const { store, tick } = clocked();
  store.sliceSink.upsert(withRv(endpointSlice('s-1', 'ns', 's', [{ ip: '10.1.0.1' }], [http]), '1'));
  tick();
  const generation = store.generation;
  store.sliceSink.upsert(withRv(endpointSlice('s-1', 'ns', 's', [{ ip: '10.1.0.1' }, { ip: '10.1.0.2', ready: false }], [http]), '2'));
  assert.equal(store.serial('internal'), 1000);
  assert.equal(store.generation, generation, 'an unready endpoint changes no answer');
  store.sliceSink.upsert(withRv(endpointSlice('s-1', 'ns', 's', [{ ip: '10.1.0.1', hostname: 'h' }], [http]), '3'));
  assert.equal(store.serial('internal'), 1001);
  assert.ok(store.generation > generation);
});

test('pods: only a changed podIP moves the serial (v1.14.7); a terminating pod is kept until deleted', () => {
  const { store, tick } = clocked();
  store.podSink.upsert(withRv(pod('p', 'ns', '10.2.0.1'), '1'));
  tick();
  store.podSink.upsert(withRv({ ...pod('p', 'ns', '10.2.0.1'), metadata: { name: 'p', namespace: 'ns', labels: { a: 'b' } } }, '2'));
  assert.equal(store.serial('internal'), 1000);
  store.podSink.upsert(withRv(pod('p', 'ns', '10.2.0.9'), '3'));
  assert.equal(store.serial('internal'), 1001);
  store.podSink.upsert(withRv(pod('p', 'ns', '10.2.0.9', 'Running', { deletionTimestamp: '2026-01-01T00:00:00Z' }), '4'));
  assert.ok(store.pods.byIp.has('10.2.0.9'));
  store.podSink.remove(pod('p', 'ns', ''));
  assert.equal(store.pods.byIp.size, 0);
});

test('multicluster: import and slice adds move the internal clock, their updates the multicluster one', () => {
  const { store, tick } = clocked();
  store.serviceImportSink.upsert(withRv(serviceImport('s', 'ns', { ips: ['1.1.1.1'], ports: [http] }), '1'));
  store.mcSliceSink.upsert(withRv(mcSlice('s-c1', 'ns', 's', 'c1', [{ ip: '10.3.0.1' }], [http]), '2'));
  assert.deepEqual([store.serial('internal'), store.serial('multicluster')], [1000, 0]);
  tick();
  store.serviceImportSink.upsert(withRv(serviceImport('s', 'ns', { type: 'Headless', ports: [http] }), '3'));
  assert.equal(store.serial('multicluster'), 1001);
  tick();
  store.mcSliceSink.upsert(withRv(mcSlice('s-c1', 'ns', 's', 'c2', [{ ip: '10.3.0.1' }], [http]), '4'));
  assert.equal(store.serial('multicluster'), 1002, 'a cluster id change counts');
  assert.equal(store.serial('internal'), 1000);
});

test('a relist replaces: objects missing from it are deleted', () => {
  const { store } = clocked();
  store.serviceSink.replace([service('a', 'ns', { clusterIPs: ['10.0.0.1'] }), service('b', 'ns', { clusterIPs: ['10.0.0.2'] })]);
  store.serviceSink.replace([service('b', 'ns', { clusterIPs: ['10.0.0.2'] })]);
  // Services are keyed by the name they are looked up by.
  assert.deepEqual([...store.services.byKey.keys()], ['b.ns']);
});

test('with zonal, an endpoint changing zone moves the serial; without, it does not', () => {
  for (const zonal of [true, false]) {
    let now = 1000;
    const store = new ClusterStore({ now: () => now, zonal });
    store.sliceSink.upsert(withRv(endpointSlice('s-1', 'ns', 's', [{ ip: '10.1.0.1', zone: 'a' }], [http]), '1'));
    now++;
    store.sliceSink.upsert(withRv(endpointSlice('s-1', 'ns', 's', [{ ip: '10.1.0.1', zone: 'b' }], [http]), '2'));
    assert.equal(store.serial('internal'), zonal ? 1001 : 1000, `zonal ${zonal}`);
  }
});

test('index groups: two slices of a service and a shared IP are found, moved and dropped without leaving empty groups', () => {
  const { store } = clocked();
  store.sliceSink.upsert(withRv(endpointSlice('s-1', 'ns', 's', [{ ip: '10.1.0.1' }, { ip: '10.1.0.1' }], [http]), '1'));
  store.sliceSink.upsert(withRv(endpointSlice('s-2', 'ns', 's', [{ ip: '10.1.0.1' }, { ip: '10.1.0.2' }], [http]), '2'));
  assert.deepEqual(store.slices.inIndex('s.ns').map((s) => s.key), ['ns/s-1', 'ns/s-2']);
  assert.deepEqual(store.slices.atIp('10.1.0.1').map((s) => s.key), ['ns/s-1', 'ns/s-2'], 'a slice listing an IP twice is in its group once');
  assert.ok(Array.isArray(store.slices.byIp.get('10.1.0.1')));
  assert.ok(!Array.isArray(store.slices.byIp.get('10.1.0.2')), 'a group of one is the slice itself');
  store.sliceSink.upsert(withRv(endpointSlice('s-1', 'ns', 's', [{ ip: '10.1.0.3' }], [http]), '3'));
  assert.deepEqual(store.slices.atIp('10.1.0.1').map((s) => s.key), ['ns/s-2']);
  assert.ok(!Array.isArray(store.slices.byIp.get('10.1.0.1')), 'a group down to one is the slice again');
  assert.deepEqual(store.slices.inIndex('s.ns').map((s) => s.key), ['ns/s-2', 'ns/s-1'], 'an update re-enters the group');
  store.sliceSink.remove(endpointSlice('s-1', 'ns', 's', [], []));
  store.sliceSink.remove(endpointSlice('s-2', 'ns', 's', [], []));
  assert.equal(store.slices.byIndex.size, 0);
  assert.equal(store.slices.byIp.size, 0);
});

test('a slice keeps its endpoints as columns: hostnames only when one has a name, pod names and zones only for the options that read them', () => {
  const endpoints = [{ ip: '10.1.0.1' }, { ip: '10.1.0.2', hostname: 'web-1', zone: 'Z1', pod: 'web-1-x7k2p' }];
  const plain = new ClusterStore();
  plain.sliceSink.upsert(endpointSlice('s-1', 'ns', 's', [{ ip: '10.1.0.1' }], [http]));
  assert.deepEqual(plain.slices.get('ns/s-1'), { key: 'ns/s-1', namespace: 'ns', index: 's.ns', ports: [http], ips: ['10.1.0.1'], hostnames: null, podNames: null, zones: null, cluster: '', rv: undefined });
  plain.sliceSink.upsert(endpointSlice('s-1', 'ns', 's', endpoints, [http]));
  const slice = plain.slices.get('ns/s-1')!;
  assert.deepEqual([slice.ips, slice.hostnames, slice.podNames, slice.zones], [['10.1.0.1', '10.1.0.2'], ['', 'web-1'], null, null]);
  const reading = new ClusterStore({ zonal: true, podNames: true });
  reading.sliceSink.upsert(endpointSlice('s-1', 'ns', 's', endpoints, [http]));
  const read = reading.slices.get('ns/s-1')!;
  assert.deepEqual(read.zones, ['', 'z1']);
  assert.deepEqual(read.podNames, ['', 'web-1-x7k2p']);
  // Equal port lists are one list.
  plain.sliceSink.upsert(endpointSlice('s-2', 'ns', 't', [{ ip: '10.1.0.3' }], [http]));
  assert.equal(plain.slices.get('ns/s-2')!.ports, plain.slices.get('ns/s-1')!.ports);
});

test('external addresses (k8s_external): kept only where a service has some; updates of them, or of any port, move the external clock', () => {
  const { store, tick } = clocked();
  const lb = (ips: string[], ingress: object[], ports = [http]): ReturnType<typeof service> => {
    const base = service('lb', 'ns', { clusterIPs: ['10.0.0.1'], type: 'LoadBalancer', ports });
    return { ...base, spec: { ...(base['spec'] as object), externalIPs: ips }, status: { loadBalancer: { ingress } } };
  };
  store.serviceSink.upsert(withRv(service('plain', 'ns', { clusterIPs: ['10.0.0.2'], ports: [http] }), '1'));
  store.serviceSink.upsert(withRv(lb(['192.0.2.1'], [{ ip: '192.0.2.2' }, { hostname: 'lb.example' }]), '2'));
  assert.deepEqual(store.services.get('lb.ns')?.external, ['192.0.2.1', '192.0.2.2', 'lb.example'], 'externalIPs, then each ingress IP or else hostname');
  assert.equal(store.services.get('plain.ns')?.external.length, 0);
  assert.deepEqual(store.servicesByExternalIp('192.0.2.2').map((s) => s.key), ['lb.ns']);
  assert.equal(store.serial('external'), 0, 'adds move only the internal clock (controller.go Add)');
  tick();
  store.serviceSink.upsert(withRv(lb(['192.0.2.1'], [{ ip: '192.0.2.3' }]), '3'));
  assert.equal(store.serial('external'), 1001);
  assert.deepEqual(store.servicesByExternalIp('192.0.2.2'), [], 'the old address is gone from the reverse index');
  tick();
  store.serviceSink.upsert(withRv(lb(['192.0.2.1'], [{ ip: '192.0.2.3' }], [{ ...http, port: 8080 }]), '4'));
  assert.equal(store.serial('external'), 1002, 'a port change');
  tick();
  store.serviceSink.upsert(withRv(service('plain', 'ns', { clusterIPs: ['10.0.0.3'], ports: [http] }), '5'));
  assert.equal(store.serial('external'), 1002, 'a ClusterIP change does not');
  store.serviceSink.upsert(withRv(service('plain', 'ns', { clusterIPs: ['10.0.0.3'], ports: [{ ...http, port: 8080 }] }), '6'));
  assert.equal(store.serial('external'), 1003, "any service's port change does, external addresses or not (serviceModified: true, true)");
  tick();
  store.serviceSink.remove(service('lb', 'ns', {}));
  assert.equal(store.serial('external'), 1003, 'deletes move only the internal clock (controller.go Delete)');
  assert.deepEqual(store.servicesByExternalIp('192.0.2.3'), []);
});
