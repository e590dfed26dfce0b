/**
 * The manifests source: the same answers from YAML files as from an API server, edits followed,
 * a half-written file keeping its last good content, and readiness once the directory is read.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { stringify } from 'yaml';
import bind from '@foghorn/plugin-bind';
import { directivesOf, rcodeOf, startServer } from '@foghorn/testkit';
import { makeTempDir } from '@foghorn/testkit/kube';
import { createKubernetesPlugin, parseManifests } from '../src/index.js';
import { ask, checkCases, endpointSlice, eventually, handlerObjects, namespace, rr, service } from './fixtures.js';
import { commonDnsTestCases } from './tables.js';

const http = { name: 'http', protocol: 'TCP', port: 80 };

test('a directory of manifests answers CoreDNS\'s common table; edits reach the answers', async (t) => {
  const dir = makeTempDir('foghorn-manifests-');
  t.after(() => dir.remove());
  // Several documents per file, a List, and JSON.
  writeFileSync(join(dir.path, 'cluster.yaml'), handlerObjects.slice(0, 10).map((o) => stringify(o)).join('---\n'));
  writeFileSync(join(dir.path, 'more.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: handlerObjects.slice(10) }));
  const plugin = createKubernetesPlugin({ manifestsDebounceMs: 10 });
  const dns = await startServer(`cluster.local:0 {\n    bind 127.0.0.1\n    kubernetes {\n        manifests ${dir.path}\n        namespaces testns\n    }\n}\n`, { directives: directivesOf(bind, plugin) });
  t.after(() => dns.close());
  // ExternalName lookups outside the zone have no upstream here; the other rows all apply.
  await checkCases(dns, commonDnsTestCases);

  writeFileSync(join(dir.path, 'new.yaml'), [namespace('testns'), service('web', 'testns', { clusterIPs: ['10.0.0.50'], ports: [http] })].map((o) => stringify(o)).join('---\n'));
  const web = 'web.testns.svc.cluster.local.';
  await eventually(dns, web, 'A', (r) => (r.answers ?? []).map(rr).join() === `${web} 5 IN A 10.0.0.50`, 'the new file');
  // A broken edit keeps the file's last good objects.
  writeFileSync(join(dir.path, 'new.yaml'), 'kind: [unclosed');
  await eventually(dns, web, 'A', () => dns.lines.some((l) => l.includes('[WARNING] plugin/kubernetes: manifests:')), 'the parse warning');
  assert.equal(rcodeOf(await ask(dns, web, 'A')), 'NOERROR');
  writeFileSync(join(dir.path, 'new.yaml'), stringify(endpointSlice('web-1', 'testns', 'web', [{ ip: '10.1.1.1' }], [http])));
  await eventually(dns, web, 'A', (r) => rcodeOf(r) === 'NXDOMAIN', 'the service gone with its file content');
});

test('parseManifests reads multi-document YAML and Lists', () => {
  const objects = parseManifests(`apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\napiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Namespace, metadata: {name: b}}\n`);
  assert.deepEqual(objects.map((o) => o.metadata?.name), ['a', 'b']);
  assert.throws(() => parseManifests('a: [b'));
});
