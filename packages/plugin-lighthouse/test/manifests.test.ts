/**
 * The manifests source following its directory: files added, edited, reordered, broken and
 * removed, with every answer in between either the old or the new one. Also readiness, the
 * metrics, and sharing one source between server blocks.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import bind from '@foghorn/plugin-bind';
import { definePlugin, ReadinessProbes } from '@foghorn/core';
import type { ReadinessProbe } from '@foghorn/core';
import { directivesOf, startServer } from '@foghorn/testkit';
import lighthouse, { parseManifests } from '../src/index.js';
import { ask, eventually, http, manifestDir, serviceImport, serviceSlice, startLighthouse } from './fixtures.js';

const Z = 'clusterset.local';
const svc1 = `service1.namespace1.svc.${Z}`;


test('the manifests source follows added, edited, reordered and removed files', async (t) => {
  const dir = await manifestDir();
  t.after(() => dir.close());
  await dir.write('service1.yaml', [serviceImport('service1', 'namespace1', { ports: [http] }), serviceSlice('service1', 'namespace1', 'cluster1', '10.0.0.1', [http])]);
  const server = await startLighthouse(dir.path);
  t.after(() => server.close());
  assert.deepEqual((await ask(server, svc1, 'A')).answers, [`${svc1}. 5 IN A 10.0.0.1`]);

  // An edit: every answer while it lands is the old or the new address, never a negative one.
  const seen = new Set<string>();
  let stop = false;
  const watcher = (async () => {
    while (!stop) {
      const { rcode, answers } = await ask(server, svc1, 'A');
      seen.add(`${rcode} ${answers.join(',')}`);
    }
  })();
  await dir.write('service1.yaml', [serviceImport('service1', 'namespace1', { ports: [http] }), serviceSlice('service1', 'namespace1', 'cluster1', '10.0.0.2', [http])]);
  await eventually(async () => assert.deepEqual((await ask(server, svc1, 'A')).answers, [`${svc1}. 5 IN A 10.0.0.2`]));
  stop = true;
  await watcher;
  for (const answer of seen) assert.match(answer, /^NOERROR .* IN A 10\.0\.0\.[12]$/);

  // Slices in one file before the ServiceImport in another: applied once the import arrives.
  const svc2 = `service2.namespace1.svc.${Z}`;
  await dir.write('a-slices.yaml', [serviceSlice('service2', 'namespace1', 'cluster2', '10.0.1.1', [http])]);
  await eventually(async () => assert.equal((await ask(server, `cluster2.${svc2}`, 'A')).rcode, 'NXDOMAIN'));
  await dir.write('b-import.yaml', [serviceImport('service2', 'namespace1', { ports: [http] })]);
  await eventually(async () => assert.deepEqual((await ask(server, svc2, 'A', 'tcp')).answers, [`${svc2}. 5 IN A 10.0.1.1`]));

  // A broken file keeps its last good content.
  await writeFile(join(dir.path, 'b-import.yaml'), 'kind: ServiceImport\nmetadata: [unclosed\n');
  await eventually(async () => assert.ok(server.lines.some((line) => line.startsWith('[WARNING] plugin/lighthouse: manifests: ') && line.includes('b-import.yaml'))));
  assert.deepEqual((await ask(server, svc2, 'A')).answers, [`${svc2}. 5 IN A 10.0.1.1`]);

  // Removing the import: the slices keep the name alive only while it was exported before.
  await dir.remove('b-import.yaml');
  await dir.remove('a-slices.yaml');
  await eventually(async () => assert.equal((await ask(server, svc2, 'A')).rcode, 'NXDOMAIN'));
  await dir.remove('service1.yaml');
  await eventually(async () => assert.equal((await ask(server, svc1, 'SRV')).rcode, 'NXDOMAIN'));
});

test('multi-document files, List objects and JSON are read; other kinds and unmanaged slices are skipped', () => {
  const objects = parseManifests(
    [
      'apiVersion: v1\nkind: List\nitems:\n- apiVersion: multicluster.x-k8s.io/v1alpha1\n  kind: ServiceImport\n  metadata: {name: a, namespace: n}',
      '---',
      '{"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice", "metadata": {"name": "b", "namespace": "n"}}',
      '---',
      '# only a comment',
    ].join('\n'),
  );
  assert.deepEqual(
    objects.map((o) => `${o.kind}/${o.metadata?.name}`),
    ['ServiceImport/a', 'EndpointSlice/b'],
  );
});

test('readiness turns true once the first scan is applied, and metrics count queries, records and objects', async (t) => {
  const dir = await manifestDir();
  t.after(() => dir.close());
  await dir.write('service1.yaml', [serviceImport('service1', 'namespace1', { ports: [http] }), serviceSlice('service1', 'namespace1', 'cluster1', '10.0.0.1', [http])]);
  let probes: (() => readonly ReadinessProbe[]) | undefined;
  const readyprobe = definePlugin({ name: 'readyprobe', setup: (c) => void (probes = () => c.use(ReadinessProbes)) });
  const server = await startServer(`${Z}:0 {\n    bind 127.0.0.1\n    readyprobe\n    lighthouse {\n        manifests ${dir.path}\n    }\n}\n`, {
    directives: directivesOf(bind, readyprobe, lighthouse),
  });
  t.after(() => server.close());
  const lighthouseProbe = probes?.().find((p) => p.name === 'lighthouse');
  assert.ok(lighthouseProbe);
  assert.equal(lighthouseProbe.ready(), true);

  await ask(server, svc1, 'A');
  await ask(server, svc1, 'A', 'tcp');
  await ask(server, `unknown.namespace1.svc.${Z}`, 'A');
  await ask(server, svc1, 'MX');
  const text = await server.server.registry.metrics();
  assert.match(text, /coredns_lighthouse_queries_total\{zones="clusterset\.local\.",outcome="success"\} 2/);
  assert.match(text, /coredns_lighthouse_queries_total\{zones="clusterset\.local\.",outcome="nxdomain"\} 1/);
  assert.match(text, /coredns_lighthouse_queries_total\{zones="clusterset\.local\.",outcome="notimp"\} 1/);
  assert.match(text, /coredns_lighthouse_records_served_total\{cluster="cluster1"\} 2/);
  assert.match(text, /coredns_lighthouse_objects\{resource="serviceimports"\} 1/);
  assert.match(text, /coredns_lighthouse_objects\{resource="endpointslices"\} 1/);
  assert.match(text, /coredns_lighthouse_watch_restarts_total/);
  assert.match(text, /coredns_lighthouse_last_event_age_seconds \d/);
});

test('server blocks naming the same directory share one source and keep it across a reload', async (t) => {
  const dir = await manifestDir();
  t.after(() => dir.close());
  await dir.write('service1.yaml', [serviceImport('service1', 'namespace1', { ports: [http] }), serviceSlice('service1', 'namespace1', 'cluster1', '10.0.0.1', [http])]);
  const block = (zone: string): string => `${zone}:0 {\n    bind 127.0.0.1\n    lighthouse {\n        manifests ${dir.path}\n    }\n}\n`;
  const server = await startServer(block(Z) + block('supercluster.local'), { directives: directivesOf(bind, lighthouse) });
  t.after(() => server.close());
  const text = await server.server.registry.metrics();
  assert.match(text, /coredns_lighthouse_objects\{resource="serviceimports"\} 1/, 'one source, not two');
  for (const zone of [Z, 'supercluster.local']) {
    assert.deepEqual((await ask(server, `service1.namespace1.svc.${zone}`, 'A')).answers, [`service1.namespace1.svc.${zone}. 5 IN A 10.0.0.1`]);
  }
  assert.equal(await server.server.reload(), true);
  assert.deepEqual((await ask(server, svc1, 'A')).answers, [`${svc1}. 5 IN A 10.0.0.1`]);
});

test('a missing manifests directory fails startup with the path', async () => {
  await assert.rejects(startLighthouse('/nonexistent/lighthouse-manifests'), /manifests directory '\/nonexistent\/lighthouse-manifests'/);
});

test('bad objects are logged once with the file and the field, counted, and YAML errors are not logged again on rescans', async (t) => {
  const dir = await manifestDir();
  t.after(() => dir.close());
  const badImport = { ...serviceImport('bad', 'namespace1'), spec: { type: 42, ips: ['999.1.1.1'], ports: [] } };
  const badSlice = { ...serviceSlice('bad', 'namespace1', 'cluster1', '10.0.0.9', [http]), endpoints: [null, { addresses: ['999.1.1.1'] }] };
  await dir.write('bad.yaml', [badImport, badSlice]);
  await dir.write('service1.yaml', [serviceImport('service1', 'namespace1', { ports: [http] }), serviceSlice('service1', 'namespace1', 'cluster1', '10.0.0.1', [http])]);
  const server = await startLighthouse(dir.path);
  t.after(() => server.close());
  const warnings = (): string[] => server.lines.filter((line) => line.startsWith('[WARNING] plugin/lighthouse: manifests: '));
  const file = join(dir.path, 'bad.yaml');
  assert.deepEqual(warnings(), [
    `[WARNING] plugin/lighthouse: manifests: ${file}: ServiceImport namespace1/bad: spec.type: 42 is not ClusterSetIP or Headless (taken as ClusterSetIP); spec.ips[0]: "999.1.1.1" is not an IP address (ignored)`,
    `[WARNING] plugin/lighthouse: manifests: ${file}: EndpointSlice namespace1/bad-cluster1: endpoints[0]: null is not an object (ignored); endpoints[1].addresses[0]: "999.1.1.1" is not an IP address (ignored)`,
  ]);
  // The clusterset IP that is not one is not served.
  assert.deepEqual((await ask(server, `bad.namespace1.svc.${Z}`, 'A')).answers, []);

  // A broken file: one warning however many rescans happen, until it changes again.
  await writeFile(join(dir.path, 'broken.yaml'), 'kind: ServiceImport\nmetadata: [unclosed\n');
  await eventually(async () => assert.equal(warnings().filter((line) => line.includes('broken.yaml')).length, 1));
  for (const address of ['10.0.0.2', '10.0.0.3']) {
    await dir.write('service1.yaml', [serviceImport('service1', 'namespace1', { ports: [http] }), serviceSlice('service1', 'namespace1', 'cluster1', address, [http])]);
    await eventually(async () => assert.deepEqual((await ask(server, svc1, 'A')).answers, [`${svc1}. 5 IN A ${address}`]));
  }
  assert.equal(warnings().filter((line) => line.includes('broken.yaml')).length, 1);
  assert.equal(warnings().filter((line) => line.includes('bad.yaml')).length, 2, 'unchanged bad objects are not logged again');
  const text = await server.server.registry.metrics();
  assert.match(text, /coredns_lighthouse_invalid_objects_total\{resource="serviceimports"\} 1/);
  assert.match(text, /coredns_lighthouse_invalid_objects_total\{resource="endpointslices"\} 1/);
  assert.match(text, /coredns_lighthouse_invalid_objects_total\{resource="manifests"\} 1/);

  // A fixed object is forgotten; broken again, it is reported again.
  await dir.write('bad.yaml', [serviceImport('bad', 'namespace1', { ips: ['10.9.9.9'] })]);
  await eventually(async () => assert.deepEqual((await ask(server, `bad.namespace1.svc.${Z}`, 'A')).answers, [`bad.namespace1.svc.${Z}. 5 IN A 10.9.9.9`]));
  await dir.write('bad.yaml', [badImport]);
  await eventually(async () => assert.equal(warnings().filter((line) => line.includes('bad.yaml')).length, 3));
});
