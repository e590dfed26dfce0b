/**
 * CoreDNS's plugin/k8s_external external_test.go and apex_test.go tables, asked over UDP and TCP
 * of a Foghorn server whose kubernetes plugin watches the test API server over HTTPS (bearer
 * token, a kubeconfig) and whose k8s_external answers from that same index.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import bind from '@foghorn/plugin-bind';
import whoami from '@foghorn/plugin-whoami';
import { createKubernetesPlugin } from '@foghorn/plugin-kubernetes';
import { checkCases, directivesOf, eventually, query, rcodeOf, startServer } from '@foghorn/testkit';
import type { Case, CheckOptions, TestServer } from '@foghorn/testkit';
import { makeTempDir, startKubeApiServer, writeKubeconfig } from '@foghorn/testkit/kube';
import type { ApiObject, ApiResource, KubeApiServer } from '@foghorn/testkit/kube';
import k8sExternal from '../src/index.js';

const resources: readonly ApiResource[] = [
  { group: '', version: 'v1', plural: 'services', kind: 'Service', builtin: true },
  { group: 'discovery.k8s.io', version: 'v1', plural: 'endpointslices', kind: 'EndpointSlice', builtin: true },
  { group: '', version: 'v1', plural: 'pods', kind: 'Pod', builtin: true },
  { group: '', version: 'v1', plural: 'namespaces', kind: 'Namespace', builtin: true, namespaced: false },
];

const http = { name: 'http', protocol: 'TCP', port: 80 };

function service(name: string, spec: Record<string, unknown>, status: Record<string, unknown> = {}): ApiObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'testns' }, spec: { ports: [http], ...spec }, status };
}

/** external_test.go `svcIndexExternal` and `epIndexExternal` as API objects. */
const objects: ApiObject[] = [
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'testns' } },
  service('svc1', { type: 'ClusterIP', clusterIP: '10.0.0.1', externalIPs: ['1.2.3.4'] }),
  service('svc6', { type: 'ClusterIP', clusterIP: '10.0.0.3', externalIPs: ['1:2::5'] }),
  service('svc11', { type: 'LoadBalancer', clusterIP: '10.0.0.3' }, { loadBalancer: { ingress: [{ ip: '2.3.4.5' }] } }),
  service('svc12', { type: 'LoadBalancer', clusterIP: '10.0.0.3' }, { loadBalancer: { ingress: [{ hostname: 'dummy.hostname' }] } }),
  service('svc-headless', { type: 'ClusterIP', clusterIP: 'None' }),
  {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: 'svc-headless-abcde', namespace: 'testns', labels: { 'kubernetes.io/service-name': 'svc-headless' } },
    addressType: 'IPv4',
    endpoints: [
      { addresses: ['1.2.3.4'], hostname: 'endpoint-svc-0', conditions: { ready: true }, targetRef: { kind: 'Pod', name: 'endpoint-svc-0', namespace: 'testns' } },
      { addresses: ['1.2.3.5'], hostname: 'endpoint-svc-1', conditions: { ready: true }, targetRef: { kind: 'Pod', name: 'endpoint-svc-1', namespace: 'testns' } },
    ],
    ports: [http],
  },
];

interface Harness {
  readonly api: KubeApiServer;
  readonly dns: TestServer;
}

/** The API server over HTTPS with `objects`, and Foghorn with `body` in `.:0` after `bind`. */
async function start(t: TestContext, body: string, apiObjects: readonly ApiObject[] = objects): Promise<Harness> {
  const api = await startKubeApiServer({ resources, tls: true, token: 'k8s-external' });
  t.after(() => api.close());
  for (const object of apiObjects) api.apply(structuredClone(object));
  const dir = makeTempDir();
  t.after(() => dir.remove());
  const kubeconfig = writeKubeconfig(join(dir.path, 'config'), [{ name: 'test', server: api.url, ca: api.ca!, token: 'k8s-external' }]);
  const kubernetes = createKubernetesPlugin({ localIps: () => ['127.0.0.1'], resolvSearch: async () => [], watch: { backoffInitialMs: 20, backoffMaxMs: 200, logIntervalMs: 60_000 } });
  const corefile = `.:0 {\n    bind 127.0.0.1\n${body.replaceAll('KUBECONFIG', kubeconfig)}\n}\n`;
  const dns = await startServer(corefile, { directives: directivesOf(bind, k8sExternal, kubernetes, whoami) });
  t.after(() => dns.close());
  return { api, dns };
}

const corefile = `    kubernetes cluster.local {
        kubeconfig KUBECONFIG test
        namespaces testns
    }
    k8s_external example.com in-addr.arpa {
        headless
    }`;

const soa = 'example.com. 5 IN SOA ns1.dns.example.com. hostmaster.dns.example.com. 0 7200 1800 86400 5';
const options: CheckOptions = { transports: ['udp', 'tcp'], flags: { aa: true, tc: false }, soaSerial: false };

/** external_test.go `tests`. */
const externalCases: Case[] = [
  { qname: '4.3.2.1.in-addr.arpa.', qtype: 'PTR', answer: ['4.3.2.1.in-addr.arpa. 5 IN PTR svc1.testns.example.com.'] },
  { qname: 'svc1.testns.example.com.', qtype: 'PTR', ns: [soa] },
  { qname: 'not-existing.testns.example.com.', qtype: 'PTR', rcode: 'NXDOMAIN', ns: [soa] },
  { qname: 'svc1.testns.example.com.', qtype: 'A', answer: ['svc1.testns.example.com. 5 IN A 1.2.3.4'] },
  { qname: 'svc1.testns.example.com.', qtype: 'SRV', answer: ['svc1.testns.example.com. 5 IN SRV 0 100 80 svc1.testns.example.com.'], extra: ['svc1.testns.example.com. 5 IN A 1.2.3.4'] },
  { qname: '*._not-udp-or-tcp.svc1.testns.example.com.', qtype: 'SRV', rcode: 'NXDOMAIN', ns: [soa] },
  { qname: '_http._tcp.svc1.testns.example.com.', qtype: 'SRV', answer: ['_http._tcp.svc1.testns.example.com. 5 IN SRV 0 100 80 svc1.testns.example.com.'], extra: ['svc1.testns.example.com. 5 IN A 1.2.3.4'] },
  { qname: 'svc1.testns.example.com.', qtype: 'AAAA', ns: [soa] },
  { qname: 'svc0.testns.example.com.', qtype: 'AAAA', rcode: 'NXDOMAIN', ns: [soa] },
  { qname: 'svc0.testns.example.com.', qtype: 'A', rcode: 'NXDOMAIN', ns: [soa] },
  { qname: 'svc0.svc-nons.example.com.', qtype: 'A', rcode: 'NXDOMAIN', ns: [soa] },
  { qname: 'svc6.testns.example.com.', qtype: 'AAAA', answer: ['svc6.testns.example.com. 5 IN AAAA 1:2::5'] },
  { qname: '_http._tcp.svc6.testns.example.com.', qtype: 'SRV', answer: ['_http._tcp.svc6.testns.example.com. 5 IN SRV 0 100 80 svc6.testns.example.com.'], extra: ['svc6.testns.example.com. 5 IN AAAA 1:2::5'] },
  { qname: 'svc6.testns.example.com.', qtype: 'SRV', answer: ['svc6.testns.example.com. 5 IN SRV 0 100 80 svc6.testns.example.com.'], extra: ['svc6.testns.example.com. 5 IN AAAA 1:2::5'] },
  { qname: 'testns.example.com.', qtype: 'A', ns: [soa] },
  { qname: 'testns.example.com.', qtype: 'SOA', ns: [soa] },
  { qname: 'svc11.testns.example.com.', qtype: 'A', answer: ['svc11.testns.example.com. 5 IN A 2.3.4.5'] },
  { qname: '_http._tcp.svc11.testns.example.com.', qtype: 'SRV', answer: ['_http._tcp.svc11.testns.example.com. 5 IN SRV 0 100 80 svc11.testns.example.com.'], extra: ['svc11.testns.example.com. 5 IN A 2.3.4.5'] },
  { qname: 'svc11.testns.example.com.', qtype: 'SRV', answer: ['svc11.testns.example.com. 5 IN SRV 0 100 80 svc11.testns.example.com.'], extra: ['svc11.testns.example.com. 5 IN A 2.3.4.5'] },
  { qname: 'svc12.testns.example.com.', qtype: 'A', answer: ['svc12.testns.example.com. 5 IN CNAME dummy.hostname.'] },
  { qname: '_http._tcp.svc12.testns.example.com.', qtype: 'SRV', answer: ['_http._tcp.svc12.testns.example.com. 5 IN SRV 0 100 80 dummy.hostname.'] },
  { qname: 'svc12.testns.example.com.', qtype: 'SRV', answer: ['svc12.testns.example.com. 5 IN SRV 0 100 80 dummy.hostname.'] },
  { qname: 'svc-headless.testns.example.com.', qtype: 'A', answer: ['svc-headless.testns.example.com. 5 IN A 1.2.3.4', 'svc-headless.testns.example.com. 5 IN A 1.2.3.5'] },
  {
    qname: 'svc-headless.testns.example.com.',
    qtype: 'SRV',
    answer: ['svc-headless.testns.example.com. 5 IN SRV 0 50 80 endpoint-svc-0.svc-headless.testns.example.com.', 'svc-headless.testns.example.com. 5 IN SRV 0 50 80 endpoint-svc-1.svc-headless.testns.example.com.'],
    extra: ['endpoint-svc-0.svc-headless.testns.example.com. 5 IN A 1.2.3.4', 'endpoint-svc-1.svc-headless.testns.example.com. 5 IN A 1.2.3.5'],
  },
  {
    qname: '_http._tcp.svc-headless.testns.example.com.',
    qtype: 'SRV',
    answer: ['_http._tcp.svc-headless.testns.example.com. 5 IN SRV 0 50 80 endpoint-svc-0.svc-headless.testns.example.com.', '_http._tcp.svc-headless.testns.example.com. 5 IN SRV 0 50 80 endpoint-svc-1.svc-headless.testns.example.com.'],
    extra: ['endpoint-svc-0.svc-headless.testns.example.com. 5 IN A 1.2.3.4', 'endpoint-svc-1.svc-headless.testns.example.com. 5 IN A 1.2.3.5'],
  },
  { qname: 'endpoint-svc-0.svc-headless.testns.example.com.', qtype: 'SRV', answer: ['endpoint-svc-0.svc-headless.testns.example.com. 5 IN SRV 0 100 80 endpoint-svc-0.svc-headless.testns.example.com.'], extra: ['endpoint-svc-0.svc-headless.testns.example.com. 5 IN A 1.2.3.4'] },
  { qname: 'endpoint-svc-1.svc-headless.testns.example.com.', qtype: 'SRV', answer: ['endpoint-svc-1.svc-headless.testns.example.com. 5 IN SRV 0 100 80 endpoint-svc-1.svc-headless.testns.example.com.'], extra: ['endpoint-svc-1.svc-headless.testns.example.com. 5 IN A 1.2.3.5'] },
  { qname: 'endpoint-svc-0.svc-headless.testns.example.com.', qtype: 'A', answer: ['endpoint-svc-0.svc-headless.testns.example.com. 5 IN A 1.2.3.4'] },
  { qname: 'endpoint-svc-1.svc-headless.testns.example.com.', qtype: 'A', answer: ['endpoint-svc-1.svc-headless.testns.example.com. 5 IN A 1.2.3.5'] },
];

/** apex_test.go `testsApex`: no endpoint of the server's own, so the nameserver is its local address. */
const apexCases: Case[] = [
  { qname: 'example.com.', qtype: 'SOA', answer: [soa] },
  { qname: 'example.com.', qtype: 'NS', answer: ['example.com. 5 IN NS ns1.dns.example.com.'], extra: ['ns1.dns.example.com. 5 IN A 127.0.0.1'] },
  { qname: 'example.com.', qtype: 'SRV', ns: [soa] },
  { qname: 'dns.example.com.', qtype: 'SRV', ns: [soa] },
  { qname: 'dns.example.com.', qtype: 'NS', ns: [soa] },
  { qname: 'ns1.dns.example.com.', qtype: 'SRV', ns: [soa] },
  { qname: 'ns1.dns.example.com.', qtype: 'NS', ns: [soa] },
  { qname: 'ns1.dns.example.com.', qtype: 'AAAA', ns: [soa] },
  { qname: 'ns1.dns.example.com.', qtype: 'A', answer: ['ns1.dns.example.com. 5 IN A 127.0.0.1'] },
  { qname: 'ns2.dns.example.com.', qtype: 'A', rcode: 'NXDOMAIN', ns: [soa] },
  { qname: 'a.ns1.dns.example.com.', qtype: 'A', rcode: 'NXDOMAIN', ns: [soa] },
];

async function serial(dns: TestServer): Promise<number> {
  const reply = await query({ port: dns.port() }, 'example.com.', 'SOA');
  return (reply.answers?.[0] as { data: { serial: number } }).data.serial;
}

async function synced(dns: TestServer): Promise<void> {
  await eventually(async () => assert.equal(rcodeOf(await query({ port: dns.port() }, 'svc-headless.testns.example.com.', 'A')), 'NOERROR'), 5000, 'k8s_external answers');
}

test('k8s_external: CoreDNS TestExternal and TestApex over UDP and TCP, from the kubernetes watch', async (t) => {
  const { api, dns } = await start(t, corefile);
  await synced(dns);
  await checkCases({ port: dns.port() }, externalCases, options);
  await checkCases({ port: dns.port() }, apexCases, options);
  // No update has changed external addresses yet: serial 0, as CoreDNS (controller.go `extModified`).
  assert.equal(await serial(dns), 0);
  // One list and one watch per resource: k8s_external reads the kubernetes plugin's index.
  assert.deepEqual(api.requestCounts('watch'), { '/api/v1/services': 1, '/apis/discovery.k8s.io/v1/endpointslices': 1, '/api/v1/namespaces': 1 });
  assert.deepEqual(api.openWatches(), { '/api/v1/services': 1, '/apis/discovery.k8s.io/v1/endpointslices': 1, '/api/v1/namespaces': 1 });
});

test('k8s_external follows Service changes', async (t) => {
  const { api, dns } = await start(t, corefile);
  await synced(dns);
  api.apply(service('svc1', { type: 'ClusterIP', clusterIP: '10.0.0.1', externalIPs: ['1.2.3.4', '5.6.7.8'] }));
  await eventually(async () => assert.equal((await query({ port: dns.port() }, 'svc1.testns.example.com.', 'A')).answers?.length, 2), 5000, 'the new external IP');
  // An update of external addresses moves the serial to its time.
  assert.ok(Math.abs((await serial(dns)) - Date.now() / 1000) < 60, 'the serial is the time of the update');
  api.delete({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc11', namespace: 'testns' } });
  await eventually(async () => assert.equal(rcodeOf(await query({ port: dns.port() }, 'svc11.testns.example.com.', 'A')), 'NXDOMAIN'), 5000, 'svc11 gone');
});

test('without headless, a headless service and endpoint names do not exist', async (t) => {
  const { dns } = await start(t, corefile.replace('        headless\n', ''));
  await eventually(async () => assert.equal(rcodeOf(await query({ port: dns.port() }, 'svc1.testns.example.com.', 'A')), 'NOERROR'), 5000, 'synced');
  await checkCases({ port: dns.port() }, [
    { qname: 'svc-headless.testns.example.com.', qtype: 'A', rcode: 'NXDOMAIN', ns: [soa] },
    { qname: 'endpoint-svc-0.svc-headless.testns.example.com.', qtype: 'A', rcode: 'NXDOMAIN', ns: [soa] },
  ], options);
});

test('apex and ttl: the nameserver label and the TTL of answers and SOA', async (t) => {
  const { dns } = await start(t, corefile.replace('        headless', '        apex testdns\n        ttl 30'));
  await eventually(async () => assert.equal(rcodeOf(await query({ port: dns.port() }, 'svc1.testns.example.com.', 'A')), 'NOERROR'), 5000, 'synced');
  const soa30 = 'example.com. 30 IN SOA ns1.testdns.example.com. hostmaster.testdns.example.com. 0 7200 1800 86400 30';
  await checkCases({ port: dns.port() }, [
    { qname: 'svc1.testns.example.com.', qtype: 'A', answer: ['svc1.testns.example.com. 30 IN A 1.2.3.4'] },
    // SRV records keep the kubernetes plugin's TTL, as in CoreDNS (msg.Service's TTL).
    { qname: 'svc1.testns.example.com.', qtype: 'SRV', answer: ['svc1.testns.example.com. 5 IN SRV 0 100 80 svc1.testns.example.com.'], extra: ['svc1.testns.example.com. 30 IN A 1.2.3.4'] },
    { qname: 'example.com.', qtype: 'NS', answer: ['example.com. 30 IN NS ns1.testdns.example.com.'], extra: ['ns1.testdns.example.com. 30 IN A 127.0.0.1'] },
    { qname: 'ns1.testdns.example.com.', qtype: 'A', answer: ['ns1.testdns.example.com. 30 IN A 127.0.0.1'] },
    { qname: 'nope.testns.example.com.', qtype: 'A', rcode: 'NXDOMAIN', ns: [soa30] },
  ], options);
});

test('fallthrough: a name that does not exist goes to the next plugin', async (t) => {
  const { dns } = await start(t, `${corefile.replace('        headless', '        fallthrough')}\n    whoami`);
  await eventually(async () => assert.equal(rcodeOf(await query({ port: dns.port() }, 'svc1.testns.example.com.', 'A')), 'NOERROR'), 5000, 'synced');
  const passed = await query({ port: dns.port() }, 'nope.testns.example.com.', 'A');
  assert.equal(rcodeOf(passed), 'NOERROR');
  assert.deepEqual(passed.additionals?.map((rr) => rr.type), ['A', 'SRV'], 'whoami answered');
  // NODATA is not a name error: it stays with k8s_external.
  const nodata = await query({ port: dns.port() }, 'svc1.testns.example.com.', 'AAAA');
  assert.deepEqual(nodata.authorities?.map((rr) => rr.type), ['SOA']);
});

test('the nameservers are the external IPs of the services whose endpoints are this server', async (t) => {
  const own: ApiObject[] = [
    ...objects,
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-system' } },
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'kube-dns', namespace: 'kube-system' }, spec: { clusterIP: '10.96.0.10', externalIPs: ['192.0.2.53'], ports: [{ name: 'dns', protocol: 'UDP', port: 53 }] } },
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'kube-dns-x', namespace: 'kube-system', labels: { 'kubernetes.io/service-name': 'kube-dns' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
      ports: [{ name: 'dns', protocol: 'UDP', port: 53 }],
    },
  ];
  const { dns } = await start(t, corefile.replace('        namespaces testns\n', ''), own);
  await eventually(async () => assert.equal(((await query({ port: dns.port() }, 'ns1.dns.example.com.', 'A')).answers?.[0] as { data?: string } | undefined)?.data, '192.0.2.53'), 5000, 'the kube-dns external IP');
  await checkCases({ port: dns.port() }, [
    { qname: 'example.com.', qtype: 'NS', answer: ['example.com. 5 IN NS ns1.dns.example.com.'], extra: ['ns1.dns.example.com. 5 IN A 192.0.2.53'] },
    { qname: 'kube-dns.kube-system.example.com.', qtype: 'A', answer: ['kube-dns.kube-system.example.com. 5 IN A 192.0.2.53'] },
  ], options);
});

test('without the kubernetes plugin in its block, startup fails as in CoreDNS', async () => {
  await assert.rejects(startServer('.:0 {\n    bind 127.0.0.1\n    k8s_external example.com\n}\n', { directives: directivesOf(bind, k8sExternal) }), /plugin\/k8s_external: .*kubernetes plugin not loaded/);
});
