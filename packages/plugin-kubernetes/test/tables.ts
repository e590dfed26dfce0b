/**
 * CoreDNS's handler test tables (plugin/kubernetes/handler_test.go `commonDnsTestCases`,
 * `dnsTestCases`, `multiclusterDnsTestCases`), transcribed: same questions, same expected
 * sections. SOA lines leave the serial out (CoreDNS's helper does not compare it either).
 */
import type { Case } from './fixtures.js';
import { soa } from './fixtures.js';

const Z = 'cluster.local.';
const SOA = soa(Z);
const nx = (qname: string, qtype: Case['qtype']): Case => ({ qname, qtype, rcode: 'NXDOMAIN', ns: [SOA] });
const nodata = (qname: string, qtype: Case['qtype']): Case => ({ qname, qtype, rcode: 'NOERROR', ns: [SOA] });

export const commonDnsTestCases: readonly Case[] = [
  { qname: 'svc1.testns.svc.cluster.local.', qtype: 'A', rcode: 'NOERROR', answer: ['svc1.testns.svc.cluster.local. 5 IN A 10.0.0.1'] },
  { qname: 'svcempty.testns.svc.cluster.local.', qtype: 'A', rcode: 'NOERROR', answer: ['svcempty.testns.svc.cluster.local. 5 IN A 10.0.0.1'] },
  {
    qname: 'svc1.testns.svc.cluster.local.', qtype: 'SRV', rcode: 'NOERROR',
    answer: ['svc1.testns.svc.cluster.local. 5 IN SRV 0 100 80 svc1.testns.svc.cluster.local.'],
    extra: ['svc1.testns.svc.cluster.local. 5 IN A 10.0.0.1'],
  },
  {
    qname: 'svcempty.testns.svc.cluster.local.', qtype: 'SRV', rcode: 'NOERROR',
    answer: ['svcempty.testns.svc.cluster.local. 5 IN SRV 0 100 80 svcempty.testns.svc.cluster.local.'],
    extra: ['svcempty.testns.svc.cluster.local. 5 IN A 10.0.0.1'],
  },
  {
    qname: 'svc6.testns.svc.cluster.local.', qtype: 'SRV', rcode: 'NOERROR',
    answer: ['svc6.testns.svc.cluster.local. 5 IN SRV 0 100 80 svc6.testns.svc.cluster.local.'],
    extra: ['svc6.testns.svc.cluster.local. 5 IN AAAA 1234:abcd::1'],
  },
  {
    qname: '_http._tcp.svc1.testns.svc.cluster.local.', qtype: 'SRV', rcode: 'NOERROR',
    answer: ['_http._tcp.svc1.testns.svc.cluster.local. 5 IN SRV 0 100 80 svc1.testns.svc.cluster.local.'],
    extra: ['svc1.testns.svc.cluster.local. 5 IN A 10.0.0.1'],
  },
  {
    qname: '_http._tcp.svcempty.testns.svc.cluster.local.', qtype: 'SRV', rcode: 'NOERROR',
    answer: ['_http._tcp.svcempty.testns.svc.cluster.local. 5 IN SRV 0 100 80 svcempty.testns.svc.cluster.local.'],
    extra: ['svcempty.testns.svc.cluster.local. 5 IN A 10.0.0.1'],
  },
  {
    qname: 'hdls1.testns.svc.cluster.local.', qtype: 'A', rcode: 'NOERROR',
    answer: ['172.0.0.2', '172.0.0.3', '172.0.0.4', '172.0.0.5'].map((ip) => `hdls1.testns.svc.cluster.local. 5 IN A ${ip}`),
  },
  { qname: 'hdlsprtls.testns.svc.cluster.local.', qtype: 'A', rcode: 'NOERROR', answer: ['hdlsprtls.testns.svc.cluster.local. 5 IN A 172.0.0.20'] },
  nodata('svc1.testns.svc.cluster.local.', 'AAAA'),
  nx('svc0.testns.svc.cluster.local.', 'AAAA'),
  nx('svc0.testns.svc.cluster.local.', 'A'),
  nx('svc0.svc-nons.svc.cluster.local.', 'A'),
  { qname: 'dns-version.cluster.local.', qtype: 'TXT', rcode: 'NOERROR', answer: ['dns-version.cluster.local. 28800 IN TXT "1.1.0"'] },
  nodata('svc1.testns.svc.cluster.local.', 'TXT'),
  nx('svc0.svc-nons.svc.cluster.local.', 'TXT'),
  nx('bogusendpoint.hdls1.testns.svc.cluster.local.', 'A'),
  nx('bogusendpoint.svc0.testns.svc.cluster.local.', 'A'),
  { qname: 'svc6.testns.svc.cluster.local.', qtype: 'AAAA', rcode: 'NOERROR', answer: ['svc6.testns.svc.cluster.local. 5 IN AAAA 1234:abcd::1'] },
  {
    qname: '_http._tcp.svc6.testns.svc.cluster.local.', qtype: 'SRV', rcode: 'NOERROR',
    answer: ['_http._tcp.svc6.testns.svc.cluster.local. 5 IN SRV 0 100 80 svc6.testns.svc.cluster.local.'],
    extra: ['svc6.testns.svc.cluster.local. 5 IN AAAA 1234:abcd::1'],
  },
  {
    qname: 'hdls1.testns.svc.cluster.local.', qtype: 'AAAA', rcode: 'NOERROR',
    answer: ['hdls1.testns.svc.cluster.local. 5 IN AAAA 5678:abcd::1', 'hdls1.testns.svc.cluster.local. 5 IN AAAA 5678:abcd::2'],
  },
  nodata('svc.cluster.local.', 'A'),
  nodata('pod.cluster.local.', 'A'),
  nodata('testns.svc.cluster.local.', 'A'),
  nodata('svc.cluster.local.', 'NS'),
  nodata('testns.svc.cluster.local.', 'NS'),
  nx('foo.cluster.local.', 'NS'),
  nx('foo.svc.cluster.local.', 'NS'),
  { qname: 'svc-dual-stack.testns.svc.cluster.local.', qtype: 'A', rcode: 'NOERROR', answer: ['svc-dual-stack.testns.svc.cluster.local. 5 IN A 10.0.0.3'] },
  { qname: 'svc-dual-stack.testns.svc.cluster.local.', qtype: 'AAAA', rcode: 'NOERROR', answer: ['svc-dual-stack.testns.svc.cluster.local. 5 IN AAAA 10::3'] },
  {
    qname: 'svc-dual-stack.testns.svc.cluster.local.', qtype: 'SRV', rcode: 'NOERROR',
    answer: ['svc-dual-stack.testns.svc.cluster.local. 5 IN SRV 0 50 80 svc-dual-stack.testns.svc.cluster.local.'],
    extra: ['svc-dual-stack.testns.svc.cluster.local. 5 IN A 10.0.0.3', 'svc-dual-stack.testns.svc.cluster.local. 5 IN AAAA 10::3'],
  },
  nodata('svc1.testns.svc.cluster.local.', 'SOA'),
  nx('endpoint.external.testns.svc.cluster.local.', 'CNAME'),
  nx('subdomain.subdomain.external.testns.svc.cluster.local.', 'CNAME'),
];

const hdlsTargets = (cluster: string): string[] =>
  ['172-0-0-2', '172-0-0-3', '5678-abcd--1', '5678-abcd--2', 'dup-name'].map((n) => `${n}.${cluster}hdls1.testns.svc.cluster.local.`);

function headlessSrv(cluster: string): Case {
  const [t2, t3, t61, t62, dup] = hdlsTargets(cluster);
  return {
    qname: '_http._tcp.hdls1.testns.svc.cluster.local.', qtype: 'SRV', rcode: 'NOERROR',
    answer: hdlsTargets(cluster).map((target) => `_http._tcp.hdls1.testns.svc.cluster.local. 5 IN SRV 0 16 80 ${target}`),
    extra: [`${t2} 5 IN A 172.0.0.2`, `${t3} 5 IN A 172.0.0.3`, `${t61} 5 IN AAAA 5678:abcd::1`, `${t62} 5 IN AAAA 5678:abcd::2`, `${dup} 5 IN A 172.0.0.4`, `${dup} 5 IN A 172.0.0.5`],
  };
}

export const dnsTestCases: readonly Case[] = [
  headlessSrv(''),
  {
    qname: 'hdls1.testns.svc.cluster.local.', qtype: 'A', rcode: 'NOERROR',
    answer: ['172.0.0.2', '172.0.0.3', '172.0.0.4', '172.0.0.5'].map((ip) => `hdls1.testns.svc.cluster.local. 5 IN A ${ip}`),
  },
  { qname: '5678-abcd--2.hdls1.testns.svc.cluster.local.', qtype: 'AAAA', rcode: 'NOERROR', answer: ['5678-abcd--2.hdls1.testns.svc.cluster.local. 5 IN AAAA 5678:abcd::2'] },
  { qname: '5678-abcd--1.hdls1.testns.svc.cluster.local.', qtype: 'AAAA', rcode: 'NOERROR', answer: ['5678-abcd--1.hdls1.testns.svc.cluster.local. 5 IN AAAA 5678:abcd::1'] },
  { qname: '172-0-0-20.hdlsprtls.testns.svc.cluster.local.', qtype: 'A', rcode: 'NOERROR', answer: ['172-0-0-20.hdlsprtls.testns.svc.cluster.local. 5 IN A 172.0.0.20'] },
  { qname: '172-0-0-2.hdls1.testns.svc.cluster.local.', qtype: 'A', rcode: 'NOERROR', answer: ['172-0-0-2.hdls1.testns.svc.cluster.local. 5 IN A 172.0.0.2'] },
  { qname: '172-0-0-3.hdls1.testns.svc.cluster.local.', qtype: 'A', rcode: 'NOERROR', answer: ['172-0-0-3.hdls1.testns.svc.cluster.local. 5 IN A 172.0.0.3'] },
  {
    qname: 'dup-name.hdls1.testns.svc.cluster.local.', qtype: 'A', rcode: 'NOERROR',
    answer: ['dup-name.hdls1.testns.svc.cluster.local. 5 IN A 172.0.0.4', 'dup-name.hdls1.testns.svc.cluster.local. 5 IN A 172.0.0.5'],
  },
  { qname: 'external.testns.svc.cluster.local.', qtype: 'CNAME', rcode: 'NOERROR', answer: ['external.testns.svc.cluster.local. 5 IN CNAME ext.interwebs.test.'] },
  {
    qname: 'external.testns.svc.cluster.local.', qtype: 'A', rcode: 'NOERROR', truncated: true, ordered: true,
    answer: ['external.testns.svc.cluster.local. 5 IN CNAME ext.interwebs.test.', 'ext.interwebs.test. 5 IN A 1.2.3.4'],
  },
  {
    qname: 'external-to-service.testns.svc.cluster.local.', qtype: 'A', rcode: 'NOERROR', ordered: true,
    answer: ['external-to-service.testns.svc.cluster.local. 5 IN CNAME svc1.testns.svc.cluster.local.', 'svc1.testns.svc.cluster.local. 5 IN A 10.0.0.1'],
  },
];

export const multiclusterDnsTestCases: readonly Case[] = [
  headlessSrv('cluster1.'),
  {
    qname: 'hdls1.testns.svc.cluster.local.', qtype: 'A', rcode: 'NOERROR',
    answer: ['172.0.0.2', '172.0.0.3', '172.0.0.4', '172.0.0.5'].map((ip) => `hdls1.testns.svc.cluster.local. 5 IN A ${ip}`),
  },
  { qname: '5678-abcd--2.cluster1.hdls1.testns.svc.cluster.local.', qtype: 'AAAA', rcode: 'NOERROR', answer: ['5678-abcd--2.cluster1.hdls1.testns.svc.cluster.local. 5 IN AAAA 5678:abcd::2'] },
  { qname: '5678-abcd--1.cluster1.hdls1.testns.svc.cluster.local.', qtype: 'AAAA', rcode: 'NOERROR', answer: ['5678-abcd--1.cluster1.hdls1.testns.svc.cluster.local. 5 IN AAAA 5678:abcd::1'] },
  { qname: '172-0-0-20.cluster1.hdlsprtls.testns.svc.cluster.local.', qtype: 'A', rcode: 'NOERROR', answer: ['172-0-0-20.cluster1.hdlsprtls.testns.svc.cluster.local. 5 IN A 172.0.0.20'] },
  nx('5678-abcd--1.hdls1.testns.svc.cluster.local.', 'AAAA'),
  { qname: '172-0-0-2.cluster1.hdls1.testns.svc.cluster.local.', qtype: 'A', rcode: 'NOERROR', answer: ['172-0-0-2.cluster1.hdls1.testns.svc.cluster.local. 5 IN A 172.0.0.2'] },
  { qname: '172-0-0-3.cluster1.hdls1.testns.svc.cluster.local.', qtype: 'A', rcode: 'NOERROR', answer: ['172-0-0-3.cluster1.hdls1.testns.svc.cluster.local. 5 IN A 172.0.0.3'] },
  {
    qname: 'dup-name.cluster1.hdls1.testns.svc.cluster.local.', qtype: 'A', rcode: 'NOERROR',
    answer: ['dup-name.cluster1.hdls1.testns.svc.cluster.local. 5 IN A 172.0.0.4', 'dup-name.cluster1.hdls1.testns.svc.cluster.local. 5 IN A 172.0.0.5'],
  },
];
