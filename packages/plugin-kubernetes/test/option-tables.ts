/**
 * CoreDNS's per-option handler tables: pod modes (handler_pod_*_test.go), case preservation
 * (handler_case_test.go), the apex (kubernetes_apex_test.go), `ignore empty_service`
 * (handler_ignore_emptyservice_test.go), reverse lookups (reverse_test.go) and answers before
 * the first sync (TestNotSyncedServeDNS), over UDP and TCP against the test API server.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startKubeApiServer } from '@foghorn/testkit/kube';
import { checkCases, endpointSlice, namespace, resources, service, soa, startCluster } from './fixtures.js';
import type { Case } from './fixtures.js';

const Z = 'cluster.local.';
const nx = (qname: string, qtype: Case['qtype'], zone = Z): Case => ({ qname, qtype, rcode: 'NXDOMAIN', ns: [soa(zone)] });
const nodata = (qname: string, qtype: Case['qtype'], zone = Z): Case => ({ qname, qtype, rcode: 'NOERROR', ns: [soa(zone)] });
const a = (qname: string, ip: string): Case => ({ qname, qtype: 'A', rcode: 'NOERROR', answer: [`${qname} 5 IN A ${ip}`] });

test('TestServeDNSModeDisabled: pod names are NXDOMAIN', async (t) => {
  const { dns } = await startCluster(t, { zones: 'cluster.local' });
  await checkCases(dns, [nx('10-240-0-1.podns.pod.cluster.local.', 'A'), nx('172-0-0-2.podns.pod.cluster.local.', 'A')]);
});

test('TestServeDNSModeInsecure: any IP-shaped pod name answers, anything else is NXDOMAIN', async (t) => {
  const { dns } = await startCluster(t, { zones: 'cluster.local', options: 'pods insecure' });
  await checkCases(dns, [
    a('10-240-0-1.podns.pod.cluster.local.', '10.240.0.1'),
    a('172-0-0-2.podns.pod.cluster.local.', '172.0.0.2'),
    { qname: 'fd00--1.podns.pod.cluster.local.', qtype: 'AAAA', rcode: 'NOERROR', answer: ['fd00--1.podns.pod.cluster.local. 5 IN AAAA fd00::1'] },
    nodata('172-0-0-2.podns.pod.cluster.local.', 'AAAA'),
    nx('blah.podns.pod.cluster.local.', 'A'),
    nx('blah.podns.pod.cluster.local.', 'AAAA'),
    nx('blah.podns.pod.cluster.local.', 'HINFO'),
    nx('blah.pod-nons.pod.cluster.local.', 'A'),
    nx('172-0-0-2.pod-nons.pod.cluster.local.', 'A'),
    nodata('podns.pod.cluster.local.', 'A'),
  ]);
});

test('TestServeDNSModeVerified: only an existing pod IP in that namespace answers', async (t) => {
  const { dns, api } = await startCluster(t, { zones: 'cluster.local', options: 'pods verified' });
  await checkCases(dns, [
    a('10-240-0-1.podns.pod.cluster.local.', '10.240.0.1'),
    nodata('podns.pod.cluster.local.', 'A'),
    nodata('svcns.svc.cluster.local.', 'A'),
    nx('pod-nons.pod.cluster.local.', 'A'),
    nx('172-0-0-2.podns.pod.cluster.local.', 'A'),
    nx('10-240-0-1.testns.pod.cluster.local.', 'A'),
  ]);
  // Only with `pods verified` is the Pod resource watched.
  assert.ok(api.requests.some((r) => r.resource === 'pods'));
});

test('the Pod resource is not watched unless `pods verified`', async (t) => {
  const { api } = await startCluster(t, { zones: 'cluster.local', options: 'pods insecure' });
  assert.deepEqual(api.requests.filter((r) => r.resource === 'pods'), []);
  assert.deepEqual(api.requests.filter((r) => r.resource === 'serviceimports'), []);
  assert.deepEqual(api.requests.filter((r) => r.resource === 'endpoints'), []);
  assert.deepEqual([...new Set(api.requests.map((r) => r.resource))].sort(), ['endpointslices', 'namespaces', 'services']);
});

test('TestPreserveCase: owners, SOA and SRV targets keep the client\'s case', async (t) => {
  const { dns } = await startCluster(t, { zones: 'cluster.local' });
  await checkCases(dns, [
    nx('not-a-service.testns.svc.ClUsTeR.lOcAl.', 'A', 'ClUsTeR.lOcAl.'),
    { qname: 'SvC1.TeStNs.SvC.cLuStEr.LoCaL.', qtype: 'A', rcode: 'NOERROR', answer: ['SvC1.TeStNs.SvC.cLuStEr.LoCaL. 5 IN A 10.0.0.1'] },
    {
      qname: '_HtTp._TcP.sVc1.TeStNs.SvC.cLuStEr.LoCaL.', qtype: 'SRV', rcode: 'NOERROR',
      answer: ['_HtTp._TcP.sVc1.TeStNs.SvC.cLuStEr.LoCaL. 5 IN SRV 0 100 80 svc1.testns.svc.cLuStEr.LoCaL.'],
      extra: ['svc1.testns.svc.cLuStEr.LoCaL. 5 IN A 10.0.0.1'],
    },
    { qname: 'Cluster.local.', qtype: 'SOA', rcode: 'NOERROR', answer: [soa('Cluster.local.')] },
    // The same names in lower case right after: the cached answers must not keep the other spelling.
    { qname: '_http._tcp.svc1.testns.svc.cluster.local.', qtype: 'SRV', rcode: 'NOERROR', answer: ['_http._tcp.svc1.testns.svc.cluster.local. 5 IN SRV 0 100 80 svc1.testns.svc.cluster.local.'], extra: ['svc1.testns.svc.cluster.local. 5 IN A 10.0.0.1'] },
    { qname: 'cluster.local.', qtype: 'SOA', rcode: 'NOERROR', answer: [soa(Z)] },
  ]);
});

test('TestServeDNSApex: SOA at the apex, NS ns.dns with the local address, NODATA for the rest', async (t) => {
  const { dns } = await startCluster(t, { zones: 'cluster.local', overrides: { localIps: () => ['127.0.0.1'] } });
  await checkCases(dns, [
    { qname: 'cluster.local.', qtype: 'SOA', rcode: 'NOERROR', answer: [soa(Z)] },
    nodata('cluster.local.', 'HINFO'),
    { qname: 'cluster.local.', qtype: 'NS', rcode: 'NOERROR', answer: ['cluster.local. 5 IN NS ns.dns.cluster.local.'], extra: ['ns.dns.cluster.local. 5 IN A 127.0.0.1'] },
    nodata('cluster.local.', 'A'),
    nodata('cluster.local.', 'AAAA'),
    nodata('cluster.local.', 'SRV'),
    // ns.go: the nameserver name answers its addresses.
    a('ns.dns.cluster.local.', '127.0.0.1'),
    nodata('ns.dns.cluster.local.', 'AAAA'),
    nx('ns.dns.cluster.local.', 'TXT'),
    // Upstream quirk kept: with the zone in mixed case neither ns.dns nor the apex NS is recognised.
    nx('ns.dns.Cluster.Local.', 'A', 'Cluster.Local.'),
    nodata('Cluster.Local.', 'NS', 'Cluster.Local.'),
  ]);
});

test('TestServicesAuthority: ns.dns answers per family from v4, v6 and dual-stack local addresses', async (t) => {
  const { dns } = await startCluster(t, { zones: 'cluster.local', overrides: { localIps: () => ['10.9.8.7', 'fd00::7'] } });
  await checkCases(dns, [
    a('ns.dns.cluster.local.', '10.9.8.7'),
    { qname: 'ns.dns.cluster.local.', qtype: 'AAAA', rcode: 'NOERROR', answer: ['ns.dns.cluster.local. 5 IN AAAA fd00::7'] },
    { qname: 'cluster.local.', qtype: 'NS', rcode: 'NOERROR', answer: ['cluster.local. 5 IN NS ns.dns.cluster.local.'], extra: ['ns.dns.cluster.local. 5 IN A 10.9.8.7', 'ns.dns.cluster.local. 5 IN AAAA fd00::7'] },
  ]);
});

test('TestNsAddrs: a local address that is an endpoint gives that service\'s name and ClusterIP', async (t) => {
  const { dns } = await startCluster(t, { zones: 'cluster.local', overrides: { localIps: () => ['172.0.0.100'] } });
  await checkCases(dns, [
    { qname: 'cluster.local.', qtype: 'NS', rcode: 'NOERROR', answer: ['cluster.local. 5 IN NS kubedns.kube-system.svc.cluster.local.'], extra: ['kubedns.kube-system.svc.cluster.local. 5 IN A 10.0.0.10'] },
    a('ns.dns.cluster.local.', '10.0.0.10'),
  ]);
});

test('TestServeDNSEmptyService: `ignore empty_service` makes an endpoint-less ClusterIP service NXDOMAIN', async (t) => {
  const { dns } = await startCluster(t, { zones: 'cluster.local', options: 'ignore empty_service' });
  await checkCases(dns, [
    nx('svcempty.testns.svc.cluster.local.', 'A'),
    nx('_http._tcp.svcempty.testns.svc.cluster.local.', 'SRV'),
    a('svc1.testns.svc.cluster.local.', '10.0.0.1'),
    { qname: 'external.testns.svc.cluster.local.', qtype: 'CNAME', rcode: 'NOERROR', answer: ['external.testns.svc.cluster.local. 5 IN CNAME ext.interwebs.test.'] },
  ]);
});

test('`noendpoints`: no EndpointSlice watch, headless and endpoint names NXDOMAIN, ClusterIPs still answer', async (t) => {
  const { dns, api } = await startCluster(t, { zones: 'cluster.local', options: 'noendpoints' });
  await checkCases(dns, [
    nx('hdls1.testns.svc.cluster.local.', 'A'),
    nx('ep1a.svc1.testns.svc.cluster.local.', 'A'),
    a('svc1.testns.svc.cluster.local.', '10.0.0.1'),
  ]);
  assert.deepEqual(api.requests.filter((r) => r.resource === 'endpointslices'), []);
});

const reverseObjects = [
  namespace('testns'),
  service('svc1', 'testns', { clusterIPs: ['192.168.1.100'], ports: [{ name: 'http', protocol: 'TCP', port: 80 }] }),
  endpointSlice('svc1-slice1', 'testns', 'svc1', [{ ip: '10.0.0.100', hostname: 'ep1a' }, { ip: '10.0.0.99', hostname: 'double-ep' }], [{ name: 'http', protocol: 'TCP', port: 80 }]),
  endpointSlice('svc1-slice2', 'testns', 'svc1', [{ ip: '1234:abcd::1', hostname: 'ep1b' }, { ip: 'fd00:77:30::a', hostname: 'ip6svc1ex' }, { ip: 'fd00:77:30::2:9ba6', hostname: 'ip6svc1in' }], [{ name: 'http', protocol: 'TCP', port: 80 }], { addressType: 'IPv6' }),
  endpointSlice('svc1-ccccc', 'testns', 'svc1', [{ ip: '10.0.0.100', hostname: 'ep1a' }], [{ name: 'http', protocol: 'TCP', port: 80 }]),
  endpointSlice('svc2-slice1', 'testns', 'svc2', [{ ip: '10.0.0.99', hostname: 'double-ep' }], [{ name: 'http', protocol: 'TCP', port: 80 }]),
  // A multicluster slice without the service-name label: never a PTR target (README, quirk not kept).
  endpointSlice('mcs-1', 'testns', null, [{ ip: '10.0.0.101', hostname: 'remote' }], [{ name: 'http', protocol: 'TCP', port: 80 }], { labels: { 'multicluster.kubernetes.io/service-name': 'svc1' } }),
];

test('TestReverse: PTR for endpoint and ClusterIP addresses, v4 and v6, in the primary zone', async (t) => {
  const zones = 'cluster.local 0.10.in-addr.arpa 168.192.in-addr.arpa 0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.d.c.b.a.4.3.2.1.ip6.arpa 0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.3.0.0.7.7.0.0.0.0.d.f.ip6.arpa';
  const { dns } = await startCluster(t, { zones, objects: reverseObjects });
  const ptr = (qname: string, ...targets: string[]): Case => ({ qname, qtype: 'PTR', rcode: 'NOERROR', answer: targets.map((target) => `${qname} 5 IN PTR ${target}`) });
  const R = '0.10.in-addr.arpa.';
  await checkCases(dns, [
    ptr('100.0.0.10.in-addr.arpa.', 'ep1a.svc1.testns.svc.cluster.local.'),
    ptr('100.1.168.192.in-addr.arpa.', 'svc1.testns.svc.cluster.local.'),
    ptr('1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.d.c.b.a.4.3.2.1.ip6.arpa.', 'ep1b.svc1.testns.svc.cluster.local.'),
    ptr('a.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.3.0.0.7.7.0.0.0.0.d.f.ip6.arpa.', 'ip6svc1ex.svc1.testns.svc.cluster.local.'),
    ptr('6.a.b.9.2.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.3.0.0.7.7.0.0.0.0.d.f.ip6.arpa.', 'ip6svc1in.svc1.testns.svc.cluster.local.'),
    nx('101.0.0.10.in-addr.arpa.', 'PTR', R),
    nx('example.org.cluster.local.', 'PTR'),
    nodata('svc1.testns.svc.cluster.local.', 'PTR'),
    nx('svc1.testns.svc.0.10.in-addr.arpa.', 'A', R),
    nx('100.0.0.10.cluster.local.', 'PTR'),
    ptr('99.0.0.10.in-addr.arpa.', 'double-ep.svc1.testns.svc.cluster.local.', 'double-ep.svc2.testns.svc.cluster.local.'),
    // Below the zone but not a whole address: a forward-style name, so invalid; the apex is NODATA.
    nx('0.0.10.in-addr.arpa.', 'PTR', R),
    nodata(R, 'PTR', R),
  ]);
});

test('TestNotSyncedServeDNS: before the first sync a name error is SERVFAIL with the SOA; fallthrough still passes it on', async (t) => {
  const api = await startKubeApiServer({ resources });
  t.after(() => api.close());
  // Services never list: the plugin starts after startup_timeout, unsynced.
  api.failNext(500, { count: 1_000_000, match: (r) => r.resource === 'services' });
  const { dns, probe } = await startCluster(t, { api, zones: 'cluster.local in-addr.arpa', options: 'startup_timeout 700ms\nfallthrough in-addr.arpa', noWait: true, upstream: true });
  assert.equal(probe.ready(), false);
  await checkCases(dns, [
    { qname: 'svc0.testns.svc.cluster.local.', qtype: 'A', rcode: 'SERVFAIL', ns: [soa(Z)] },
    // NODATA stays NODATA.
    nodata('svc.cluster.local.', 'A'),
    // Fallthrough is decided before the sync check: the next plugin answers.
    { qname: '1.0.0.10.in-addr.arpa.', qtype: 'PTR', rcode: 'NXDOMAIN', aa: false },
  ]);
  assert.ok(dns.lines.some((l) => l.includes('[WARNING] plugin/kubernetes: starting server with unsynced Kubernetes API')), dns.lines.join('\n'));
  // While it waited, every 500 ms (kubernetes.go `InitKubeCache`):
  assert.ok(dns.lines.some((l) => l.includes('[INFO] plugin/kubernetes: waiting for Kubernetes API before starting server')), dns.lines.join('\n'));
});

const zonalObjects = [
  namespace('testns'),
  service('hdls', 'testns', { clusterIPs: ['None'], ports: [{ name: 'http', protocol: 'TCP', port: 80 }] }),
  service('clstr', 'testns', { clusterIPs: ['10.0.0.10'], ports: [{ name: 'http', protocol: 'TCP', port: 80 }] }),
  endpointSlice('hdls-slice', 'testns', 'hdls', [{ ip: '172.0.0.1', zone: 'us-west-2a' }, { ip: '172.0.0.2', zone: 'us-west-2b' }, { ip: '172.0.0.3', zone: 'US-West-2b' }], [{ name: 'http', protocol: 'TCP', port: 80 }]),
];

test('TestServeDNSZonal: pin and prefer names of headless services, NODATA for an empty zone, NXDOMAIN otherwise', async (t) => {
  const { dns } = await startCluster(t, { zones: 'cluster.local', options: 'zonal', objects: zonalObjects });
  const name = (zone: string, directive: string, svc = 'hdls'): string => `${zone}.${directive}._zone.${svc}.testns.svc.cluster.local.`;
  const addresses = (qname: string, ...ips: string[]): Case => ({ qname, qtype: 'A', rcode: 'NOERROR', answer: ips.map((ip) => `${qname} 5 IN A ${ip}`) });
  const target = (n: number): string => `172-0-0-${n}.hdls.testns.svc.cluster.local.`;
  await checkCases(dns, [
    addresses(name('us-west-2a', 'pin'), '172.0.0.1'),
    addresses(name('us-west-2b', 'pin'), '172.0.0.2', '172.0.0.3'),
    addresses(name('US-WEST-2B', 'pin'), '172.0.0.2', '172.0.0.3'),
    nodata(name('us-west-2c', 'pin'), 'A'),
    addresses(name('us-west-2a', 'prefer'), '172.0.0.1'),
    addresses(name('us-west-2c', 'prefer'), '172.0.0.1', '172.0.0.2', '172.0.0.3'),
    nx(name('us-west-2a', 'pin', 'ghost'), 'A'),
    nx(name('us-west-2a', 'florp'), 'A'),
    nx(name('us-west-2a', 'pin', 'clstr'), 'A'),
    nodata(name('us-west-2c', 'pin'), 'TXT'),
    nodata(name('us-west-2c', 'prefer'), 'TXT'),
    {
      qname: name('us-west-2c', 'prefer'), qtype: 'SRV', rcode: 'NOERROR',
      answer: [1, 2, 3].map((n) => `${name('us-west-2c', 'prefer')} 5 IN SRV 0 33 80 ${target(n)}`),
      extra: [1, 2, 3].map((n) => `${target(n)} 5 IN A 172.0.0.${n}`),
    },
    {
      qname: name('us-west-2b', 'pin'), qtype: 'SRV', rcode: 'NOERROR',
      answer: [2, 3].map((n) => `${name('us-west-2b', 'pin')} 5 IN SRV 0 50 80 ${target(n)}`),
      extra: [2, 3].map((n) => `${target(n)} 5 IN A 172.0.0.${n}`),
    },
    // A topology zone may span labels; none of these endpoints is in it.
    nodata('a.b.pin._zone.hdls.testns.svc.cluster.local.', 'A'),
    // Not under `pod`.
    nx('us-west-2a.pin._zone.x.testns.pod.cluster.local.', 'A'),
  ]);
});

test('without `zonal` the zone-scoped names are too long: NXDOMAIN', async (t) => {
  const { dns } = await startCluster(t, { zones: 'cluster.local', objects: zonalObjects });
  await checkCases(dns, [nx('us-west-2a.pin._zone.hdls.testns.svc.cluster.local.', 'A')]);
});
