/**
 * docs/compatibility.md, "Lighthouse's test cases" (Lighthouse's plugin/handler_test.go and ip_family_test.go) over real UDP and TCP,
 * through the manifests source: each row's setup is written as YAML into a temporary directory.
 */
import { test } from 'node:test';
import type { Row } from './fixtures.js';
import { a, aaaa, dnsPort, gateway, http, serviceImport, serviceSlice, slice, srv, submariner, table, tcp42, udp42 } from './fixtures.js';
import type { KubeObject } from '../src/index.js';

const Z = 'clusterset.local';
const SIP1 = '100.96.156.101';
const SIP2 = '100.96.156.102';
const EIP1 = '100.96.157.101';
const EIP2 = '100.96.157.102';
const V6 = 'fc00:2001::6757';
const svc1 = `service1.namespace1.svc.${Z}`;

const base = (): KubeObject[] => [serviceImport('service1', 'namespace1', { ports: [http] }), serviceSlice('service1', 'namespace1', 'cluster1', SIP1, [http])];

test('a ClusterSetIP service answers A and SRV on its service and cluster names (H1-H6, H8, H10)', async (t) => {
  await table(t, [...base(), serviceImport('service1', 'namespace2', { ports: [http] }), serviceSlice('service1', 'namespace2', 'cluster1', SIP1, [http])], [
    { id: 'H1', name: svc1, type: 'A', rcode: 'NOERROR', answers: [a(svc1, SIP1)] },
    { id: 'H2', name: svc1, type: 'SRV', rcode: 'NOERROR', answers: [srv(svc1, 8080, svc1)] },
    { id: 'H3', name: `cluster1.${svc1}`, type: 'A', rcode: 'NOERROR', answers: [a(`cluster1.${svc1}`, SIP1)] },
    { id: 'H4', name: `cluster1.${svc1}`, type: 'SRV', rcode: 'NOERROR', answers: [srv(`cluster1.${svc1}`, 8080, `cluster1.${svc1}`)] },
    { id: 'H5', name: `service1.namespace2.svc.${Z}`, type: 'A', rcode: 'NOERROR', answers: [a(`service1.namespace2.svc.${Z}`, SIP1)] },
    { id: 'H5', name: `service1.namespace2.svc.${Z}`, type: 'SRV', rcode: 'NOERROR', answers: [srv(`service1.namespace2.svc.${Z}`, 8080, `service1.namespace2.svc.${Z}`)] },
    { id: 'H6', name: `unknown.namespace1.svc.${Z}`, type: 'A', rcode: 'NXDOMAIN', answers: [] },
    { id: 'H6', name: `unknown.namespace1.svc.${Z}`, type: 'SRV', rcode: 'NXDOMAIN', answers: [] },
    { id: 'H8', name: `service1.namespace1.pod.${Z}`, type: 'A', rcode: 'NXDOMAIN', answers: [] },
    { id: 'H8', name: `service1.namespace1.pod.${Z}`, type: 'SRV', rcode: 'NXDOMAIN', answers: [] },
    { id: 'H10', name: svc1, type: 'AAAA', rcode: 'NOERROR', answers: [] },
  ]);
});

test('a namespace without the import is NXDOMAIN and a name outside the plugin zones is NOTZONE (H7, H9)', async (t) => {
  await table(
    t,
    base(),
    [
      { id: 'H7', name: `service1.namespace2.svc.${Z}`, type: 'A', rcode: 'NXDOMAIN' },
      { id: 'H7', name: `service1.namespace2.svc.${Z}`, type: 'SRV', rcode: 'NXDOMAIN' },
      { id: 'H9', name: 'service1.namespace2.svc.cluster.east', type: 'A', rcode: 'NOTZONE', answers: [] },
      { id: 'H9', name: 'service1.namespace2.svc.cluster.east', type: 'SRV', rcode: 'NOTZONE', answers: [] },
    ],
    { keys: [Z, 'cluster.east'], args: Z },
  );
});

test('fallthrough hands NOTZONE, NXDOMAIN and pod names to the next plugin but never NODATA (F1-F5)', async (t) => {
  const next = (id: string, name: string, type: Row['type']): Row => ({ id, name, type, rcode: 'NOERROR', answeredBy: 'next' });
  const objects = base();
  await table(
    t,
    objects,
    [next('F1', 'service1.namespace1.svc.cluster.east', 'A'), next('F1', 'service1.namespace1.svc.cluster.east', 'SRV')],
    { keys: [Z, 'cluster.east'], args: Z, options: [`fallthrough ${Z} cluster.east`, 'cluster_id cluster1'], after: 'whoami' },
  );
  await table(
    t,
    objects,
    [
      { id: 'F2', name: 'service1.namespace1.svc.cluster.east', type: 'A', rcode: 'NOTZONE' },
      { id: 'F3', name: svc1, type: 'AAAA', rcode: 'NOERROR', answers: [], answeredBy: 'lighthouse' },
      next('F4', `service1.namespace1.pod.${Z}`, 'A'),
      next('F4', `service1.namespace1.pod.${Z}`, 'SRV'),
      next('F5', `unknown.namespace1.svc.${Z}`, 'A'),
      next('F5', `unknown.namespace1.svc.${Z}`, 'SRV'),
    ],
    { keys: [Z, 'cluster.east'], args: Z, options: [`fallthrough ${Z}`], after: 'whoami' },
  );
});

const twoClusters = (): KubeObject[] => [
  serviceImport('service1', 'namespace1', { ports: [http] }),
  serviceSlice('service1', 'namespace1', 'cluster1', SIP1, [http]),
  serviceSlice('service1', 'namespace1', 'cluster2', SIP2, [http, dnsPort]),
];

test('cluster names ignore connectivity, and the bare name uses connected clusters with merged ports (C1-C6)', async (t) => {
  await table(t, [...twoClusters(), submariner(), gateway('', [['cluster1', 'connected'], ['cluster2', 'connected']])], [
    { id: 'C1', name: `cluster2.${svc1}`, type: 'A', rcode: 'NOERROR', answers: [a(`cluster2.${svc1}`, SIP2)] },
    { id: 'C2', name: `cluster2.${svc1}`, type: 'SRV', rcode: 'NOERROR', answers: [srv(`cluster2.${svc1}`, 8080, `cluster2.${svc1}`), srv(`cluster2.${svc1}`, 53, `cluster2.${svc1}`)] },
  ]);
  await table(t, [...twoClusters(), submariner(), gateway('', [['cluster2', 'connected']])], [
    { id: 'C3', name: svc1, type: 'A', rcode: 'NOERROR', answers: [a(svc1, SIP2)] },
    { id: 'C4', name: svc1, type: 'SRV', rcode: 'NOERROR', answers: [srv(svc1, 8080, svc1)] },
    { id: 'C3', name: `cluster1.${svc1}`, type: 'A', rcode: 'NOERROR', answers: [a(`cluster1.${svc1}`, SIP1)] },
  ]);
  await table(t, [...twoClusters(), submariner(), gateway('', [])], [
    { id: 'C5', name: svc1, type: 'A', rcode: 'NOERROR', answers: [] },
    { id: 'C5', name: svc1, type: 'SRV', rcode: 'NOERROR', answers: [] },
  ]);
  await table(t, [...twoClusters().slice(0, 2), submariner(), gateway('', [['cluster2', 'connected']])], [
    { id: 'C6', name: svc1, type: 'A', rcode: 'NOERROR', answers: [] },
    { id: 'C6', name: svc1, type: 'SRV', rcode: 'NOERROR', answers: [] },
  ]);
});

const headless = (): KubeObject => serviceImport('service1', 'namespace1', { type: 'Headless', ports: [http] });

test('a headless service answers every endpoint, with host and cluster in SRV targets (HL1-HL10)', async (t) => {
  await table(t, [headless(), slice({ service: 'service1', namespace: 'namespace1', cluster: 'cluster1', headless: true, endpoints: [], ports: [http] })], [
    { id: 'HL1', name: svc1, type: 'A', rcode: 'NOERROR', answers: [] },
    { id: 'HL1', name: svc1, type: 'SRV', rcode: 'NOERROR', answers: [] },
  ]);
  const one = slice({ service: 'service1', namespace: 'namespace1', cluster: 'cluster1', headless: true, endpoints: [{ addresses: [EIP1], hostname: 'hostName1', ready: true }], ports: [http] });
  await table(t, [headless(), one], [
    { id: 'HL2', name: svc1, type: 'A', rcode: 'NOERROR', answers: [a(svc1, EIP1)] },
    { id: 'HL3', name: svc1, type: 'SRV', rcode: 'NOERROR', answers: [srv(svc1, 8080, `hostName1.cluster1.${svc1}`)] },
    { id: 'HL4', name: `cluster1.${svc1}`, type: 'SRV', rcode: 'NOERROR', answers: [srv(`cluster1.${svc1}`, 8080, `hostName1.cluster1.${svc1}`)] },
  ]);
  const two = slice({
    service: 'service1',
    namespace: 'namespace1',
    cluster: 'cluster1',
    headless: true,
    endpoints: [
      { addresses: [EIP1], hostname: 'hostName1' },
      { addresses: [EIP2], hostname: 'hostName2' },
    ],
    ports: [http],
  });
  const targets = (owner: string): string[] => [srv(owner, 8080, `hostName1.cluster1.${svc1}`), srv(owner, 8080, `hostName2.cluster1.${svc1}`)];
  await table(t, [headless(), two], [
    { id: 'HL5', name: svc1, type: 'A', rcode: 'NOERROR', answers: [a(svc1, EIP1), a(svc1, EIP2)] },
    { id: 'HL6', name: svc1, type: 'SRV', rcode: 'NOERROR', answers: targets(svc1) },
    { id: 'HL7', name: `http.TCP.${svc1}`, type: 'SRV', rcode: 'NOERROR', answers: targets(`http.TCP.${svc1}`) },
    { id: 'HL8', name: `_http._TCP.${svc1}`, type: 'SRV', rcode: 'NOERROR', answers: targets(`_http._TCP.${svc1}`) },
  ]);
  const across = [
    headless(),
    slice({ service: 'service1', namespace: 'namespace1', cluster: 'cluster1', headless: true, endpoints: [{ addresses: [EIP1], hostname: 'hostName1' }], ports: [http] }),
    slice({ service: 'service1', namespace: 'namespace1', cluster: 'cluster2', headless: true, endpoints: [{ addresses: [EIP2], hostname: 'hostName2' }], ports: [http] }),
    submariner(),
    gateway('', [['cluster1', 'connected'], ['cluster2', 'connected']]),
  ];
  await table(t, across, [
    { id: 'HL9', name: svc1, type: 'A', rcode: 'NOERROR', answers: [a(svc1, EIP1), a(svc1, EIP2)] },
    { id: 'HL10', name: `cluster1.${svc1}`, type: 'A', rcode: 'NOERROR', answers: [a(`cluster1.${svc1}`, EIP1)] },
  ]);
});

test('a healthy local cluster is preferred and an unhealthy one is passed over (L1-L4)', async (t) => {
  await table(
    t,
    [...twoClusters(), submariner(), gateway('', [['cluster1', 'connected'], ['cluster2', 'connected']])],
    [
      { id: 'L1', name: svc1, type: 'A', rcode: 'NOERROR', answers: [a(svc1, SIP1)] },
      { id: 'L1', name: svc1, type: 'A', rcode: 'NOERROR', answers: [a(svc1, SIP1)] },
      { id: 'L2', name: svc1, type: 'SRV', rcode: 'NOERROR', answers: [srv(svc1, 8080, svc1)] },
      { id: 'L3', name: `cluster2.${svc1}`, type: 'A', rcode: 'NOERROR', answers: [a(`cluster2.${svc1}`, SIP2)] },
      { id: 'L3', name: `cluster2.${svc1}`, type: 'SRV', rcode: 'NOERROR', answers: [srv(`cluster2.${svc1}`, 53, `cluster2.${svc1}`), srv(`cluster2.${svc1}`, 8080, `cluster2.${svc1}`)] },
    ],
    { options: ['cluster_id cluster1'] },
  );
  const unhealthy = twoClusters();
  unhealthy[1] = serviceSlice('service1', 'namespace1', 'cluster1', SIP1, [http], false);
  await table(t, [...unhealthy, submariner(), gateway('', [['cluster1', 'connected'], ['cluster2', 'connected']])], [{ id: 'L4', name: svc1, type: 'A', rcode: 'NOERROR', answers: [a(svc1, SIP2)] }], {
    options: ['cluster_id cluster1'],
  });
});

test('SRV answers every port and filters by port and protocol in any case (M1-M4)', async (t) => {
  await table(t, [serviceImport('service1', 'namespace1', { ports: [http, dnsPort] }), serviceSlice('service1', 'namespace1', 'cluster1', EIP1, [http, dnsPort])], [
    { id: 'M1', name: svc1, type: 'SRV', rcode: 'NOERROR', answers: [srv(svc1, 53, svc1), srv(svc1, 8080, svc1)] },
    { id: 'M2', name: `http.TCP.${svc1}`, type: 'SRV', rcode: 'NOERROR', answers: [srv(`http.TCP.${svc1}`, 8080, svc1)] },
    { id: 'M2', name: `dns.UDP.${svc1}`, type: 'SRV', rcode: 'NOERROR', answers: [srv(`dns.UDP.${svc1}`, 53, svc1)] },
    { id: 'M3', name: `cluster1.${svc1}`, type: 'SRV', rcode: 'NOERROR', answers: [srv(`cluster1.${svc1}`, 53, `cluster1.${svc1}`), srv(`cluster1.${svc1}`, 8080, `cluster1.${svc1}`)] },
    { id: 'M4', name: `_http._TCP.${svc1}`, type: 'SRV', rcode: 'NOERROR', answers: [srv(`_http._TCP.${svc1}`, 8080, svc1)] },
    { id: 'M4', name: `_http._tcp.cluster1.${svc1}`, type: 'SRV', rcode: 'NOERROR', answers: [srv(`_http._tcp.cluster1.${svc1}`, 8080, `cluster1.${svc1}`)] },
    { id: '3.9', name: `_smtp._tcp.${svc1}`, type: 'SRV', rcode: 'NOERROR', answers: [] },
  ]);
});

test('SRV de-duplicates a port number within a record, per cluster (dual-stack line, multi-port)', async (t) => {
  await table(
    t,
    [
      serviceImport('service1', 'namespace1', { ports: [http] }),
      serviceSlice('service1', 'namespace1', 'cluster1', EIP1, [http, udp42, tcp42]),
      serviceSlice('service1', 'namespace1', 'cluster2', SIP2, [http, udp42, tcp42, dnsPort]),
      submariner(),
      gateway('', [['cluster1', 'connected']]),
    ],
    [
      { id: 'B1', name: svc1, type: 'SRV', rcode: 'NOERROR', answers: [srv(svc1, 42, svc1), srv(svc1, 8080, svc1)] },
      { id: 'B2', name: `udp.UDP.${svc1}`, type: 'SRV', rcode: 'NOERROR', answers: [srv(`udp.UDP.${svc1}`, 42, svc1)] },
      { id: 'B3', name: `tcp.TCP.${svc1}`, type: 'SRV', rcode: 'NOERROR', answers: [srv(`tcp.TCP.${svc1}`, 42, svc1)] },
      { id: 'B4', name: `cluster1.${svc1}`, type: 'SRV', rcode: 'NOERROR', answers: [srv(`cluster1.${svc1}`, 42, `cluster1.${svc1}`), srv(`cluster1.${svc1}`, 8080, `cluster1.${svc1}`)] },
      {
        id: 'B5',
        name: `cluster2.${svc1}`,
        type: 'SRV',
        rcode: 'NOERROR',
        answers: [srv(`cluster2.${svc1}`, 42, `cluster2.${svc1}`), srv(`cluster2.${svc1}`, 53, `cluster2.${svc1}`), srv(`cluster2.${svc1}`, 8080, `cluster2.${svc1}`)],
      },
    ],
  );
});

test('a clusterset IP answers regardless of clusters, with the ServiceImport ports (S1-S2)', async (t) => {
  await table(
    t,
    [
      serviceImport('service1', 'namespace1', { ips: ['243.1.0.1'], ports: [http, dnsPort] }),
      serviceSlice('service1', 'namespace1', 'cluster1', SIP1, [http]),
      serviceSlice('service1', 'namespace1', 'cluster2', SIP2, [dnsPort]),
      submariner(),
      gateway('', []),
    ],
    [
      { id: 'S1', name: svc1, type: 'A', rcode: 'NOERROR', answers: [a(svc1, '243.1.0.1')] },
      { id: 'S2', name: svc1, type: 'SRV', rcode: 'NOERROR', answers: [srv(svc1, 53, svc1), srv(svc1, 8080, svc1)] },
      { id: 'S3', name: `cluster1.${svc1}`, type: 'A', rcode: 'NOERROR', answers: [a(`cluster1.${svc1}`, SIP1)] },
    ],
  );
});

test('a clusterset-IP service without its IP yet is NXDOMAIN on the bare name (P1)', async (t) => {
  await table(
    t,
    [serviceImport('service1', 'namespace1', { ports: [http], annotations: { 'lighthouse.submariner.io/use-clusterset-ip': 'true' } }), serviceSlice('service1', 'namespace1', 'cluster1', SIP1, [http])],
    [
      { id: 'P1', name: svc1, type: 'A', rcode: 'NXDOMAIN' },
      { id: 'P1', name: svc1, type: 'SRV', rcode: 'NXDOMAIN' },
      { id: 'P1', name: `cluster1.${svc1}`, type: 'A', rcode: 'NOERROR', answers: [a(`cluster1.${svc1}`, SIP1)] },
    ],
  );
});

const v6Slice = (): KubeObject => serviceSlice('service1', 'namespace1', 'cluster1', V6, [http], true, 'IPv6');
const v4Slice = (): KubeObject => serviceSlice('service1', 'namespace1', 'cluster1', SIP1, [udp42]);

test('IPv6 answers AAAA and the families follow cluster_cidr (IP1-IP4)', async (t) => {
  for (const type of ['ClusterSetIP', 'Headless'] as const) {
    const si = serviceImport('service1', 'namespace1', { type, ports: [http] });
    await table(t, [si, v6Slice()], [
      { id: `IP1 ${type}`, name: svc1, type: 'AAAA', rcode: 'NOERROR', answers: [aaaa(svc1, V6)] },
      { id: `IP2 ${type}`, name: svc1, type: 'A', rcode: 'NOERROR', answers: [] },
    ], { options: ['cluster_cidr fd00::/48'] });
    await table(t, [si, v6Slice(), v4Slice()], [
      { id: `IP3 ${type}`, name: svc1, type: 'AAAA', rcode: 'NOERROR', answers: [aaaa(svc1, V6)] },
      { id: `IP3 ${type}`, name: svc1, type: 'A', rcode: 'NOERROR', answers: [] },
    ], { options: ['cluster_cidr fd00::/48'] });
    await table(t, [si, v6Slice(), v4Slice()], [
      { id: `IP4 ${type}`, name: svc1, type: 'AAAA', rcode: 'NOERROR', answers: [aaaa(svc1, V6)] },
      { id: `IP4 ${type}`, name: svc1, type: 'A', rcode: 'NOERROR', answers: [a(svc1, SIP1)] },
    ], { options: ['cluster_cidr fd00::/48 10.0.0.0/16'] });
  }
});

test('dual-stack SRV reads the IPv4 state first for ClusterSetIP and both families for headless (IP5-IP6)', async (t) => {
  const options = { options: ['cluster_cidr fd00::/48 10.0.0.0/16'] };
  await table(t, [serviceImport('service1', 'namespace1', { ports: [http] }), v6Slice(), v4Slice()], [{ id: 'IP5', name: svc1, type: 'SRV', rcode: 'NOERROR', answers: [srv(svc1, 42, svc1)] }], options);
  await table(
    t,
    [serviceImport('service1', 'namespace1', { type: 'Headless', ports: [http] }), v6Slice(), v4Slice()],
    [
      {
        id: 'IP6',
        name: svc1,
        type: 'SRV',
        rcode: 'NOERROR',
        answers: [srv(svc1, 42, `100-96-156-101.cluster1.${svc1}`), srv(svc1, 8080, `fc00-2001--6757.cluster1.${svc1}`)],
      },
      { id: 'IP6', name: `fc00-2001--6757.cluster1.${svc1}`, type: 'AAAA', rcode: 'NOERROR', answers: [aaaa(`fc00-2001--6757.cluster1.${svc1}`, V6)] },
    ],
    options,
  );
});
