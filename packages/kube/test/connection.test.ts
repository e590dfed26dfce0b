import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { captureLog, eventually } from '@foghorn/testkit';
import { makeTempDir, RecordingSink, startKubeApiServer, writeKubeconfig, writeServiceAccount } from '@foghorn/testkit/kube';
import type { KubeApiServer } from '@foghorn/testkit/kube';
import { KubeConnectionError, resolveConnection, startWatch } from '../src/index.js';
import type { KubeConnection, ResourceSpec, ResolvedConnection, Watch } from '../src/index.js';

const serviceImports: ResourceSpec = { group: 'multicluster.x-k8s.io', version: 'v1alpha1', plural: 'serviceimports' };
const fast = { backoffInitialMs: 10, backoffMaxMs: 80, watchTimeoutSeconds: 5, watchdogMs: 2000 } as const;

async function tlsServer(t: TestContext, token = 's3cret'): Promise<KubeApiServer> {
  const api = await startKubeApiServer({ tls: true, token });
  t.after(() => api.close());
  api.apply({ apiVersion: 'multicluster.x-k8s.io/v1alpha1', kind: 'ServiceImport', metadata: { name: 'nginx', namespace: 'default' } });
  return api;
}

function tempDir(t: TestContext): string {
  const dir = makeTempDir();
  t.after(() => dir.remove());
  return dir.path;
}

async function syncedWatch(t: TestContext, connection: KubeConnection | ResolvedConnection, env: NodeJS.ProcessEnv = {}, serviceAccountDir?: string): Promise<{ sink: RecordingSink; watch: Watch; lines: string[] }> {
  const { logger, lines } = captureLog();
  const sink = new RecordingSink();
  const watch = await startWatch(connection, serviceImports, sink, { logger, env, ...fast, ...(serviceAccountDir !== undefined ? { serviceAccountDir } : {}) });
  t.after(() => watch.stop());
  return { sink, watch, lines };
}

test('kubeconfig PATH CONTEXT: TLS verified against the kubeconfig CA, bearer token sent', async (t) => {
  const api = await tlsServer(t);
  const file = writeKubeconfig(path.join(tempDir(t), 'config'), [
    { name: 'other', server: api.url, ca: api.ca!, token: 'wrong' },
    { name: 'lighthouse', server: api.url, ca: api.ca!, token: 's3cret', namespace: 'submariner-operator' },
  ]);
  const resolved = await resolveConnection({ kubeconfig: file, context: 'lighthouse' }, {});
  assert.equal(resolved.source, 'kubeconfig');
  assert.equal(resolved.server, api.url);
  assert.match(api.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  const { sink, watch } = await syncedWatch(t, resolved);
  await eventually(() => watch.synced && api.watchCount === 1, 3000, 'sync');
  assert.deepEqual(sink.names(), ['default/nginx']);
  for (const request of api.requests) assert.equal(request.authorization, 'Bearer s3cret');
});

test('kubeconfig with the wrong token: 401 is retried and reported, never synced', async (t) => {
  const api = await tlsServer(t);
  const file = writeKubeconfig(path.join(tempDir(t), 'config'), [{ name: 'ctx', server: api.url, ca: api.ca!, token: 'wrong' }]);
  const { watch, lines } = await syncedWatch(t, { kubeconfig: file });
  await eventually(() => api.requests.length >= 3, 3000, 'retries');
  assert.equal(watch.synced, false);
  assert.equal(lines.length, 1);
  assert.match(lines[0] ?? '', /^\[WARNING\] .*: list: 401 Unauthorized: Unauthorized; retrying in \d+ms$/);
});

test('a server certificate the kubeconfig CA does not vouch for is refused', async (t) => {
  const api = await tlsServer(t);
  // No CA: the self-signed certificate must not be trusted through the system roots.
  const file = writeKubeconfig(path.join(tempDir(t), 'config'), [{ name: 'ctx', server: api.url, token: 's3cret' }]);
  const { watch, lines } = await syncedWatch(t, { kubeconfig: file });
  await eventually(() => lines.length === 1, 3000, 'a warning');
  assert.equal(api.requests.length, 0);
  assert.equal(watch.synced, false);
  assert.match(lines[0] ?? '', /self[- ]signed certificate/);
});

test('in-cluster: the service-account token and CA plus KUBERNETES_SERVICE_HOST/PORT', async (t) => {
  const api = await tlsServer(t, 'pod-token');
  const account = writeServiceAccount(path.join(tempDir(t), 'serviceaccount'), { token: 'pod-token', ca: api.ca!, namespace: 'submariner-operator', port: api.port });
  const resolved = await resolveConnection({}, { ...account.env, KUBECONFIG: '/nonexistent' }, { serviceAccountDir: account.dir });
  assert.equal(resolved.source, 'in-cluster');
  assert.equal(resolved.server, api.url);
  assert.equal(resolved.namespace, 'submariner-operator');
  const { sink, watch } = await syncedWatch(t, {}, account.env, account.dir);
  await eventually(() => watch.synced && api.watchCount === 1, 3000, 'sync');
  assert.deepEqual(sink.names(), ['default/nginx']);
  for (const request of api.requests) assert.equal(request.authorization, 'Bearer pod-token');
});

test('a YAML kubeconfig: CA and token files relative to its directory, the token read from the file', async (t) => {
  const api = await tlsServer(t);
  const dir = tempDir(t);
  fs.writeFileSync(path.join(dir, 'ca.crt'), api.ca!);
  fs.writeFileSync(path.join(dir, 'token'), 's3cret\n');
  const file = path.join(dir, 'config');
  fs.writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: local',
      '  cluster:',
      `    server: ${api.url}`,
      '    certificate-authority: ca.crt',
      'users:',
      '- name: reader',
      '  user:',
      '    tokenFile: token',
      'contexts:',
      '- name: dns',
      '  context: {cluster: local, user: reader, namespace: kube-system}',
      'current-context: dns',
      '',
    ].join('\n'),
  );
  const resolved = await resolveConnection({ kubeconfig: file }, {});
  assert.equal(resolved.namespace, 'kube-system');
  const { sink, watch } = await syncedWatch(t, resolved);
  await eventually(() => watch.synced && api.watchCount === 1, 3000, 'sync');
  assert.deepEqual(sink.names(), ['default/nginx']);
  for (const request of api.requests) assert.equal(request.authorization, 'Bearer s3cret');
});

test('an exec credential plugin runs through the client library, and its token is sent', async (t) => {
  const api = await tlsServer(t, 'exec-token');
  const dir = tempDir(t);
  const credential = { apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: 'exec-token' } };
  const file = path.join(dir, 'config');
  fs.writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'local', cluster: { server: api.url, 'certificate-authority-data': Buffer.from(api.ca!).toString('base64') } }],
      users: [{ name: 'plugin', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: process.execPath, args: ['-e', `console.log(${JSON.stringify(JSON.stringify(credential))})`], interactiveMode: 'Never' } } }],
      contexts: [{ name: 'dns', context: { cluster: 'local', user: 'plugin' } }],
      'current-context': 'dns',
    }),
  );
  const { sink, watch } = await syncedWatch(t, { kubeconfig: file });
  // The plugin is a node process: seconds on a loaded machine.
  await eventually(() => watch.synced && api.watchCount === 1, 20_000, 'sync');
  assert.deepEqual(sink.names(), ['default/nginx']);
  for (const request of api.requests) assert.equal(request.authorization, 'Bearer exec-token');
});

test('endpoint URL alone connects without credentials', async (t) => {
  const api = await startKubeApiServer();
  t.after(() => api.close());
  const resolved = await resolveConnection({ endpoint: `${api.url}/` }, {});
  assert.equal(resolved.source, 'endpoint');
  assert.equal(resolved.server, api.url);
  const { watch } = await syncedWatch(t, { endpoint: api.url });
  await eventually(() => watch.synced, 3000, 'sync');
  assert.equal(api.requests[0]?.authorization, undefined);
});

test('kubeconfig plus endpoint: the kubeconfig credentials against the endpoint server', async (t) => {
  const api = await tlsServer(t);
  const file = writeKubeconfig(path.join(tempDir(t), 'config'), [{ name: 'ctx', server: 'https://192.0.2.1:6443', ca: api.ca!, token: 's3cret' }]);
  const resolved = await resolveConnection({ kubeconfig: file, endpoint: api.url }, {});
  assert.equal(resolved.server, api.url);
  const { watch } = await syncedWatch(t, resolved);
  await eventually(() => watch.synced, 3000, 'sync');
});

test('$KUBECONFIG is the last resort, and its first file wins', async (t) => {
  const api = await startKubeApiServer();
  t.after(() => api.close());
  const dir = tempDir(t);
  const first = writeKubeconfig(path.join(dir, 'first'), [{ name: 'ctx', server: api.url }]);
  const second = writeKubeconfig(path.join(dir, 'second'), [{ name: 'ctx', server: 'http://192.0.2.1:8080' }, { name: 'extra', server: 'http://192.0.2.2:8080' }]);
  const env = { KUBECONFIG: [first, second].join(path.delimiter) };
  const resolved = await resolveConnection({}, env, { serviceAccountDir: path.join(dir, 'none') });
  assert.equal(resolved.source, '$KUBECONFIG');
  assert.equal(resolved.server, api.url);
  // Contexts of every file are merged: the second file's own context is there to pick.
  assert.equal((await resolveConnection({ context: 'extra' }, env, { serviceAccountDir: path.join(dir, 'none') })).server, 'http://192.0.2.2:8080');
  // In-cluster variables without a token file are not a pod: $KUBECONFIG still applies.
  const notAPod = await resolveConnection({}, { ...env, KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: '443' }, { serviceAccountDir: path.join(dir, 'none') });
  assert.equal(notAPod.source, '$KUBECONFIG');
});

test('configuration mistakes are reported as KubeConnectionError, without contacting anything', async (t) => {
  const dir = tempDir(t);
  const file = writeKubeconfig(path.join(dir, 'config'), [{ name: 'ctx', server: 'http://127.0.0.1:1' }]);
  const cases: [KubeConnection, NodeJS.ProcessEnv, RegExp][] = [
    [{ kubeconfig: path.join(dir, 'missing') }, {}, /^kubeconfig '.*missing': ENOENT/],
    [{ kubeconfig: file, context: 'nope' }, {}, /^kubeconfig '.*config': context 'nope' not found$/],
    [{ endpoint: 'not a url' }, {}, /^endpoint 'not a url' is not a URL$/],
    [{ endpoint: 'ftp://127.0.0.1' }, {}, /^endpoint 'ftp:\/\/127\.0\.0\.1' must be an http or https URL$/],
    [{}, {}, /^no Kubernetes API server configured: give 'kubeconfig PATH \[CONTEXT\]' or 'endpoint URL'/],
  ];
  for (const [connection, env, message] of cases) {
    await assert.rejects(resolveConnection(connection, env, { serviceAccountDir: path.join(dir, 'none') }), (err: unknown) => {
      assert.ok(err instanceof KubeConnectionError);
      assert.equal(err.code, 'FOGHORN_ERR_KUBE_CONNECTION');
      assert.match(err.message, message);
      return true;
    });
  }
  // startWatch rejects only for configuration, never for an unreachable server.
  await assert.rejects(startWatch({}, serviceImports, new RecordingSink(), { env: {}, serviceAccountDir: path.join(dir, 'none') }), KubeConnectionError);
  const watch = await startWatch({ endpoint: 'http://127.0.0.1:1' }, serviceImports, new RecordingSink(), { logger: captureLog().logger, env: {}, ...fast });
  assert.equal(watch.synced, false);
  await watch.stop();
});
