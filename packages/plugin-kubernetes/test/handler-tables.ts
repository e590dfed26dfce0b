/**
 * CoreDNS's handler tables (TestServeDNS, TestMultiClusterServeDNS, TestServeNamespaceDNS) over
 * real UDP and TCP, with the fixtures served by the test API server and read by the real client.
 */
import { test } from 'node:test';
import { checkCases, handlerObjects, multiclusterObjects, soa, startCluster } from './fixtures.js';
import { commonDnsTestCases, dnsTestCases, multiclusterDnsTestCases } from './tables.js';

test('TestServeDNS: commonDnsTestCases + dnsTestCases (namespaces testns)', async (t) => {
  const { dns } = await startCluster(t, { zones: 'cluster.local', options: 'namespaces testns', objects: handlerObjects, upstream: true });
  await checkCases(dns, [...commonDnsTestCases, ...dnsTestCases]);
});

test('TestMultiClusterServeDNS: commonDnsTestCases + multiclusterDnsTestCases from ServiceImports', async (t) => {
  const { dns } = await startCluster(t, { zones: 'cluster.local', options: 'namespaces testns\nmulticluster cluster.local', objects: multiclusterObjects });
  await checkCases(dns, [...commonDnsTestCases, ...multiclusterDnsTestCases]);
});

test('TestServeNamespaceDNS: without `namespaces` an existing namespace answers, a missing one is NXDOMAIN', async (t) => {
  const { dns } = await startCluster(t, { zones: 'cluster.local', options: 'ttl 30', objects: handlerObjects });
  await checkCases(dns, [
    { qname: 'svc1.testns.svc.cluster.local.', qtype: 'A', rcode: 'NOERROR', answer: ['svc1.testns.svc.cluster.local. 30 IN A 10.0.0.1'] },
    { qname: 'svc1.unexposedns.svc.cluster.local.', qtype: 'A', rcode: 'NOERROR', answer: ['svc1.unexposedns.svc.cluster.local. 30 IN A 10.0.0.2'] },
    { qname: 'svc1.nsnoexist.svc.cluster.local.', qtype: 'A', rcode: 'NXDOMAIN', ns: [soa('cluster.local.', 30)] },
  ]);
});
