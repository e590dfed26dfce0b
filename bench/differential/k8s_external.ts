/**
 * k8s_external: CoreDNS's external_test.go and apex_test.go questions, both servers watching the
 * same test API server (@foghorn/testkit/kube, HTTPS with a bearer token) through a kubeconfig.
 */
import { join } from 'node:path';
import { startKubeApiServer, writeKubeconfig } from '@foghorn/testkit/kube';
import type { ApiObject } from '@foghorn/testkit/kube';
import type { DifferentialCase, DifferentialQuery } from './case.js';

const http = { name: 'http', protocol: 'TCP', port: 80 };
const service = (name: string, spec: Record<string, unknown>, status: Record<string, unknown> = {}): ApiObject => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, namespace: 'testns' },
  spec: { ports: [http], ...spec },
  status,
});

/** external_test.go's services and the headless service's endpoints. */
const objects: ApiObject[] = [
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'testns' } },
  service('svc1', { type: 'ClusterIP', clusterIP: '10.0.0.1', externalIPs: ['1.2.3.4'] }),
  service('svc6', { type: 'ClusterIP', clusterIP: '10.0.0.3', externalIPs: ['1:2::5'] }),
  service('svc11', { type: 'LoadBalancer', clusterIP: '10.0.0.3' }, { loadBalancer: { ingress: [{ ip: '2.3.4.5' }] } }),
  service('svc12', { type: 'LoadBalancer', clusterIP: '10.0.0.3' }, { loadBalancer: { ingress: [{ hostname: 'dummy.hostname' }] } }),
  service('svc-headless', { type: 'ClusterIP', clusterIP: 'None' }),
  service('noports', { type: 'ClusterIP', clusterIP: '10.0.0.9', externalIPs: ['192.0.2.9'], ports: [] }),
  {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: 'svc-headless-abcde', namespace: 'testns', labels: { 'kubernetes.io/service-name': 'svc-headless' } },
    addressType: 'IPv4',
    endpoints: [
      { addresses: ['1.2.3.4'], hostname: 'endpoint-svc-0', conditions: { ready: true } },
      { addresses: ['1.2.3.5'], hostname: 'endpoint-svc-1', conditions: { ready: true } },
    ],
    ports: [http],
  },
];

const questions: [string, string][] = [
  ['4.3.2.1.in-addr.arpa.', 'PTR'],
  ['5.5.5.5.in-addr.arpa.', 'PTR'],
  ['svc1.testns.example.com.', 'PTR'],
  ['not-existing.testns.example.com.', 'PTR'],
  ['svc1.testns.example.com.', 'A'],
  ['Svc1.TestNS.Example.COM.', 'A'],
  ['svc1.testns.example.com.', 'SRV'],
  ['svc1.testns.example.com.', 'TXT'],
  ['*._not-udp-or-tcp.svc1.testns.example.com.', 'SRV'],
  ['_http._tcp.svc1.testns.example.com.', 'SRV'],
  ['svc1.testns.example.com.', 'AAAA'],
  ['svc0.testns.example.com.', 'A'],
  ['svc0.svc-nons.example.com.', 'A'],
  ['svc6.testns.example.com.', 'AAAA'],
  ['_http._tcp.svc6.testns.example.com.', 'SRV'],
  ['testns.example.com.', 'A'],
  ['svc11.testns.example.com.', 'A'],
  ['svc11.testns.example.com.', 'SRV'],
  ['svc12.testns.example.com.', 'A'],
  ['svc12.testns.example.com.', 'SRV'],
  ['noports.testns.example.com.', 'A'],
  ['noports.testns.example.com.', 'SRV'],
  ['svc-headless.testns.example.com.', 'A'],
  ['svc-headless.testns.example.com.', 'SRV'],
  ['_http._tcp.svc-headless.testns.example.com.', 'SRV'],
  ['endpoint-svc-0.svc-headless.testns.example.com.', 'A'],
  ['endpoint-svc-1.svc-headless.testns.example.com.', 'SRV'],
  ['a.b.c.svc1.testns.example.com.', 'A'],
  ['example.com.', 'NS'],
  ['example.com.', 'SRV'],
  ['dns.example.com.', 'A'],
  ['ns1.dns.example.com.', 'A'],
  ['ns1.dns.example.com.', 'AAAA'],
  ['ns2.dns.example.com.', 'A'],
];

// The SOA serial is the second of the last external change in each process: not compared.
const queries: DifferentialQuery[] = [...questions.map(([name, type]) => ({ name, type })), { name: 'example.com.', type: 'SOA' }];

const cases: DifferentialCase[] = [
  {
    plugin: 'k8s_external',
    name: 'k8s_external with headless',
    corefile: '.:{port} {\n  bind 127.0.0.1\n  kubernetes cluster.local {\n    kubeconfig "{kubeconfig}" test\n  }\n  k8s_external example.com in-addr.arpa {\n    headless\n  }\n}\n',
    queries,
    settleMs: 1500,
    kept: {},
    async setup(context) {
      const api = await startKubeApiServer({ tls: true, token: 'differential' });
      for (const object of objects) api.apply(structuredClone(object));
      const kubeconfig = writeKubeconfig(join(context.dir, 'kubeconfig'), [{ name: 'test', server: api.url, ca: api.ca!, token: 'differential' }]);
      return { vars: { kubeconfig }, close: () => api.close() };
    },
  },
];
export default cases;
