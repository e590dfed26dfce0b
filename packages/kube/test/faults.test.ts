import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { captureLog, eventually } from '@foghorn/testkit';
import { RecordingSink, startKubeApiServer } from '@foghorn/testkit/kube';
import type { ApiObject, KubeApiServer } from '@foghorn/testkit/kube';
import { startWatch } from '../src/index.js';
import type { ResourceSpec, StartWatchOptions, Watch } from '../src/index.js';

const serviceImports: ResourceSpec = { group: 'multicluster.x-k8s.io', version: 'v1alpha1', plural: 'serviceimports' };
const name = 'watch serviceimports.v1alpha1.multicluster.x-k8s.io';

function serviceImport(n: string): ApiObject {
  return { apiVersion: 'multicluster.x-k8s.io/v1alpha1', kind: 'ServiceImport', metadata: { name: n, namespace: 'default' }, spec: { type: 'ClusterSetIP' } };
}

const fast = { backoffInitialMs: 10, backoffMaxMs: 80, watchTimeoutSeconds: 5, watchdogMs: 2000 } as const;

async function watchWith(
  t: TestContext,
  prepare: (api: KubeApiServer) => void = () => {},
  options: Partial<StartWatchOptions> = {},
): Promise<{ api: KubeApiServer; sink: RecordingSink; watch: Watch; lines: string[] }> {
  const api = await startKubeApiServer();
  t.after(() => api.close());
  prepare(api);
  const { logger, lines } = captureLog();
  const sink = new RecordingSink();
  const watch = await startWatch({ endpoint: api.url }, serviceImports, sink, { logger: logger.forPlugin('lighthouse'), env: {}, ...fast, ...options });
  t.after(() => watch.stop());
  return { api, sink, watch, lines };
}

const warnings = (lines: readonly string[]): string[] => lines.filter((l) => l.startsWith('[WARNING]'));

test('500 and 403 on the first list are retried with growing delays, and synced stays false until a list succeeds', async (t) => {
  const { api, sink, watch, lines } = await watchWith(t, (api) => {
    api.apply(serviceImport('a'));
    api.failNext(500, { match: 'list', count: 2, message: 'etcd leader changed' });
    api.failNext(403, { match: 'list', message: 'serviceimports is forbidden: User "system:serviceaccount:submariner-operator:lighthouse" cannot list' });
  });
  assert.equal(watch.synced, false);
  await eventually(() => api.requests.filter((r) => r.verb === 'list').length >= 3, 3000, 'three lists');
  assert.equal(watch.synced, false);
  assert.deepEqual(sink.calls, []);
  await eventually(() => watch.synced, 3000, 'sync');
  const lists = api.requests.filter((r) => r.verb === 'list');
  assert.deepEqual(lists.map((r) => r.status), [500, 500, 403, 200]);
  assert.equal(watch.restarts, 3);
  assert.deepEqual(sink.calls, [{ op: 'replace', names: ['default/a'] }]);
  // Delays 5-10 ms, 10-20 ms, 20-40 ms: the third wait is at least the first's ceiling doubled.
  const gaps = lists.slice(1).map((r, i) => r.at - lists[i]!.at);
  assert.ok(gaps[2]! >= 20, `gaps ${gaps.join(', ')}`);
  // One warning for the streak (the rest are held back), one line when it is over.
  assert.deepEqual(warnings(lines).length, 1);
  assert.match(lines[0] ?? '', new RegExp(`^\\[WARNING\\] plugin/lighthouse: ${name}: list: 500 InternalError: etcd leader changed; retrying in \\d+ms$`));
  assert.equal(lines[1], `[INFO] plugin/lighthouse: ${name}: listed 1 object after 3 failed attempts`);
});

test('while relists fail the sink keeps the last known state, and a later success replaces it', async (t) => {
  const { api, sink, watch, lines } = await watchWith(t, (api) => {
    api.apply(serviceImport('a'));
    api.apply(serviceImport('b'));
  });
  await eventually(() => watch.synced && api.watchCount === 1, 3000, 'sync');
  api.failNext(500, { match: 'list', count: 4 });
  api.silenceWatches();
  api.delete(serviceImport('a'));
  api.compact();
  api.dropConnections();
  await eventually(() => api.requests.filter((r) => r.status === 500).length === 4, 3000, 'four failed relists');
  // Still answering from the last known state: nothing removed, nothing emptied.
  assert.deepEqual(sink.calls, [{ op: 'replace', names: ['default/a', 'default/b'] }]);
  assert.equal(watch.synced, true);
  await eventually(() => sink.calls.length === 2, 3000, 'relist');
  assert.deepEqual(sink.calls[1], { op: 'replace', names: ['default/b'] });
  assert.equal(warnings(lines).length, 1);
});

test('a failing watch request is retried from the same resourceVersion, without relisting', async (t) => {
  const { api, sink, watch, lines } = await watchWith(t, (api) => {
    api.apply(serviceImport('a'));
    api.failNext(500, { match: 'watch', count: 2 });
    api.failNext(403, { match: 'watch' });
  });
  await eventually(() => api.watchCount === 1, 3000, 'watch open');
  api.apply(serviceImport('b'));
  await eventually(() => sink.calls.length === 2, 3000, 'upsert');
  const watches = api.requests.filter((r) => r.verb === 'watch');
  assert.deepEqual(watches.map((r) => r.status), [500, 500, 403, 200]);
  assert.deepEqual(new Set(watches.map((r) => r.query['resourceVersion'])), new Set(['2']));
  assert.equal(api.requests.filter((r) => r.verb === 'list').length, 1);
  assert.equal(watch.restarts, 3);
  assert.equal(lines.length, 2);
  assert.match(lines[0] ?? '', new RegExp(`^\\[WARNING\\] plugin/lighthouse: ${name}: watch: 500 InternalError: injected failure 500; retrying in \\d+ms$`));
  assert.equal(lines[1], `[INFO] plugin/lighthouse: ${name}: watching again after 3 failed attempts`);
});

test('when the API server goes away the watch backs off, keeps its state, and resumes when it returns', async (t) => {
  const { api, sink, watch, lines } = await watchWith(t, (api) => api.apply(serviceImport('a')));
  await eventually(() => watch.synced && api.watchCount === 1, 3000, 'sync');
  await api.stop();
  // Changes made while the client cannot see them are replayed from its resourceVersion.
  api.apply(serviceImport('b'));
  api.delete(serviceImport('a'));
  await eventually(() => watch.restarts >= 4, 3000, 'several refused reconnects');
  assert.deepEqual(sink.names(), ['default/a']);
  await api.restart();
  await eventually(() => sink.calls.length === 3, 3000, 'replayed events');
  assert.deepEqual(sink.calls, [
    { op: 'replace', names: ['default/a'] },
    { op: 'upsert', name: 'default/b' },
    { op: 'remove', name: 'default/a' },
  ]);
  assert.equal(api.requests.filter((r) => r.verb === 'list').length, 1);
  // A reset, then several refused connections: still a single warning.
  assert.equal(warnings(lines).length, 1);
  assert.match(warnings(lines)[0] ?? '', /: watch: .*(ECONNRESET|ECONNREFUSED|socket hang up|connection closed before the response ended).*; retrying in \d+ms$/);
});

test('a reset connection is re-established and nothing is lost', async (t) => {
  const { api, sink, watch } = await watchWith(t, (api) => api.apply(serviceImport('a')));
  await eventually(() => watch.synced && api.watchCount === 1, 3000, 'sync');
  api.apply(serviceImport('b'));
  await eventually(() => sink.calls.length === 2, 3000, 'first upsert');
  for (let i = 0; i < 3; i++) {
    api.dropConnections();
    api.apply(serviceImport(`c${i}`));
    await eventually(() => sink.names().includes(`default/c${i}`), 3000, `c${i} after reset ${i}`);
  }
  assert.deepEqual(sink.names(), ['default/a', 'default/b', 'default/c0', 'default/c1', 'default/c2']);
  assert.equal(api.requests.filter((r) => r.verb === 'list').length, 1);
});

test('a watch that goes silent is restarted by the watchdog and catches up', async (t) => {
  const { api, sink, watch, lines } = await watchWith(t, (api) => api.apply(serviceImport('a')), { watchdogMs: 150 });
  await eventually(() => watch.synced && api.watchCount === 1, 3000, 'sync');
  api.silenceWatches();
  api.apply(serviceImport('b'));
  await eventually(() => sink.calls.length === 2, 3000, 'upsert after watchdog restart');
  assert.deepEqual(sink.calls[1], { op: 'upsert', name: 'default/b' });
  assert.ok(watch.restarts >= 1);
  // (On a loaded machine even the list may take longer than 150 ms, and be the one reported.)
  assert.match(warnings(lines)[0] ?? '', new RegExp(`^\\[WARNING\\] plugin/lighthouse: ${name}: (watch|list): no data for 150ms(, restarting)?; retrying in \\d+ms$`));
});

test('requests that never get response headers are abandoned by the watchdog, list and watch alike', async (t) => {
  const { api, sink, watch } = await watchWith(
    t,
    (api) => {
      api.apply(serviceImport('a'));
      api.stallNext({ match: 'list' });
      api.stallNext({ match: 'watch' });
    },
    { watchdogMs: 100 },
  );
  await eventually(() => watch.synced, 3000, 'sync after a stalled list');
  await eventually(() => api.watchCount === 1, 3000, 'watch after a stalled watch');
  api.apply(serviceImport('b'));
  await eventually(() => sink.calls.length === 2, 3000, 'upsert');
  const seen = api.requests.map((r) => `${r.verb} ${r.status}`);
  assert.deepEqual(seen.slice(0, 4), ['list stalled', 'list 200', 'watch stalled', 'watch 200']);
  // On a slow machine the 100 ms watchdog may also restart the healthy but quiet watch.
  assert.deepEqual(new Set(seen.slice(3)), new Set(['watch 200']));
  assert.ok(watch.restarts >= 2);
});

test('an ERROR event other than 410 restarts the watch from the same resourceVersion after a backoff', async (t) => {
  const { api, sink, watch, lines } = await watchWith(t, (api) => api.apply(serviceImport('a')));
  await eventually(() => watch.synced && api.watchCount === 1, 3000, 'sync');
  assert.equal(api.errorWatches(500, 'etcdserver: request timed out'), 1);
  api.apply(serviceImport('b'));
  await eventually(() => sink.calls.length === 2, 3000, 'upsert');
  assert.deepEqual(sink.calls[1], { op: 'upsert', name: 'default/b' });
  assert.equal(watch.restarts, 1);
  assert.equal(api.requests.filter((r) => r.verb === 'list').length, 1);
  assert.match(warnings(lines)[0] ?? '', /: watch: 500 InternalError: etcdserver: request timed out; retrying in \d+ms$/);
});

test('a 410 ERROR event on an open watch relists at once and is not a warning', async (t) => {
  const { api, sink, watch, lines } = await watchWith(t, (api) => api.apply(serviceImport('a')));
  await eventually(() => watch.synced && api.watchCount === 1, 3000, 'sync');
  api.apply(serviceImport('b'));
  await eventually(() => sink.calls.length === 2, 3000, 'upsert');
  api.errorWatches(410, 'too old resource version: 2 (3)');
  await eventually(() => sink.calls.length === 3, 3000, 'relist');
  assert.deepEqual(sink.calls[2], { op: 'replace', names: ['default/a', 'default/b'] });
  assert.deepEqual(warnings(lines), []);
});

test('stop() while a request hangs returns promptly', async (t) => {
  const api = await startKubeApiServer();
  t.after(() => api.close());
  api.stallNext({ match: 'list' });
  const { logger, lines } = captureLog();
  const watch = await startWatch({ endpoint: api.url }, serviceImports, new RecordingSink(), { logger, env: {}, ...fast, watchdogMs: 60_000 });
  await eventually(() => api.requests.length === 1, 3000, 'stalled list');
  const started = Date.now();
  await watch.stop();
  assert.ok(Date.now() - started < 500);
  assert.deepEqual(lines, []);
  assert.equal(watch.synced, false);
});

test('a sink that throws is reported as an error and does not stop the watch', async (t) => {
  const api = await startKubeApiServer();
  t.after(() => api.close());
  api.apply(serviceImport('a'));
  const { logger, lines } = captureLog();
  const sink = new RecordingSink();
  const fragile = {
    replace: (items: Parameters<RecordingSink['replace']>[0]) => sink.replace(items),
    upsert: (item: Parameters<RecordingSink['upsert']>[0]) => {
      if (item.metadata?.name === 'bad') throw new Error('spec.ips is not an array');
      sink.upsert(item);
    },
    remove: (item: Parameters<RecordingSink['remove']>[0]) => sink.remove(item),
  };
  const watch = await startWatch({ endpoint: api.url }, serviceImports, fragile, { logger: logger.forPlugin('lighthouse'), env: {}, ...fast });
  t.after(() => watch.stop());
  await eventually(() => watch.synced && api.watchCount === 1, 3000, 'sync');
  api.apply(serviceImport('bad'));
  api.apply(serviceImport('good'));
  await eventually(() => sink.names().includes('default/good'), 3000, 'event after the throw');
  assert.deepEqual(lines, [`[ERROR] plugin/lighthouse: ${name}: sink upsert failed: spec.ips is not an array`]);
  assert.equal(watch.restarts, 0);
});
