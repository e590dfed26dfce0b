/**
 * autopath: a resolv.conf search path walked through *hosts*, and `@kubernetes` with `pods
 * verified`, both servers watching the same test API server (HTTPS, a kubeconfig) in which the
 * asking client (127.0.0.1) is a pod of `default`.
 */
import { join } from 'node:path';
import { startKubeApiServer, writeKubeconfig } from '@foghorn/testkit/kube';
import type { ApiObject } from '@foghorn/testkit/kube';
import type { DifferentialCase } from './case.js';

const cluster: ApiObject[] = [
  ...['default', 'other'].map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })),
  { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'other' }, spec: { clusterIP: '10.0.0.20', ports: [{ name: 'http', protocol: 'TCP', port: 80 }] } },
  { apiVersion: 'v1', kind: 'Service', metadata: { name: 'db', namespace: 'default' }, spec: { clusterIP: '10.0.0.30', ports: [{ name: 'pg', protocol: 'TCP', port: 5432 }] } },
  { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'client', namespace: 'default' }, status: { phase: 'Running', podIP: '127.0.0.1', podIPs: [{ ip: '127.0.0.1' }] } },
];

const cases: DifferentialCase[] = [
  {
    plugin: 'autopath',
    name: 'autopath resolv.conf',
    corefile: '.:{port} {\n  bind 127.0.0.1\n  autopath resolv.conf\n  hosts {\n    192.0.2.1 b.com\n    192.0.2.2 a.example.com\n    2001:db8::1 b.com\n  }\n}\n',
    files: { 'resolv.conf': 'nameserver 192.0.2.53\nsearch example.org example.com com\noptions ndots:5\n' },
    queries: [
      { name: 'b.example.org.', type: 'A' },
      { name: 'B.Example.ORG.', type: 'A' },
      { name: 'b.example.org.', type: 'AAAA' },
      { name: 'b.example.org.', type: 'MX' },
      { name: 'b.example.org.', type: 'A', transport: 'tcp' },
      { name: 'a.example.org.', type: 'A' },
      { name: 'a.example.com.', type: 'A' },
      { name: 'c.example.org.', type: 'A' },
      { name: 'example.org.', type: 'A' },
    ],
  },
  {
    plugin: 'autopath',
    name: 'autopath @kubernetes',
    corefile: '.:{port} {\n  bind 127.0.0.1\n  autopath @kubernetes\n  kubernetes cluster.local {\n    kubeconfig "{kubeconfig}" test\n    pods verified\n  }\n}\n',
    settleMs: 1500,
    kept: Object.fromEntries(
      ['web.other.default.svc.cluster.local. AAAA', 'nope.default.svc.cluster.local. A', 'example.net.default.svc.cluster.local. A'].map((label) => [
        label,
        "the SOA serial is the second in which each process took in the cluster's objects; they may differ by one",
      ]),
    ),
    queries: [
      { name: 'db.default.svc.cluster.local.', type: 'A' },
      { name: 'web.other.default.svc.cluster.local.', type: 'A' },
      { name: 'web.other.default.svc.cluster.local.', type: 'AAAA' },
      { name: '_http._tcp.web.other.default.svc.cluster.local.', type: 'SRV' },
      { name: 'web.other.default.svc.cluster.local.', type: 'A', transport: 'tcp' },
      { name: 'nope.default.svc.cluster.local.', type: 'A' },
      { name: 'web.other.svc.cluster.local.', type: 'A' },
      { name: 'example.net.default.svc.cluster.local.', type: 'A' },
    ],
    async setup(context) {
      const api = await startKubeApiServer({ tls: true, token: 'differential' });
      for (const object of cluster) api.apply(structuredClone(object));
      const kubeconfig = writeKubeconfig(join(context.dir, 'kubeconfig'), [{ name: 'test', server: api.url, ca: api.ca!, token: 'differential' }]);
      return { vars: { kubeconfig }, close: () => api.close() };
    },
  },
];
export default cases;
