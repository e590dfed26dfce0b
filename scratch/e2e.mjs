import { fork } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
if (process.argv[2] === 'child') {
  const { startServer, query } = await import('@foghorn/testkit');
  const { standardDirectives } = await import('../packages/foghorn/dist/src/directives.js');
  const corefile = process.argv[3];
  const s = await startServer(corefile, { directives: standardDirectives() });
  const port = s.port();
  process.on('message', async (m) => {
    if (m.q) {
      const r = await query({ port }, m.q, m.t ?? 'A');
      process.send({ answers: (r.answers ?? []).map((a) => `${a.name} ${a.type} ${a.data}`), rcode: r.rcode, lines: s.lines });
    }
  });
  process.send({ ready: true, lines: s.lines });
} else {
  const { startInformerHub } = await import('@foghorn/kube');
  const { createLogger } = await import('@foghorn/core');
  const { startKubeApiServer } = await import('@foghorn/testkit/kube');
  const api = await startKubeApiServer();
  api.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  api.apply({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { clusterIP: '10.0.0.7', ports: [{ name: 'http', port: 80, protocol: 'TCP' }] } });
  const dir = mkdtempSync(join(tmpdir(), 'e2e-'));
  writeFileSync(join(dir, 'a.yaml'), 'apiVersion: v1\nkind: Service\nmetadata: {name: files, namespace: default}\nspec: {clusterIP: 10.0.0.9}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: default}\n');
  const hub = startInformerHub({ logger: createLogger() });
  const corefile = `cluster.local:0 {\n  bind 127.0.0.1\n  kubernetes cluster.local { \n    endpoint ${api.url}\n  }\n}\nexample.local:0 {\n  bind 127.0.0.1\n  kubernetes example.local { \n    manifests ${dir}\n  }\n}\n`;
  const workers = [];
  for (let i = 0; i < 2; i++) {
    const child = fork(new URL(import.meta.url).pathname, ['child', corefile], { env: { ...process.env, FOGHORN_INFORMER_HUB: '1' } });
    hub.attach(child);
    const [m] = await once(child, 'message');
    console.log('worker ready', i, m.lines);
    workers.push(child);
  }
  const ask = async (child, q) => { child.send({ q }); const [m] = await once(child, 'message'); return m; };
  for (const w of workers) console.log(await ask(w, 'web.default.svc.cluster.local'));
  api.apply({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { clusterIP: '10.0.0.8', ports: [{ name: 'http', port: 80, protocol: 'TCP' }] } });
  await new Promise((r) => setTimeout(r, 200));
  for (const w of workers) console.log(await ask(w, 'web.default.svc.cluster.local'));
  for (const w of workers) console.log(await ask(w, 'files.default.svc.example.local'));
  console.log('lists', api.requestCounts('list'), 'watches', api.requestCounts('watch'), hub.registry.list().map((i) => [i.resource.plural, i.users]));
  for (const w of workers) w.kill();
  await hub.close(); await api.close();
}
