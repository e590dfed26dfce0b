/**
 * Watch events change answers: adds, updates and deletes of every watched resource reach the
 * answers within a bounded time (polled with a deadline), and the SOA serial moves on the
 * changes CoreDNS counts (controller.go `updateModified`).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ApiObject } from '@foghorn/testkit/kube';
import { rcodeOf } from '@foghorn/testkit';
import { ask, endpointSlice, eventually, mcSlice, namespace, pod, rr, service, serviceImport, startCluster } from './fixtures.js';

const http = { name: 'http', protocol: 'TCP', port: 80 };
const base: ApiObject[] = [namespace('ns'), service('svc1', 'ns', { clusterIPs: ['10.0.0.1'], ports: [http] })];

const answers = (reply: Awaited<ReturnType<typeof ask>>): string[] => (reply.answers ?? []).map(rr).sort();
const serial = async (dns: Parameters<typeof ask>[0], zone = 'cluster.local.'): Promise<number> => {
  const reply = await ask(dns, zone, 'SOA');
  return ((reply.answers![0] as { data?: { serial: number } }).data)!.serial;
};

test('services: add, change and delete reach A, SRV and PTR answers', async (t) => {
  const { dns, api } = await startCluster(t, { zones: 'cluster.local in-addr.arpa', objects: base });
  const name = 'web.ns.svc.cluster.local.';
  assert.equal(rcodeOf(await ask(dns, name, 'A')), 'NXDOMAIN');
  api.apply(service('web', 'ns', { clusterIPs: ['10.0.0.9'], ports: [http] }));
  await eventually(dns, name, 'A', (r) => answers(r).join() === `${name} 5 IN A 10.0.0.9`, 'the added service');
  await eventually(dns, '9.0.0.10.in-addr.arpa.', 'PTR', (r) => answers(r).join() === `9.0.0.10.in-addr.arpa. 5 IN PTR ${name}`, 'its PTR');
  api.apply(service('web', 'ns', { clusterIPs: ['10.0.0.9'], ports: [{ name: 'https', protocol: 'TCP', port: 443 }] }));
  await eventually(dns, `_https._tcp.${name}`, 'SRV', (r) => rcodeOf(r) === 'NOERROR' && answers(r).length === 1, 'the changed port');
  assert.equal(rcodeOf(await ask(dns, `_http._tcp.${name}`, 'SRV')), 'NXDOMAIN');
  api.delete(service('web', 'ns', {}));
  await eventually(dns, name, 'A', (r) => rcodeOf(r) === 'NXDOMAIN', 'the deleted service');
  await eventually(dns, '9.0.0.10.in-addr.arpa.', 'PTR', (r) => rcodeOf(r) === 'NXDOMAIN', 'its PTR gone');
});

test('endpoint slices: ready endpoints appear, unready and removed ones go; the serial moves', async (t) => {
  const { dns, api } = await startCluster(t, { zones: 'cluster.local', objects: [...base, service('hdls', 'ns', { clusterIPs: ['None'], ports: [http] })] });
  const name = 'hdls.ns.svc.cluster.local.';
  assert.equal(rcodeOf(await ask(dns, name, 'A')), 'NXDOMAIN');
  const before = await serial(dns);
  api.apply(endpointSlice('hdls-1', 'ns', 'hdls', [{ ip: '10.1.0.1', hostname: 'a' }, { ip: '10.1.0.2', ready: false }, { ip: '10.1.0.3', ready: null }], [http]));
  await eventually(dns, name, 'A', (r) => answers(r).join() === [`${name} 5 IN A 10.1.0.1`, `${name} 5 IN A 10.1.0.3`].join(), 'ready and condition-less endpoints');
  api.apply(endpointSlice('hdls-2', 'ns', 'hdls', [{ ip: '10.1.0.4' }], [http]));
  await eventually(dns, name, 'A', (r) => answers(r).length === 3, 'a second slice of the same service');
  api.apply(endpointSlice('hdls-1', 'ns', 'hdls', [{ ip: '10.1.0.1', hostname: 'a', ready: false }], [http]));
  await eventually(dns, `a.${name}`, 'A', (r) => rcodeOf(r) === 'NXDOMAIN', 'an endpoint turning unready');
  api.delete(endpointSlice('hdls-2', 'ns', 'hdls', [], null));
  await eventually(dns, name, 'A', (r) => rcodeOf(r) === 'NXDOMAIN', 'no ready address left');
  // Unix seconds: the clock may not have ticked, so the serial never goes back.
  assert.ok((await serial(dns)) >= before);
});

test('namespaces: a namespace created or deleted exposes or hides its names', async (t) => {
  const { dns, api } = await startCluster(t, { zones: 'cluster.local', objects: [...base, service('svc1', 'late', { clusterIPs: ['10.0.0.7'], ports: [http] })] });
  const name = 'svc1.late.svc.cluster.local.';
  assert.equal(rcodeOf(await ask(dns, name, 'A')), 'NXDOMAIN');
  api.apply(namespace('late'));
  await eventually(dns, name, 'A', (r) => answers(r).join() === `${name} 5 IN A 10.0.0.7`, 'the new namespace');
  api.delete(namespace('late'));
  await eventually(dns, name, 'A', (r) => rcodeOf(r) === 'NXDOMAIN', 'the deleted namespace');
});

test('pods verified: a pod added answers, a finished or deleted one does not, a terminating one stays until deleted', async (t) => {
  const { dns, api } = await startCluster(t, { zones: 'cluster.local', options: 'pods verified', objects: base });
  const name = '10-2-0-1.ns.pod.cluster.local.';
  assert.equal(rcodeOf(await ask(dns, name, 'A')), 'NXDOMAIN');
  api.apply(pod('p1', 'ns', '10.2.0.1'));
  await eventually(dns, name, 'A', (r) => answers(r).join() === `${name} 5 IN A 10.2.0.1`, 'the running pod');
  api.apply(pod('p1', 'ns', '10.2.0.1', 'Running', { deletionTimestamp: '2026-01-01T00:00:00Z' }));
  api.apply(pod('p2', 'ns', '10.2.0.2', 'Succeeded'));
  await eventually(dns, '10-2-0-2.ns.pod.cluster.local.', 'A', (r) => rcodeOf(r) === 'NXDOMAIN', 'the finished pod');
  assert.equal(rcodeOf(await ask(dns, name, 'A')), 'NOERROR');
  api.delete(pod('p1', 'ns', ''));
  await eventually(dns, name, 'A', (r) => rcodeOf(r) === 'NXDOMAIN', 'the deleted pod');
});

test('multicluster: imports and their slices come and go; the clusterset SOA follows the multicluster clock', async (t) => {
  const { dns, api } = await startCluster(t, {
    zones: 'cluster.local clusterset.local',
    options: 'multicluster clusterset.local',
    objects: [...base, serviceImport('svc1', 'ns', { ips: ['100.0.0.1'], ports: [http] })],
  });
  const name = 'svc1.ns.svc.clusterset.local.';
  await eventually(dns, name, 'A', (r) => answers(r).join() === `${name} 5 IN A 100.0.0.1`, 'the import');
  // The local service is a different name in a different zone.
  assert.deepEqual(answers(await ask(dns, 'svc1.ns.svc.cluster.local.', 'A')), ['svc1.ns.svc.cluster.local. 5 IN A 10.0.0.1']);
  assert.equal(await serial(dns, 'clusterset.local.'), 0, 'adds move the internal clock only (upstream quirk)');
  api.apply(serviceImport('hl', 'ns', { type: 'Headless', ports: [http] }));
  api.apply(mcSlice('hl-c1', 'ns', 'hl', 'c1', [{ ip: '10.3.0.1', hostname: 'h' }], [http]));
  api.apply(mcSlice('hl-c2', 'ns', 'hl', 'c2', [{ ip: '10.4.0.1', hostname: 'h' }], [http]));
  const hl = 'hl.ns.svc.clusterset.local.';
  await eventually(dns, hl, 'A', (r) => answers(r).length === 2, 'headless import with two clusters');
  assert.deepEqual(answers(await ask(dns, `h.c2.${hl}`, 'A')), [`h.c2.${hl} 5 IN A 10.4.0.1`]);
  assert.equal(rcodeOf(await ask(dns, `h.${hl}`, 'A')), 'NXDOMAIN');
  assert.equal(rcodeOf(await ask(dns, `c2.${hl}`, 'A')), 'NXDOMAIN');
  // An update of an import moves the multicluster clock.
  api.apply(serviceImport('svc1', 'ns', { ips: ['100.0.0.1'], ports: [http, { name: 'dns', protocol: 'UDP', port: 53 }] }));
  await eventually(dns, `_dns._udp.${name}`, 'SRV', (r) => rcodeOf(r) === 'NOERROR', 'the new import port');
  assert.ok((await serial(dns, 'clusterset.local.')) > 0);
  api.delete(mcSlice('hl-c1', 'ns', 'hl', 'c1', [], null));
  await eventually(dns, hl, 'A', (r) => answers(r).join() === `${hl} 5 IN A 10.4.0.1`, 'one cluster left');
});

test('multicluster: an import with ports but no IPs is NODATA, with neither NXDOMAIN', async (t) => {
  const { dns } = await startCluster(t, {
    zones: 'cluster.local clusterset.local',
    options: 'multicluster clusterset.local',
    objects: [...base, serviceImport('noips', 'ns', { ports: [http] }), serviceImport('bare', 'ns', {})],
  });
  assert.equal(rcodeOf(await ask(dns, 'noips.ns.svc.clusterset.local.', 'A')), 'NOERROR');
  assert.deepEqual(await ask(dns, 'noips.ns.svc.clusterset.local.', 'A').then(answers), []);
  assert.equal(rcodeOf(await ask(dns, 'bare.ns.svc.clusterset.local.', 'A')), 'NXDOMAIN');
});

// The selector and metric tests share this process (one Kubernetes client load per file).
await import('./filters.js');
