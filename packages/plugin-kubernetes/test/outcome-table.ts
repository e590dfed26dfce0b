/**
 * The outcome table of the kubernetes plugin with default options (CoreDNS v1.14.7 behaviour):
 * one row per kind of name and query type, in a cluster laid out like a kubeadm one (the DNS
 * server is an endpoint of kube-system/kube-dns), over UDP and TCP.
 */
import { test } from 'node:test';
import { checkCases, endpointSlice, namespace, pod, service, serviceImport, soa, startCluster } from './fixtures.js';
import type { Case } from './fixtures.js';

const Z = 'cluster.local.';
const dnsPorts = [{ name: 'dns', protocol: 'UDP', port: 53 }, { name: 'dns-tcp', protocol: 'TCP', port: 53 }];
const http = { name: 'http', protocol: 'TCP', port: 80 };

const objects = [
  namespace('ns'),
  namespace('kube-system'),
  service('kube-dns', 'kube-system', { clusterIPs: ['10.96.0.10'], ports: dnsPorts }),
  endpointSlice('kube-dns-abcde', 'kube-system', 'kube-dns', [{ ip: '10.244.0.5', pod: 'coredns-1' }], dnsPorts),
  service('svc1', 'ns', { clusterIPs: ['10.0.0.1'], ports: [http] }),
  endpointSlice('svc1-x', 'ns', 'svc1', [{ ip: '10.244.1.1' }], [http]),
  service('hdls', 'ns', { clusterIPs: ['None'], ports: [http] }),
  endpointSlice('hdls-x', 'ns', 'hdls', [{ ip: '10.244.2.10', hostname: 'web-0' }, { ip: '10.244.2.11', hostname: 'web-1' }, { ip: '10.244.2.12', hostname: 'web-2', ready: false }], [http]),
  service('hdls-empty', 'ns', { clusterIPs: ['None'], ports: [http] }),
  endpointSlice('hdls-empty-x', 'ns', 'hdls-empty', [{ ip: '10.244.3.1', ready: false }], [http]),
  service('ext', 'ns', { type: 'ExternalName', externalName: 'ext.interwebs.test' }),
  pod('web-0', 'ns', '1.2.3.4'),
];

const nx = (qname: string, qtype: Case['qtype']): Case => ({ qname, qtype, rcode: 'NXDOMAIN', ns: [soa(Z)] });
const nodata = (qname: string, qtype: Case['qtype']): Case => ({ qname, qtype, rcode: 'NOERROR', ns: [soa(Z)] });
const svc1 = 'svc1.ns.svc.cluster.local.';
const hdls = 'hdls.ns.svc.cluster.local.';

const rows: Case[] = [
  { qname: svc1, qtype: 'A', rcode: 'NOERROR', answer: [`${svc1} 5 IN A 10.0.0.1`] },
  nodata(svc1, 'AAAA'),
  { qname: svc1, qtype: 'SRV', rcode: 'NOERROR', answer: [`${svc1} 5 IN SRV 0 100 80 ${svc1}`], extra: [`${svc1} 5 IN A 10.0.0.1`] },
  ...(['TXT', 'MX', 'CNAME', 'HINFO', 'SOA', 'PTR'] as const).map((qtype) => nodata(svc1, qtype)),
  ...(['A', 'AAAA', 'SRV', 'TXT', 'MX', 'CNAME', 'HINFO', 'PTR'] as const).map((qtype) => nx('svc0.ns.svc.cluster.local.', qtype)),
  // SOA below the apex is NODATA even for a missing name (upstream quirk, kept).
  nodata('svc0.ns.svc.cluster.local.', 'SOA'),
  nx('svc1.nope.svc.cluster.local.', 'A'),
  { qname: hdls, qtype: 'A', rcode: 'NOERROR', answer: [`${hdls} 5 IN A 10.244.2.10`, `${hdls} 5 IN A 10.244.2.11`] },
  nx('hdls-empty.ns.svc.cluster.local.', 'A'),
  { qname: `web-0.${hdls}`, qtype: 'A', rcode: 'NOERROR', answer: [`web-0.${hdls} 5 IN A 10.244.2.10`] },
  nx(`web-2.${hdls}`, 'A'),
  {
    qname: `_http._tcp.${hdls}`, qtype: 'SRV', rcode: 'NOERROR',
    answer: [`_http._tcp.${hdls} 5 IN SRV 0 50 80 web-0.${hdls}`, `_http._tcp.${hdls} 5 IN SRV 0 50 80 web-1.${hdls}`],
    extra: [`web-0.${hdls} 5 IN A 10.244.2.10`, `web-1.${hdls} 5 IN A 10.244.2.11`],
  },
  { qname: `http.tcp.${hdls}`, qtype: 'SRV', rcode: 'NOERROR', answer: [`http.tcp.${hdls} 5 IN SRV 0 50 80 web-0.${hdls}`, `http.tcp.${hdls} 5 IN SRV 0 50 80 web-1.${hdls}`], extra: [`web-0.${hdls} 5 IN A 10.244.2.10`, `web-1.${hdls} 5 IN A 10.244.2.11`] },
  nx(`_https._tcp.${hdls}`, 'SRV'),
  nx(`_tcp.${svc1}`, 'A'),
  { qname: 'ext.ns.svc.cluster.local.', qtype: 'A', rcode: 'NOERROR', truncated: true, ordered: true, answer: ['ext.ns.svc.cluster.local. 5 IN CNAME ext.interwebs.test.', 'ext.interwebs.test. 5 IN A 1.2.3.4'] },
  nodata('ext.ns.svc.cluster.local.', 'SRV'),
  nx('1-2-3-4.ns.pod.cluster.local.', 'A'),
  { qname: 'dns-version.cluster.local.', qtype: 'TXT', rcode: 'NOERROR', answer: ['dns-version.cluster.local. 28800 IN TXT "1.1.0"'] },
  { qname: Z, qtype: 'SOA', rcode: 'NOERROR', answer: [soa(Z)] },
  { qname: Z, qtype: 'NS', rcode: 'NOERROR', answer: ['cluster.local. 5 IN NS kube-dns.kube-system.svc.cluster.local.'], extra: ['kube-dns.kube-system.svc.cluster.local. 5 IN A 10.96.0.10'] },
  nodata(Z, 'A'),
  nodata('svc.cluster.local.', 'A'),
  nodata('ns.svc.cluster.local.', 'A'),
  nx('foo.cluster.local.', 'A'),
  nx('foo.cluster.local.', 'NS'),
  // TXT answers only dns-version: the apex is NXDOMAIN for TXT (upstream quirk, kept).
  nx(Z, 'TXT'),
  { qname: '10.0.96.10.in-addr.arpa.', qtype: 'PTR', rcode: 'NOERROR', answer: ['10.0.96.10.in-addr.arpa. 5 IN PTR kube-dns.kube-system.svc.cluster.local.'] },
  { qname: '5.0.244.10.in-addr.arpa.', qtype: 'PTR', rcode: 'NOERROR', answer: ['5.0.244.10.in-addr.arpa. 5 IN PTR 10-244-0-5.kube-dns.kube-system.svc.cluster.local.'] },
  // Unknown reverse names fall through to the next plugin (forward in the stock Corefiles).
  { qname: '99.99.99.10.in-addr.arpa.', qtype: 'PTR', rcode: 'NXDOMAIN', aa: false },
  { qname: 'x.cluster.local.', qtype: 'AXFR', rcode: 'REFUSED' },
  nx('*.ns.svc.cluster.local.', 'A'),
  nx('any.ns.svc.cluster.local.', 'A'),
];

test('outcome table: default options, a kubeadm-shaped cluster, fallthrough for reverse zones', async (t) => {
  const { dns } = await startCluster(t, {
    zones: 'cluster.local in-addr.arpa ip6.arpa',
    options: 'fallthrough in-addr.arpa ip6.arpa',
    objects,
    upstream: true,
    overrides: { localIps: () => ['10.244.0.5'] },
  });
  await checkCases(dns, rows);
});

test('outcome table: pod rows per mode (insecure answers any IP, verified only a pod in the namespace)', async (t) => {
  const insecure = await startCluster(t, { zones: 'cluster.local', options: 'pods insecure', objects });
  await checkCases(insecure.dns, [{ qname: '1-2-3-4.ns.pod.cluster.local.', qtype: 'A', rcode: 'NOERROR', answer: ['1-2-3-4.ns.pod.cluster.local. 5 IN A 1.2.3.4'] }, { qname: '5-6-7-8.ns.pod.cluster.local.', qtype: 'A', rcode: 'NOERROR', answer: ['5-6-7-8.ns.pod.cluster.local. 5 IN A 5.6.7.8'] }]);
  const verified = await startCluster(t, { zones: 'cluster.local', options: 'pods verified', objects });
  await checkCases(verified.dns, [{ qname: '1-2-3-4.ns.pod.cluster.local.', qtype: 'A', rcode: 'NOERROR', answer: ['1-2-3-4.ns.pod.cluster.local. 5 IN A 1.2.3.4'] }, nx('5-6-7-8.ns.pod.cluster.local.', 'A')]);
});

test('`ttl 30` sets every TTL and the SOA minimum; `endpoint_pod_names` names endpoints after their pods', async (t) => {
  const { dns } = await startCluster(t, { zones: 'cluster.local', options: 'ttl 30\nendpoint_pod_names', objects });
  await checkCases(dns, [
    { qname: svc1, qtype: 'A', rcode: 'NOERROR', answer: [`${svc1} 30 IN A 10.0.0.1`] },
    { qname: 'coredns-1.kube-dns.kube-system.svc.cluster.local.', qtype: 'A', rcode: 'NOERROR', answer: ['coredns-1.kube-dns.kube-system.svc.cluster.local. 30 IN A 10.244.0.5'] },
    // A hostname wins over the pod name.
    { qname: `web-0.${hdls}`, qtype: 'A', rcode: 'NOERROR', answer: [`web-0.${hdls} 30 IN A 10.244.2.10`] },
    { qname: 'svc0.ns.svc.cluster.local.', qtype: 'A', rcode: 'NXDOMAIN', ns: [soa(Z, 30)] },
  ]);
});

test('more rows: an IP ExternalName is ignored, a portless service has no SRV, `bind` hides NS addresses, noendpoints with ignore empty_service', async (t) => {
  const extra = [
    ...objects,
    service('ipext', 'ns', { type: 'ExternalName', externalName: '192.0.2.1' }),
    service('portless', 'ns', { clusterIPs: ['10.0.0.9'] }),
  ];
  // No localIps override: `bind 127.0.0.1` leaves the server without NS addresses (upstream quirk).
  const { dns } = await startCluster(t, { zones: 'cluster.local', objects: extra });
  await checkCases(dns, [
    nx('ipext.ns.svc.cluster.local.', 'A'),
    nx('ipext.ns.svc.cluster.local.', 'CNAME'),
    { qname: 'portless.ns.svc.cluster.local.', qtype: 'A', rcode: 'NOERROR', answer: ['portless.ns.svc.cluster.local. 5 IN A 10.0.0.9'] },
    nodata('portless.ns.svc.cluster.local.', 'SRV'),
    nodata(Z, 'NS'),
    nodata('ns.dns.cluster.local.', 'A'),
  ]);
  const quirk = await startCluster(t, { zones: 'cluster.local', options: 'noendpoints\nignore empty_service', objects: extra });
  await checkCases(quirk.dns, [nx(svc1, 'A'), nx('portless.ns.svc.cluster.local.', 'A')]);
});

test('an ExternalName into another zone of the plugin is answered by the plugin itself', async (t) => {
  const { dns } = await startCluster(t, {
    zones: 'cluster.local clusterset.local',
    options: 'multicluster clusterset.local',
    objects: [...objects, service('x', 'ns', { type: 'ExternalName', externalName: 'svc1.ns.svc.clusterset.local' }), serviceImport('svc1', 'ns', { ips: ['100.0.0.1'], ports: [http] })],
  });
  await checkCases(dns, [
    { qname: 'x.ns.svc.cluster.local.', qtype: 'A', rcode: 'NOERROR', ordered: true, answer: ['x.ns.svc.cluster.local. 5 IN CNAME svc1.ns.svc.clusterset.local.', 'svc1.ns.svc.clusterset.local. 5 IN A 100.0.0.1'] },
    // The target exists but has no AAAA: the lookup replied, so the CNAME stays (CoreDNS keeps it whatever the rcode).
    { qname: 'x.ns.svc.cluster.local.', qtype: 'AAAA', rcode: 'NOERROR', answer: ['x.ns.svc.cluster.local. 5 IN CNAME svc1.ns.svc.clusterset.local.'] },
  ]);
});
