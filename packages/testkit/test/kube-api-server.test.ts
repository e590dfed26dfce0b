/**
 * The test API server speaks the protocol the informer is tested against; these checks pin the
 * parts of it that imitate a real API server, using bare HTTP requests.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import { startKubeApiServer } from '../src/kube/index.js';
import type { ApiObject } from '../src/kube/index.js';

interface Reply {
  status: number;
  body: Record<string, unknown>;
}

function get(url: string, headers: http.OutgoingHttpHeaders = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }));
      })
      .on('error', reject);
  });
}

/** Reads a watch stream until it ends (the server ends it via timeoutSeconds or an error). */
function watchEvents(url: string): Promise<{ type: string; object: Record<string, unknown> }[]> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve(text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { type: string; object: Record<string, unknown> })));
      })
      .on('error', reject);
  });
}

function configMap(name: string, namespace: string, labels: Record<string, string> = {}): ApiObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels }, data: {} };
}

test('the test API server lists core and group resources by namespace and label, with a global resourceVersion', async (t) => {
  const api = await startKubeApiServer();
  t.after(() => api.close());
  api.apply(configMap('a', 'ns1', { app: 'x' }));
  api.apply(configMap('b', 'ns2', { app: 'y' }));
  api.apply({ apiVersion: 'submariner.io/v1', kind: 'Gateway', metadata: { name: 'gw', namespace: 'submariner-operator' } });

  const all = await get(`${api.url}/api/v1/configmaps`);
  assert.equal(all.status, 200);
  assert.equal(all.body['kind'], 'ConfigMapList');
  assert.equal(all.body['apiVersion'], 'v1');
  assert.deepEqual(all.body['metadata'], { resourceVersion: '4' });
  const items = all.body['items'] as ApiObject[];
  assert.deepEqual(items.map((i) => i.metadata.name), ['a', 'b']);
  assert.equal(items[0]?.kind, undefined, 'built-in list items carry no kind, as from a real API server');

  const selected = await get(`${api.url}/api/v1/configmaps?labelSelector=${encodeURIComponent('app!=x')}`);
  assert.deepEqual((selected.body['items'] as ApiObject[]).map((i) => i.metadata.name), ['b']);
  const namespaced = await get(`${api.url}/api/v1/namespaces/ns1/configmaps`);
  assert.deepEqual((namespaced.body['items'] as ApiObject[]).map((i) => i.metadata.name), ['a']);
  const gateways = await get(`${api.url}/apis/submariner.io/v1/gateways`);
  assert.equal((gateways.body['items'] as ApiObject[])[0]?.kind, 'Gateway');
  const one = await get(`${api.url}/api/v1/namespaces/ns2/configmaps/b`);
  assert.equal((one.body['metadata'] as { resourceVersion: string }).resourceVersion, '3');

  const missing = await get(`${api.url}/apis/multicluster.x-k8s.io/v1beta1/serviceimports`);
  assert.equal(missing.status, 404);
  assert.equal(missing.body['kind'], 'Status');
  assert.equal(missing.body['code'], 404);
  const badSelector = await get(`${api.url}/api/v1/configmaps?labelSelector=${encodeURIComponent('app in (x)')}`);
  assert.equal(badSelector.status, 400);
  api.compact();
  const tooOld = await get(`${api.url}/api/v1/configmaps?resourceVersion=2&resourceVersionMatch=Exact`);
  assert.equal(tooOld.status, 410);
});

test('the test API server watches replay history, time out with a bookmark, and answer 410 Gone as an ERROR event', async (t) => {
  const api = await startKubeApiServer();
  t.after(() => api.close());
  api.apply(configMap('a', 'ns1'));
  api.apply(configMap('a', 'ns1', { v: '2' }));
  api.delete(configMap('a', 'ns1'));

  const replay = await watchEvents(`${api.url}/api/v1/configmaps?watch=1&resourceVersion=1&allowWatchBookmarks=true&timeoutSeconds=1`);
  assert.deepEqual(
    replay.map((e) => [e.type, (e.object['metadata'] as { resourceVersion: string }).resourceVersion]),
    [
      ['ADDED', '2'],
      ['MODIFIED', '3'],
      ['DELETED', '4'],
      ['BOOKMARK', '4'],
    ],
  );
  assert.equal(api.requests.at(-1)?.verb, 'watch');

  api.compact();
  api.apply(configMap('b', 'ns1'));
  const gone = await watchEvents(`${api.url}/api/v1/configmaps?watch=true&resourceVersion=3`);
  assert.equal(gone.length, 1);
  assert.equal(gone[0]?.type, 'ERROR');
  assert.equal(gone[0]?.object['code'], 410);
  assert.equal(gone[0]?.object['reason'], 'Expired');
});

test('the test API server with a token refuses requests without it', async (t) => {
  const api = await startKubeApiServer({ token: 't' });
  t.after(() => api.close());
  assert.equal((await get(`${api.url}/api/v1/configmaps`)).status, 401);
  assert.equal((await get(`${api.url}/api/v1/configmaps`, { authorization: 'Bearer t' })).status, 200);
});
