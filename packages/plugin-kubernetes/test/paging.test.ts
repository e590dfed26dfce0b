/**
 * The initial list is read in pages of 500 (`limit` + `continue`, as client-go's reflector
 * lists), so no process holds a whole large list's text and objects at once; an expired continue
 * token lists again from the first page, and what was deleted meanwhile is not answered.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatRr, rcodeOf } from '@foghorn/testkit';
import { startKubeApiServer } from '@foghorn/testkit/kube';
import type { ApiObject } from '@foghorn/testkit/kube';
import { ask, http, namespace, resources, service, startCluster } from './fixtures.js';

/** 1,200 ClusterIP services in `paged`: three pages of Services at the default page size. */
const count = 1200;
const name = (i: number): string => `s${i}`;
const address = (i: number): string => `10.1.${i >> 8}.${i & 255}`;
const objects: ApiObject[] = [namespace('paged'), ...Array.from({ length: count }, (_, i) => service(name(i), 'paged', { clusterIPs: [address(i)], ports: [http] }))];
const fqdn = (i: number): string => `${name(i)}.paged.svc.cluster.local.`;

test('the initial list is read in pages of 500 with limit and continue, never whole, and every name answers', async (t) => {
  const { dns, api } = await startCluster(t, { zones: 'cluster.local', objects });
  assert.deepEqual(api.pageCounts()['/api/v1/services'], { lists: 1, unlimited: 0, continued: 2, expired: 0 });
  for (const [key, counts] of Object.entries(api.pageCounts())) assert.equal(counts.unlimited, 0, `${key} listed without a limit`);
  assert.ok(api.requests.filter((r) => r.verb === 'list').every((r) => r.query['limit'] === '500'));
  for (const i of [0, 499, 500, 999, 1000, count - 1]) assert.deepEqual((await ask(dns, fqdn(i), 'A')).answers?.map(formatRr), [`${fqdn(i)} 5 IN A ${address(i)}`]);
});

test('an expired continue token lists again from the first page; a service deleted between the two lists is gone', async (t) => {
  const api = await startKubeApiServer({ resources });
  t.after(() => api.close());
  let expired = false;
  // The first next-page request of Services finds its token expired (etcd compacted the list's
  // revision), and s1, delivered on the first page already, was deleted meanwhile.
  api.failNext(410, {
    match: (r) => {
      if (expired || r.verb !== 'list' || r.resource !== 'services' || r.query['continue'] === undefined) return false;
      expired = true;
      api.delete(service(name(1), 'paged', {}));
      return true;
    },
    message: 'The provided continue parameter is too old to display a consistent list result.',
  });
  const { dns } = await startCluster(t, { zones: 'cluster.local', objects, api });
  assert.deepEqual(api.pageCounts()['/api/v1/services'], { lists: 2, unlimited: 0, continued: 3, expired: 1 });
  assert.equal(rcodeOf(await ask(dns, fqdn(1), 'A')), 'NXDOMAIN');
  for (const i of [0, 2, 600, count - 1]) assert.deepEqual((await ask(dns, fqdn(i), 'A')).answers?.map(formatRr), [`${fqdn(i)} 5 IN A ${address(i)}`]);
});
