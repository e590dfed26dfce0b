/** The README is the operator's page: CoreDNS's sections, valid Corefile examples, every metric. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import bind from '@foghorn/plugin-bind';
import forward from '@foghorn/plugin-forward';
import kubernetes from '@foghorn/plugin-kubernetes';
import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import k8sExternal from '../src/index.js';

// The examples name ./kubeconfig, which setup wants to exist; an empty manifests directory lets
// the metrics check start the kubernetes plugin without an API server.
const dir = mkdtempSync(join(tmpdir(), 'foghorn-k8s-external-readme-'));
writeFileSync(join(dir, 'kubeconfig'), '');
mkdirSync(join(dir, 'cluster'));
process.chdir(dir);
after(() => {
  process.chdir(tmpdir());
  rmSync(dir, { recursive: true, force: true });
});

checkPluginReadme(new URL('../../README.md', import.meta.url), {
  name: 'k8s_external',
  directives: directivesOf(bind, k8sExternal, kubernetes, forward),
  sections: ['Metrics'],
  minExamples: 2,
  metrics: { corefile: `.:0 {\n bind 127.0.0.1\n kubernetes cluster.local {\n  manifests ${join(dir, 'cluster')}\n }\n k8s_external example.org\n}\n` },
});
