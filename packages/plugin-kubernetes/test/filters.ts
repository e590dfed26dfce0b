/**
 * Which objects are served: `namespaces`, `namespace_labels` and `labels` (applied by the API
 * server to the watches, CoreDNS namespace.go `namespaceExposed`), and the programming-latency
 * metric fed by EndpointSlice events.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rcodeOf } from '@foghorn/testkit';
import { waitFor } from '@foghorn/testkit/kube';
import { ask, endpointSlice, eventually, namespace, rr, service, startCluster } from './fixtures.js';

const http = { name: 'http', protocol: 'TCP', port: 80 };
const objects = [
  namespace('a', { team: 'dns' }),
  namespace('b', { team: 'web' }),
  service('s', 'a', { clusterIPs: ['10.0.1.1'], ports: [http] }, { app: 'web' }),
  service('t', 'a', { clusterIPs: ['10.0.1.2'], ports: [http] }, { app: 'db' }),
  service('s', 'b', { clusterIPs: ['10.0.2.1'], ports: [http] }, { app: 'web' }),
  endpointSlice('s-1', 'a', 's', [{ ip: '10.9.0.1', hostname: 'e' }], [http], { labels: { app: 'web' } }),
  endpointSlice('t-1', 'a', 't', [{ ip: '10.9.0.2', hostname: 'e' }], [http], { labels: { app: 'db' } }),
];

const code = async (dns: Parameters<typeof ask>[0], name: string): Promise<string> => rcodeOf(await ask(dns, name, 'A'));

test('namespaces: only the listed namespaces answer, for services and PTRs', async (t) => {
  const { dns } = await startCluster(t, { zones: 'cluster.local in-addr.arpa', options: 'namespaces a', objects });
  assert.equal(await code(dns, 's.a.svc.cluster.local.'), 'NOERROR');
  assert.equal(await code(dns, 's.b.svc.cluster.local.'), 'NXDOMAIN');
  assert.equal(await code(dns, 'b.svc.cluster.local.'), 'NXDOMAIN');
  assert.equal(rcodeOf(await ask(dns, '1.2.0.10.in-addr.arpa.', 'PTR')), 'NXDOMAIN');
  assert.equal(rcodeOf(await ask(dns, '1.1.0.10.in-addr.arpa.', 'PTR')), 'NOERROR');
});

test('namespace_labels: the Namespace watch is filtered by the API server; relabelling exposes a namespace', async (t) => {
  const { dns, api } = await startCluster(t, { zones: 'cluster.local', options: 'namespace_labels team=dns', objects });
  assert.equal(await code(dns, 's.a.svc.cluster.local.'), 'NOERROR');
  assert.equal(await code(dns, 's.b.svc.cluster.local.'), 'NXDOMAIN');
  assert.ok(api.requests.some((r) => r.resource === 'namespaces' && r.query['labelSelector'] === 'team=dns'));
  api.apply(namespace('b', { team: 'dns' }));
  await eventually(dns, 's.b.svc.cluster.local.', 'A', (r) => rcodeOf(r) === 'NOERROR', 'namespace b relabelled');
  api.apply(namespace('a', { team: 'web' }));
  await eventually(dns, 's.a.svc.cluster.local.', 'A', (r) => rcodeOf(r) === 'NXDOMAIN', 'namespace a relabelled away');
});

test('labels: Services and EndpointSlices outside the selector are not served', async (t) => {
  const { dns, api } = await startCluster(t, { zones: 'cluster.local', options: 'labels app=web', objects });
  assert.equal(await code(dns, 's.a.svc.cluster.local.'), 'NOERROR');
  assert.equal(await code(dns, 't.a.svc.cluster.local.'), 'NXDOMAIN');
  assert.equal(await code(dns, 'e.s.a.svc.cluster.local.'), 'NOERROR');
  for (const resource of ['services', 'endpointslices']) {
    assert.ok(api.requests.some((r) => r.resource === resource && r.query['labelSelector'] === 'app=web'), resource);
  }
  // Relabelled into the selector: the watch delivers it as an add.
  api.apply(service('t', 'a', { clusterIPs: ['10.0.1.2'], ports: [http] }, { app: 'web' }));
  await eventually(dns, 't.a.svc.cluster.local.', 'A', (r) => (r.answers ?? []).map(rr).join() === 't.a.svc.cluster.local. 5 IN A 10.0.1.2', 'the relabelled service');
});

test('coredns_kubernetes_dns_programming_duration_seconds observes slices with a trigger time and a known service', async (t) => {
  const { dns, api } = await startCluster(t, { zones: 'cluster.local', objects });
  const registry = dns.server.registry;
  const count = async (kind: string): Promise<number> => {
    const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === 'coredns_kubernetes_dns_programming_duration_seconds');
    const sample = metric?.values.find((v) => (v as { metricName?: string }).metricName?.endsWith('_count') && v.labels['service_kind'] === kind);
    return sample?.value ?? 0;
  };
  const before = await count('cluster_ip');
  const at = new Date(Date.now() - 1500).toISOString();
  api.apply(endpointSlice('s-1', 'a', 's', [{ ip: '10.9.0.3', hostname: 'f' }], [http], { labels: { app: 'web' }, annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': at } }));
  await eventually(dns, 'f.s.a.svc.cluster.local.', 'A', (r) => rcodeOf(r) === 'NOERROR', 'the new endpoint');
  assert.equal(await count('cluster_ip'), before + 1);
  // A slice of an unknown service is not observed; a bad annotation is logged.
  api.apply(endpointSlice('x-1', 'a', 'nosuch', [{ ip: '10.9.0.9' }], [http], { annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': at } }));
  api.apply(endpointSlice('t-1', 'a', 't', [{ ip: '10.9.0.2', hostname: 'e' }], [http], { labels: { app: 'db' }, annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': 'yesterday' } }));
  await eventually(dns, 'e.t.a.svc.cluster.local.', 'A', () => dns.lines.some((l) => l.includes('DnsProgrammingLatency cannot be calculated')), 'the warning');
  assert.equal(await count('cluster_ip'), before + 1);
  assert.ok(dns.lines.some((l) => l.includes(`[WARNING] plugin/kubernetes: DnsProgrammingLatency cannot be calculated for Endpoints 'a/t-1'; invalid "endpoints.kubernetes.io/last-change-trigger-time" annotation RFC3339 value of "yesterday"`)));
});

test('coredns_kubernetes_rest_client_* count and time the requests to the API server', async (t) => {
  const { dns, api } = await startCluster(t, { zones: 'cluster.local', objects });
  const host = new URL(api.url).host;
  const metrics = await dns.server.registry.getMetricsAsJSON();
  const requests = metrics.find((m) => m.name === 'coredns_kubernetes_rest_client_requests_total')!;
  const ok = requests.values.find((v) => v.labels['code'] === '200' && v.labels['method'] === 'GET' && v.labels['host'] === host);
  // At least the three lists (services, endpointslices, namespaces).
  assert.ok((ok?.value ?? 0) >= 3, JSON.stringify(requests.values));
  const durations = metrics.find((m) => m.name === 'coredns_kubernetes_rest_client_request_duration_seconds')!;
  const count = durations.values.find((v) => (v as { metricName?: string }).metricName?.endsWith('_count') && v.labels['verb'] === 'GET' && v.labels['host'] === host);
  assert.ok((count?.value ?? 0) >= 3);
  // A failing list is counted by its status.
  await waitFor(() => Object.values(api.openWatches()).reduce((a, b) => a + b, 0) >= 3, 3000, 'open watches');
  api.failNext(503, { match: 'list' });
  api.errorWatches(410);
  await waitFor(() => api.requests.some((r) => r.status === 503), 3000, 'the failed list');
  await eventually(dns, 's.a.svc.cluster.local.', 'A', () => true, 'a query');
  const after = (await dns.server.registry.getMetricsAsJSON()).find((m) => m.name === 'coredns_kubernetes_rest_client_requests_total')!;
  assert.ok(after.values.some((v) => v.labels['code'] === '503' && v.labels['host'] === host));
});
