import { test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import bind from '@foghorn/plugin-bind';
import kubernetes from '@foghorn/plugin-kubernetes';
import { createLogPlugin } from '@foghorn/plugin-log';
import whoami from '@foghorn/plugin-whoami';
import { directivesOf, query, startServer } from '@foghorn/testkit';
import { startKubeApiServer } from '@foghorn/testkit/kube';
import metadata from '../src/index.js';

const logged: string[] = [];
const directives = directivesOf(metadata, bind, createLogPlugin({ sink: (line) => logged.push(line) }), kubernetes, whoami);

/** Every label the kubernetes plugin publishes, in one log line: `-` when not set, nothing when empty. */
const labels = ['endpoint', 'kind', 'namespace', 'port-name', 'protocol', 'service', 'cluster', 'parse-error', 'client-namespace', 'client-pod-name', 'client-label/app.kubernetes.io/name', 'client-label/bar'];
const format = ['{name}', ...labels.map((label) => `{/kubernetes/${label}}`)].join('|');

/** A server whose kubernetes plugin watches a test API server holding a pod with the test client's address. */
async function cluster(t: TestContext, options: string): Promise<number> {
  const api = await startKubeApiServer();
  t.after(() => api.close());
  api.apply({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'foo', namespace: 'podns', labels: { 'app.kubernetes.io/name': 'foo', bar: 'baz' } }, status: { podIP: '127.0.0.1', phase: 'Running' } });
  const corefile = `.:0 {\n    bind 127.0.0.1\n    metadata\n    log . "${format}"\n    kubernetes cluster.local clusterset.local {\n        endpoint ${api.url}\n        multicluster clusterset.local\n${options}\n    }\n    whoami\n}\n`;
  const server = await startServer(corefile, { directives });
  t.after(() => server.close());
  logged.length = 0;
  return server.port();
}

/** The log line of each name, its labels by name (only those set). */
async function published(port: number, names: readonly [string, 'A' | 'SRV'][]): Promise<Record<string, string>[]> {
  logged.length = 0;
  for (const [name, type] of names) await query({ port }, name, type);
  return logged.map((line) => {
    const values = line.replace(/^\[INFO\] /, '').split('|').slice(1);
    return Object.fromEntries(values.flatMap((value, i) => (value === '-' ? [] : [[labels[i]!, value]])));
  });
}

// CoreDNS's plugin/kubernetes/metadata_test.go TestMetadata, over a real server.
test('kubernetes publishes what the query name says', async (t) => {
  const port = await cluster(t, '');
  const parsed = { endpoint: '', 'port-name': '', protocol: '' };
  assert.deepEqual(
    await published(port, [
      ['foo.bar.notapod.cluster.local.', 'A'],
      ['10-240-0-1.podns.pod.cluster.local.', 'A'],
      ['s.ns.svc.cluster.local.', 'A'],
      ['_http._tcp.s.ns.svc.cluster.local.', 'SRV'],
      ['ep.s.ns.svc.cluster.local.', 'A'],
      ['ep.c1.s.ns.svc.clusterset.local.', 'A'],
      ['example.com.', 'A'],
    ]),
    [
      { 'parse-error': 'invalid query name' },
      { ...parsed, kind: 'pod', namespace: 'podns', service: '10-240-0-1' },
      { ...parsed, kind: 'svc', namespace: 'ns', service: 's' },
      { ...parsed, kind: 'svc', namespace: 'ns', service: 's', 'port-name': 'http', protocol: 'tcp' },
      { ...parsed, kind: 'svc', namespace: 'ns', service: 's', endpoint: 'ep' },
      { ...parsed, kind: 'svc', namespace: 'ns', service: 's', endpoint: 'ep', cluster: 'c1' },
      {},
    ],
  );
});

// CoreDNS's TestMetadataPodsVerified: the client is the pod with the query's source address.
test('with pods verified, kubernetes publishes the client pod, its namespace and labels', async (t) => {
  const port = await cluster(t, '        pods verified');
  assert.deepEqual(await published(port, [['example.com.', 'A']]), [
    { 'client-namespace': 'podns', 'client-pod-name': 'foo', 'client-label/app.kubernetes.io/name': 'foo', 'client-label/bar': 'baz' },
  ]);
});
