/**
 * Lighthouse's coredns/resolver tests at the state level: objects go into the store as watch
 * events, names are looked up in the answer table exactly as the handler does.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gateway, http, https, model, pop3, serviceImport, serviceSlice, slice, smtp, submariner } from './fixtures.js';

const Z = 'clusterset.local';
const svc = `svc1.ns1.svc.${Z}`;
const SIP1 = '192.168.56.21';
const SIP2 = '192.168.56.22';
const SIP3 = '192.168.56.23';
const EIP = (n: number): string => `100.96.157.${100 + n}`;

const si = (ports = [http]): ReturnType<typeof serviceImport> => serviceImport('svc1', 'ns1', { ports });
const eps = (cluster: string, ip: string, ports = [http], ready = true): ReturnType<typeof serviceSlice> => serviceSlice('svc1', 'ns1', cluster, ip, ports, ready);
const times = <T>(n: number, look: () => T): T[] => Array.from({ length: n }, look);

test('one ClusterIP cluster: consistent answers, health and connectivity only affect the bare name', () => {
  const m = model();
  m.upsert(si(), eps('c1', SIP1));
  assert.deepEqual(times(5, () => m.look(svc).data), times(5, () => [SIP1]));
  assert.deepEqual(m.look(`c1.${svc}`).data, [SIP1]);
  m.upsert(submariner(), gateway('', []));
  assert.deepEqual(m.look(svc), { rcode: 'NOERROR', data: [] });
  assert.deepEqual(m.look(`c1.${svc}`).data, [SIP1]);
  m.remove(submariner());
  m.upsert(eps('c1', SIP1, [http], false));
  assert.deepEqual(m.look(svc), { rcode: 'NOERROR', data: [] });
  assert.deepEqual(m.look(`c1.${svc}`).data, [SIP1]);
  m.upsert(eps('c1', SIP2, [pop3]));
  assert.deepEqual(m.look(svc).data, [SIP2]);
  assert.deepEqual(m.look(svc, 'SRV').data, [`110 ${svc}`]);
  assert.equal(m.look(`non-existent.${svc}`).rcode, 'NXDOMAIN');
});

test('two ClusterIP clusters: round robin, local preference, connectivity and health', () => {
  const m = model();
  m.upsert(si(), eps('c1', SIP1), eps('c2', SIP2));
  const first = [m.look(svc).data[0], m.look(svc).data[0]];
  assert.notEqual(first[0], first[1]);
  for (let i = 0; i < 5; i++) assert.deepEqual([m.look(svc).data[0], m.look(svc).data[0]], first);

  const local = model({ clusterId: 'c1' });
  local.upsert(si(), eps('c1', SIP1), eps('c2', SIP2));
  assert.deepEqual(times(10, () => local.look(svc).data), times(10, () => [SIP1]));

  m.upsert(submariner(), gateway('', [['c2', 'connected']]));
  assert.deepEqual(times(10, () => m.look(svc).data), times(10, () => [SIP2]));
  assert.deepEqual(m.look(`c1.${svc}`).data, [SIP1]);
  assert.deepEqual(m.look(`c2.${svc}`).data, [SIP2]);
  m.upsert(gateway('', [['c2', 'error']]));
  assert.deepEqual(m.look(svc).data, []);

  const health = model();
  health.upsert(si(), eps('c1', SIP1), eps('c2', SIP2, [http], false));
  assert.deepEqual(times(10, () => health.look(svc).data), times(10, () => [SIP1]));
  assert.deepEqual(health.look(`c2.${svc}`).data, [SIP2]);
  health.upsert(eps('c2', SIP2));
  health.remove(eps('c2', SIP2));
  assert.deepEqual(times(10, () => health.look(svc).data), times(10, () => [SIP1]));

  const unknownLocal = model({ clusterId: 'non-existent' });
  unknownLocal.upsert(si(), eps('c1', SIP1), eps('c2', SIP2));
  assert.notEqual(unknownLocal.look(svc).data[0], unknownLocal.look(svc).data[0]);
});

test('three ClusterIP clusters: round robin over three with merged ports, then over what remains', () => {
  const m = model();
  m.upsert(si(), eps('c1', SIP1), eps('c2', SIP2, [http, pop3]), eps('c3', SIP3));
  const cycle = [m.look(svc).data[0], m.look(svc).data[0], m.look(svc).data[0]];
  assert.deepEqual([...cycle].sort(), [SIP1, SIP2, SIP3]);
  for (let i = 0; i < 3; i++) assert.deepEqual([m.look(svc).data[0], m.look(svc).data[0], m.look(svc).data[0]], cycle);
  assert.deepEqual(times(10, () => m.look(svc, 'SRV').data), times(10, () => [`8080 ${svc}`]));
  assert.deepEqual(m.look(`c2.${svc}`, 'SRV').data, [`8080 c2.${svc}`, `110 c2.${svc}`]);

  m.upsert(submariner(), gateway('', [['c1', 'connected'], ['c2', 'connected']]));
  assert.deepEqual(new Set(times(6, () => m.look(svc).data[0]!)), new Set([SIP1, SIP2]));
  m.remove(submariner());

  m.upsert(eps('c2', SIP2, [http, pop3], false));
  const without = times(5, () => m.look(svc).data[0]!);
  assert.deepEqual(new Set(without), new Set([SIP1, SIP3]));
  m.upsert(eps('c2', SIP2, [http, pop3], true));
  assert.deepEqual(new Set(times(6, () => m.look(svc).data[0]!)), new Set([SIP1, SIP2, SIP3]));

  // Only explicit entries change a cluster's state (docs/compatibility.md, "Cluster selection"): c2 must be reported in error.
  m.upsert(submariner(), gateway('', [['c1', 'connected'], ['c2', 'error'], ['c3', 'connected']]), eps('c3', SIP3, [http], false));
  assert.deepEqual(times(5, () => m.look(svc).data), times(5, () => [SIP1]));
});

test('the same service name in two namespaces, and slices before their ServiceImport', () => {
  const m = model();
  m.upsert(serviceSlice('svc1', 'ns1', 'c1', SIP1, []));
  assert.equal(m.look(`c1.${svc}`).rcode, 'NXDOMAIN');
  m.upsert(si([]), serviceImport('svc1', 'ns2'), serviceSlice('svc1', 'ns2', 'c1', SIP2, []));
  assert.deepEqual(m.look(`c1.${svc}`).data, [SIP1]);
  assert.deepEqual(m.look(`c1.svc1.ns2.svc.${Z}`).data, [SIP2]);
});

test('per-cluster and broker copies of a ServiceImport are ignored', () => {
  const m = model();
  m.upsert(
    serviceImport('svc1', 'submariner-operator', { labels: { 'multicluster.kubernetes.io/service-name': 'svc1' } }),
    serviceImport('svc2', 'ns1', { annotations: { 'multicluster.kubernetes.io/service-name': 'svc2' } }),
    serviceSlice('svc2', 'ns1', 'c1', SIP1, []),
  );
  assert.equal(m.look(`svc1.submariner-operator.svc.${Z}`).rcode, 'NXDOMAIN');
  assert.equal(m.look(`c1.svc2.ns1.svc.${Z}`).rcode, 'NXDOMAIN');
});

test('a clusterset IP answers the bare name with the ServiceImport ports; cluster names keep their own', () => {
  const m = model();
  m.upsert(serviceImport('svc1', 'ns1', { ips: ['243.1.0.1'], ports: [http, pop3] }), eps('c1', SIP1, [http]), eps('c2', SIP2, [pop3]));
  assert.deepEqual(m.look(svc).data, ['243.1.0.1']);
  assert.deepEqual(m.look(svc, 'SRV').data, [`8080 ${svc}`, `110 ${svc}`]);
  assert.deepEqual(m.look(`c1.${svc}`, 'SRV').data, [`8080 c1.${svc}`]);
});

const hsi = serviceImport('svc1', 'ns1', { type: 'Headless', ports: [http] });

test('headless, one cluster: not-ready endpoints only with publish-not-ready, and addresses de-duplicated', () => {
  const endpoints = [
    { addresses: [EIP(1)], ready: true },
    { addresses: [EIP(2)], ready: false },
    { addresses: [EIP(3)], ready: true },
    { addresses: [EIP(4)], ready: false },
  ];
  for (const [publishNotReady, want] of [
    [undefined, [EIP(1), EIP(3)]],
    [false, [EIP(1), EIP(3)]],
    [true, [EIP(1), EIP(2), EIP(3), EIP(4)]],
  ] as const) {
    const m = model();
    m.upsert(hsi, slice({ service: 'svc1', namespace: 'ns1', cluster: 'c1', headless: true, endpoints, ports: [http], ...(publishNotReady === undefined ? {} : { publishNotReady }) }));
    assert.deepEqual(m.look(svc).data.sort(), [...want]);
  }
  const m = model();
  m.upsert(
    hsi,
    slice({ service: 'svc1', namespace: 'ns1', cluster: 'c1', name: 'a', headless: true, endpoints: [{ addresses: [EIP(1), EIP(2), EIP(3)] }], ports: [http] }),
    slice({ service: 'svc1', namespace: 'ns1', cluster: 'c1', name: 'b', headless: true, endpoints: [{ addresses: [EIP(1), EIP(3), EIP(4)] }], ports: [http] }),
  );
  assert.deepEqual(m.look(svc).data.sort(), [EIP(1), EIP(2), EIP(3), EIP(4)]);
});

test('headless, three clusters: union of connected clusters, cluster and host names, dashed-address hosts', () => {
  const m = model();
  const c3 = slice({
    service: 'svc1',
    namespace: 'ns1',
    cluster: 'c3',
    headless: true,
    ports: [https, smtp],
    endpoints: [{ addresses: [EIP(3), EIP(4)], hostname: 'host1', ready: true }, { addresses: [EIP(5)] }, { addresses: [EIP(6)], targetRef: { kind: 'Pod', name: 'host2' } }],
  });
  m.upsert(
    hsi,
    slice({ service: 'svc1', namespace: 'ns1', cluster: 'c1', headless: true, ports: [http], endpoints: [{ addresses: [EIP(1)] }] }),
    slice({ service: 'svc1', namespace: 'ns1', cluster: 'c2', headless: true, ports: [pop3], endpoints: [{ addresses: [EIP(2)] }] }),
    c3,
  );
  assert.deepEqual(m.look(svc).data.sort(), [1, 2, 3, 4, 5, 6].map(EIP));
  assert.deepEqual(m.look(`c3.${svc}`).data.sort(), [3, 4, 5, 6].map(EIP));
  assert.deepEqual(m.look(`host1.c3.${svc}`).data.sort(), [EIP(3), EIP(4)]);
  assert.equal(m.look(`host2.c3.${svc}`).rcode, 'NXDOMAIN');
  assert.deepEqual(m.look(`100-96-157-106.c3.${svc}`).data, [EIP(6)]);
  assert.deepEqual(m.look(`100-96-157-105.c3.${svc}`).data, [EIP(5)]);
  assert.deepEqual(m.look(`c3.${svc}`, 'SRV').data.sort(), [
    `25 100-96-157-105.c3.${svc}`,
    `25 100-96-157-106.c3.${svc}`,
    `25 host1.c3.${svc}`,
    `25 host1.c3.${svc}`,
    `443 100-96-157-105.c3.${svc}`,
    `443 100-96-157-106.c3.${svc}`,
    `443 host1.c3.${svc}`,
    `443 host1.c3.${svc}`,
  ]);

  m.upsert(submariner(), gateway('', [['c1', 'connected'], ['c2', 'connected']]));
  assert.deepEqual(m.look(svc).data.sort(), [EIP(1), EIP(2)]);
  assert.deepEqual(m.look(`c3.${svc}`).data.sort(), [3, 4, 5, 6].map(EIP));
  assert.deepEqual(m.look(`host1.c3.${svc}`).data.sort(), [EIP(3), EIP(4)]);
  m.remove(submariner());

  m.remove(c3);
  assert.deepEqual(m.look(svc).data.sort(), [EIP(1), EIP(2)]);
  assert.equal(m.look(`c3.${svc}`).rcode, 'NXDOMAIN');

  m.upsert(
    slice({
      service: 'svc1',
      namespace: 'ns1',
      cluster: 'c3',
      headless: true,
      ports: [https],
      endpoints: [{ addresses: [EIP(4)], hostname: 'host1' }, { addresses: [EIP(5), EIP(6)], hostname: 'host2' }],
    }),
  );
  assert.equal(m.look(`c3.${svc}`).data.length, 3);
  assert.deepEqual(m.look(`host1.c3.${svc}`).data, [EIP(4)]);
  assert.deepEqual(m.look(`host2.c3.${svc}`).data.sort(), [EIP(5), EIP(6)]);
  assert.equal(m.look(`non-existent.${svc}`).rcode, 'NXDOMAIN');
});

test('events: a slice waits for its ServiceImport, and deletes in either order end in NXDOMAIN', () => {
  const m = model();
  const e = eps('c1', SIP1);
  m.upsert(e);
  assert.equal(m.look(svc).rcode, 'NXDOMAIN');
  m.upsert(si());
  assert.deepEqual(m.look(svc).data, [SIP1]);
  m.remove(e);
  assert.deepEqual(m.look(svc), { rcode: 'NOERROR', data: [] });
  m.remove(si());
  assert.equal(m.look(svc).rcode, 'NXDOMAIN');

  m.upsert(si(), e);
  m.remove(si());
  assert.deepEqual(m.look(svc).data, [SIP1], 'cluster data keeps the name alive after the ServiceImport goes');
  m.remove(e);
  assert.equal(m.look(svc).rcode, 'NXDOMAIN');

  m.upsert(si(), e, eps('c1', SIP1, [http], false));
  assert.deepEqual(m.look(svc).data, []);
});

test('events: headless slices, a broker copy and slices missing labels', () => {
  const m = model();
  const s1 = slice({ service: 'svc1', namespace: 'ns1', cluster: 'c1', name: 's1', headless: true, ports: [http], endpoints: [{ addresses: [EIP(1), EIP(2)] }] });
  const s2 = slice({ service: 'svc1', namespace: 'ns1', cluster: 'c1', name: 's2', headless: true, ports: [pop3], endpoints: [{ addresses: [EIP(3), EIP(4)] }] });
  const broker = slice({ service: 'svc1', namespace: 'ns1', sliceNamespace: 'submariner-k8s-broker', cluster: 'c1', name: 's3', headless: true, ports: [http], endpoints: [{ addresses: [EIP(5)] }] });
  m.upsert(hsi, s1, s2, broker);
  assert.deepEqual(m.look(svc).data.sort(), [1, 2, 3, 4].map(EIP));
  assert.deepEqual(m.look(svc, 'SRV').data.sort(), [`110 100-96-157-103.c1.${svc}`, `110 100-96-157-104.c1.${svc}`, `8080 100-96-157-101.c1.${svc}`, `8080 100-96-157-102.c1.${svc}`]);
  m.remove(s1);
  assert.deepEqual(m.look(svc).data.sort(), [EIP(3), EIP(4)]);
  m.remove(s2);
  assert.equal(m.look(`c1.${svc}`).rcode, 'NXDOMAIN');
  m.remove(broker, s1);
  for (const label of ['multicluster.kubernetes.io/service-name', 'lighthouse.submariner.io/sourceNamespace', 'multicluster.kubernetes.io/source-cluster']) {
    m.upsert(slice({ service: 'svc1', namespace: 'ns1', cluster: 'c9', omitLabel: label, headless: true, endpoints: [{ addresses: [EIP(9)] }] }));
    assert.equal(m.look(`c9.${svc}`).rcode, 'NXDOMAIN', label);
  }
});

test('non-routable addresses are dropped (endpoint_slice_test.go)', () => {
  const m = model();
  m.upsert(si(), serviceSlice('svc1', 'ns1', 'c1', '10.253.2.2', [http]));
  assert.deepEqual(m.look(svc).data, ['10.253.2.2']);
  m.upsert(serviceSlice('svc1', 'ns1', 'c1', '127.0.0.1', [http]));
  assert.deepEqual(m.look(svc), { rcode: 'NOERROR', data: [] });
  const h = model();
  h.upsert(hsi, slice({ service: 'svc1', namespace: 'ns1', cluster: 'c1', headless: true, ports: [http], endpoints: [{ addresses: [EIP(1), '127.0.0.1', '0.0.0.0'] }] }));
  assert.deepEqual(h.look(svc).data, [EIP(1)]);
  assert.deepEqual(h.look(`100-96-157-101.c1.${svc}`).data, [EIP(1)]);
});

test('dual stack: IPv4 and IPv6 state are kept apart and deleted apart', () => {
  const V6 = 'fc00:2001::6757';
  const m = model({ families: { v4: true, v6: true } });
  const v4 = eps('c1', SIP1);
  const v6 = serviceSlice('svc1', 'ns1', 'c1', V6, [http], true, 'IPv6');
  m.upsert(si(), v4, v6);
  assert.deepEqual(m.look(svc).data, [SIP1]);
  assert.deepEqual(m.look(svc, 'AAAA').data, [V6]);
  m.remove(v4);
  assert.deepEqual(m.look(svc).data, []);
  assert.deepEqual(m.look(svc, 'AAAA').data, [V6]);
  assert.deepEqual(m.look(svc, 'SRV').data, [`8080 ${svc}`], 'SRV falls back to the IPv6 state');
  m.remove(v6);
  assert.deepEqual(m.look(svc, 'AAAA').data, []);
  m.remove(si());
  assert.equal(m.look(svc).rcode, 'NXDOMAIN');

  const h = model({ families: { v4: true, v6: true } });
  const a1 = slice({ service: 'svc1', namespace: 'ns1', cluster: 'c1', name: 'a1', headless: true, ports: [http], endpoints: [{ addresses: [EIP(1)] }] });
  const a2 = slice({ service: 'svc1', namespace: 'ns1', cluster: 'c1', name: 'a2', headless: true, ports: [http], endpoints: [{ addresses: [EIP(2)] }] });
  const b6 = slice({ service: 'svc1', namespace: 'ns1', cluster: 'c1', name: 'b6', headless: true, addressType: 'IPv6', ports: [http], endpoints: [{ addresses: [V6] }] });
  h.upsert(hsi, a1, a2, b6);
  assert.equal(h.look(svc).data.length, 2);
  assert.equal(h.look(svc, 'AAAA').data.length, 1);
  assert.equal(h.look(svc, 'SRV').data.length, 3);
  h.remove(a1);
  assert.equal(h.look(svc, 'SRV').data.length, 2);
});

test('a ServiceImport spec update is applied (dual-stack line) and a type change rebuilds from the slices', () => {
  const m = model();
  m.upsert(serviceImport('svc1', 'ns1'), eps('c1', SIP1, [http]));
  assert.deepEqual(m.look(svc).data, [SIP1]);
  m.upsert(serviceImport('svc1', 'ns1', { ips: ['243.1.0.9'], ports: [http] }));
  assert.deepEqual(m.look(svc).data, ['243.1.0.9']);
  assert.deepEqual(m.look(svc, 'SRV').data, [`8080 ${svc}`]);
  m.upsert(serviceImport('svc1', 'ns1', { type: 'Headless', ports: [http] }));
  assert.deepEqual(m.look(svc, 'SRV').data, [`8080 192-168-56-21.c1.${svc}`]);
});

test('ServiceImports are read from v1beta1 as well as v1alpha1, v1beta1 winning when both exist', () => {
  const m = model();
  m.upsert(serviceImport('svc1', 'ns1', { version: 'v1beta1', ips: ['243.1.0.2'] }));
  assert.deepEqual(m.look(svc).data, ['243.1.0.2']);
  m.upsert(serviceImport('svc1', 'ns1', { version: 'v1alpha1', ips: ['243.1.0.1'] }));
  assert.deepEqual(m.look(svc).data, ['243.1.0.2']);
  m.remove(serviceImport('svc1', 'ns1', { version: 'v1beta1' }));
  assert.deepEqual(m.look(svc).data, ['243.1.0.1']);
  // mcs-api v1beta1 also allows the fields at the object's root.
  const root = model();
  root.upsert({ apiVersion: 'multicluster.x-k8s.io/v1beta1', kind: 'ServiceImport', metadata: { name: 'svc1', namespace: 'ns1' }, type: 'ClusterSetIP', ips: ['243.1.0.3'], ports: [] });
  assert.deepEqual(root.look(svc).data, ['243.1.0.3']);
});

test('a connectivity change over a large table applies to every service at once, building only what is asked', () => {
  const m = model();
  const count = 2500;
  for (let i = 0; i < count; i++) m.upsert(serviceImport(`s${i}`, 'ns1', { ports: [http] }), serviceSlice(`s${i}`, 'ns1', 'c1', SIP1, [http]), serviceSlice(`s${i}`, 'ns1', 'c2', SIP2, [http]));
  const picks = (): string[] => Array.from({ length: count }, (_, i) => m.look(`s${i}.ns1.svc.${Z}`).data[0] ?? 'none');
  assert.deepEqual(new Set([...picks(), ...picks()]), new Set([SIP1, SIP2]), 'round robin over both clusters');
  assert.ok(m.table.size >= count, 'answers are cached once asked for');
  m.upsert(submariner(), gateway('', [['c2', 'connected']]));
  assert.equal(m.table.size, 0, 'the change itself builds nothing');
  assert.deepEqual(new Set([...picks(), ...picks()]), new Set([SIP2]));
  const answered = Array.from({ length: count }, (_, i) => m.look(`c1.s${i}.ns1.svc.${Z}`).data.length).reduce((x, y) => x + y, 0);
  assert.equal(answered, count, 'cluster names ignore connectivity');
});

test('answers are cached up to a bound, and a change of a service replaces its cached answers only', () => {
  const m = model({ cacheCapacity: 10 });
  for (let i = 0; i < 30; i++) m.upsert(serviceImport(`s${i}`, 'ns1', { ports: [http] }), serviceSlice(`s${i}`, 'ns1', 'c1', SIP1, [http]));
  for (let round = 0; round < 2; round++) {
    for (let i = 0; i < 30; i++) assert.deepEqual(m.look(`s${i}.ns1.svc.${Z}`).data, [SIP1]);
  }
  assert.ok(m.table.size <= 10, `at most 10 A answers cached, got ${m.table.size}`);
  // A random name of no service is answered, not kept.
  assert.equal(m.look(`nothing.ns1.svc.${Z}`).rcode, 'NXDOMAIN');
  assert.equal(m.look(`s29.ns1.svc.${Z}`, 'SRV').rcode, 'NOERROR');
  m.upsert(serviceSlice('s29', 'ns1', 'c1', SIP2, [https]));
  assert.deepEqual(m.look(`s29.ns1.svc.${Z}`).data, [SIP2]);
  assert.deepEqual(m.look(`s29.ns1.svc.${Z}`, 'SRV').data, [`443 s29.ns1.svc.${Z}`]);
  assert.deepEqual(m.look(`s28.ns1.svc.${Z}`).data, [SIP1]);
  m.remove(serviceImport('s29', 'ns1'), serviceSlice('s29', 'ns1', 'c1', SIP2, [https]));
  assert.equal(m.look(`s29.ns1.svc.${Z}`).rcode, 'NXDOMAIN');
  assert.equal(m.look(`s29.ns1.svc.${Z}`, 'SRV').rcode, 'NXDOMAIN');
});

test('a cached answer outlives changes of other services, and its balancer keeps its place when the entry is rebuilt', () => {
  const m = model();
  m.upsert(si(), eps('c1', SIP1), eps('c2', SIP2), eps('c3', SIP3));
  m.upsert(serviceImport('other', 'ns1', { ports: [http] }), serviceSlice('other', 'ns1', 'c1', EIP(1), [http]));
  assert.deepEqual(m.look(svc).data, [SIP1]);
  // Two changes of another service: this entry is checked against its view again, not rebuilt.
  m.upsert(serviceSlice('other', 'ns1', 'c1', EIP(2), [http]));
  assert.deepEqual(m.look(svc).data, [SIP2]);
  m.upsert(serviceSlice('other', 'ns1', 'c1', EIP(3), [http]));
  assert.deepEqual(m.look(`other.ns1.svc.${Z}`).data, [EIP(3)]);
  // A connectivity change empties the cache: the entry is built again, the balancer goes on where it was.
  m.upsert(submariner(), gateway('', [['c1', 'connected'], ['c2', 'connected'], ['c3', 'connected']]));
  assert.deepEqual(m.look(svc).data, [SIP3]);
  // The bare SRV name shares the family's balancer with A (docs/compatibility.md, "Cluster selection").
  assert.deepEqual(m.look(svc, 'SRV').data, [`8080 ${svc}`]);
  assert.deepEqual(m.look(svc).data, [SIP2]);
  // A change of the service itself replaces its cached entry, and a slice change starts a fresh balancer.
  m.upsert(eps('c2', EIP(9)));
  assert.deepEqual(times(4, () => m.look(svc).data[0]), [SIP1, EIP(9), SIP3, SIP1]);
});

test('records served are counted per cluster, for balanced and for headless answers', () => {
  const m = model();
  m.upsert(si(), eps('c1', SIP1), eps('c2', SIP2), eps('c3', SIP3));
  times(6, () => m.look(svc));
  assert.deepEqual(['c1', 'c2', 'c3'].map((c) => m.served(c)), [2, 2, 2]);
  const h = model();
  h.upsert(
    serviceImport('h', 'ns1', { type: 'Headless', ports: [http] }),
    slice({ service: 'h', namespace: 'ns1', cluster: 'c1', headless: true, ports: [http], endpoints: [{ addresses: [EIP(1)] }] }),
    slice({ service: 'h', namespace: 'ns1', cluster: 'c2', headless: true, ports: [http], endpoints: [{ addresses: [EIP(2), EIP(3)] }, { addresses: [EIP(4)] }] }),
  );
  assert.equal(h.look(`h.ns1.svc.${Z}`).data.length, 4);
  assert.equal(h.look(`h.ns1.svc.${Z}`).data.length, 4);
  assert.deepEqual([h.served('c1'), h.served('c2')], [2, 6]);
  assert.equal(h.look(`nothing.ns1.svc.${Z}`).rcode, 'NXDOMAIN');
  assert.deepEqual([h.served('c1'), h.served('c2')], [2, 6], 'a negative answer serves no record');
});
