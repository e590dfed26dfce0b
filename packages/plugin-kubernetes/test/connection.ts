/**
 * The three ways to reach the API server (CoreDNS's `endpoint` + `tls`, `kubeconfig FILE
 * CONTEXT`, in-cluster), each against the test API server over TLS, answering a name.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import bind from '@foghorn/plugin-bind';
import { directivesOf, startServer } from '@foghorn/testkit';
import { makeTempDir, startKubeApiServer, testTlsPair, writeKubeconfig, writeServiceAccount } from '@foghorn/testkit/kube';
import type { KubeApiServer } from '@foghorn/testkit/kube';
import { createKubernetesPlugin } from '../src/index.js';
import type { PluginOverrides } from '../src/index.js';
import { ask, fastWatch, handlerObjects, resources, rr } from './fixtures.js';

async function api(t: TestContext, token?: string): Promise<KubeApiServer> {
  const server = await startKubeApiServer({ resources, tls: true, ...(token !== undefined ? { token } : {}) });
  t.after(() => server.close());
  for (const object of handlerObjects) server.apply(structuredClone(object));
  return server;
}

async function answers(t: TestContext, options: string, overrides: PluginOverrides = {}): Promise<string[]> {
  const plugin = createKubernetesPlugin({ ...overrides, watch: { ...fastWatch, ...overrides.watch } });
  const dns = await startServer(`cluster.local:0 {\n    bind 127.0.0.1\n    kubernetes {\n${options}\n    }\n}\n`, { directives: directivesOf(bind, plugin) });
  t.after(() => dns.close());
  let last: string[] = [];
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    last = ((await ask(dns, 'svc1.testns.svc.cluster.local.', 'A')).answers ?? []).map(rr);
    if (last.length > 0) break;
  }
  return last;
}

const want = ['svc1.testns.svc.cluster.local. 5 IN A 10.0.0.1'];

test('endpoint with tls CERT KEY CACERT', async (t) => {
  const server = await api(t);
  const dir = makeTempDir();
  t.after(() => dir.remove());
  const pair = testTlsPair();
  const [cert, key, ca] = ['client.crt', 'client.key', 'ca.crt'].map((name) => join(dir.path, name));
  writeFileSync(cert!, pair.cert);
  writeFileSync(key!, pair.key);
  writeFileSync(ca!, server.ca!);
  assert.deepEqual(await answers(t, `        endpoint ${server.url}\n        tls ${cert} ${key} ${ca}`), want);
});

test('kubeconfig FILE CONTEXT with a bearer token', async (t) => {
  const server = await api(t, 'sekret');
  const dir = makeTempDir();
  t.after(() => dir.remove());
  const file = writeKubeconfig(join(dir.path, 'config'), [
    { name: 'wrong', server: 'https://127.0.0.1:1', ca: server.ca!, token: 'nope' },
    { name: 'right', server: server.url, ca: server.ca!, token: 'sekret' },
  ], 'wrong');
  assert.deepEqual(await answers(t, `        kubeconfig ${file} right`), want);
});

test('in-cluster: the service account and KUBERNETES_SERVICE_HOST/PORT', async (t) => {
  const server = await api(t, 'pod-token');
  const dir = makeTempDir();
  t.after(() => dir.remove());
  const files = writeServiceAccount(join(dir.path, 'sa'), { token: 'pod-token', ca: server.ca!, port: Number(new URL(server.url).port) });
  assert.deepEqual(await answers(t, '', { env: { ...files.env }, watch: { serviceAccountDir: files.dir } }), want);
});
