/**
 * Lifecycle: a reload keeps the shared informers (no relist), watch loss with a compacted history
 * relists without a wrong answer in between, an API server outage keeps the last known answers,
 * and shutdown releases every watch.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rcodeOf } from '@foghorn/testkit';
import { waitFor } from '@foghorn/testkit/kube';
import type { KubeApiServer } from '@foghorn/testkit/kube';
import { ask, eventually, handlerObjects, rr, service, startCluster } from './fixtures.js';

const svc1 = 'svc1.testns.svc.cluster.local.';
/** Every informer has its watch open (the list completes before the watch starts). */
const watching = (api: KubeApiServer, n: number): Promise<void> =>
  waitFor(() => Object.values(api.openWatches()).reduce((a, b) => a + b, 0) >= n, 3000, `${n} open watches`);
const lists = (api: { requests: readonly { verb: string }[] }): number => api.requests.filter((r) => r.verb === 'list').length;

test('a reload keeps the informers: no relist, the new options answer at once', async (t) => {
  const { dns, api } = await startCluster(t, { zones: 'cluster.local', objects: handlerObjects });
  const before = lists(api);
  const text = `.:0 {\n    bind 127.0.0.1\n    readyprobe\n    kubernetes cluster.local {\n        endpoint ${api.url}\n        ttl 7\n    }\n}\n`;
  assert.equal(await dns.reload(text), true, dns.lines.join('\n'));
  assert.deepEqual((await ask(dns, svc1, 'A')).answers?.map(rr), [`${svc1} 7 IN A 10.0.0.1`]);
  assert.equal(lists(api), before);
});

test('watches lost with the history compacted: a relist drops what was deleted meanwhile', async (t) => {
  const { dns, api, probe } = await startCluster(t, { zones: 'cluster.local', objects: handlerObjects });
  await watching(api, 3);
  const before = lists(api);
  api.silenceWatches();
  api.delete(service('svc1', 'testns', {}));
  api.apply(service('late', 'testns', { clusterIPs: ['10.0.0.77'], ports: [{ name: 'http', protocol: 'TCP', port: 80 }] }));
  // Nothing arrives on the silenced watches: the last known answer stands.
  assert.equal(rcodeOf(await ask(dns, svc1, 'A')), 'NOERROR');
  api.compact();
  api.errorWatches(410, 'too old resource version');
  await eventually(dns, svc1, 'A', (r) => rcodeOf(r) === 'NXDOMAIN', 'the relist');
  await eventually(dns, 'late.testns.svc.cluster.local.', 'A', (r) => rcodeOf(r) === 'NOERROR', 'the object added meanwhile');
  assert.ok(lists(api) > before);
  assert.equal(probe.ready(), true);
});

test('an API server outage keeps the last known answers; the watches resume after it', async (t) => {
  const { dns, api, probe } = await startCluster(t, { zones: 'cluster.local', objects: handlerObjects });
  await api.stop();
  assert.equal(rcodeOf(await ask(dns, svc1, 'A')), 'NOERROR');
  assert.equal(rcodeOf(await ask(dns, 'svc0.testns.svc.cluster.local.', 'A')), 'NXDOMAIN');
  assert.equal(probe.ready(), true);
  await api.restart();
  api.apply(service('after', 'testns', { clusterIPs: ['10.0.0.78'], ports: [{ name: 'http', protocol: 'TCP', port: 80 }] }));
  await eventually(dns, 'after.testns.svc.cluster.local.', 'A', (r) => rcodeOf(r) === 'NOERROR', 'an object added after the restart', 5000);
});

test('shutdown closes every watch', async (t) => {
  const { dns, api } = await startCluster(t, { zones: 'cluster.local', options: 'pods verified', objects: handlerObjects });
  await watching(api, 4);
  await dns.close();
  await waitFor(() => Object.keys(api.openWatches()).length === 0, 3000, 'watches closed');
});

// The connection tests share this process (one Kubernetes client load per file).
await import('./connection.js');
