/** The README is the operator's page: CoreDNS's sections, valid Corefile examples, every metric. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import bind from '@foghorn/plugin-bind';
import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import kubernetes from '../src/index.js';

// Setup refuses a kubeconfig or manifests directory that is not there: the examples' relative
// paths (./kubeconfig, ./cluster) exist in the directory they are validated from. The empty
// manifests directory also serves the metrics check: the plugin starts with no API server.
const dir = mkdtempSync(join(tmpdir(), 'foghorn-k8s-readme-'));
writeFileSync(join(dir, 'kubeconfig'), '');
mkdirSync(join(dir, 'cluster'));
process.chdir(dir);
const manifests = join(dir, 'cluster');
after(() => {
  process.chdir(tmpdir());
  rmSync(dir, { recursive: true, force: true });
});

checkPluginReadme(new URL('../../README.md', import.meta.url), {
  name: 'kubernetes',
  directives: directivesOf(bind, kubernetes),
  sections: ['Metrics', 'Ready'],
  minExamples: 4,
  metrics: { corefile: `cluster.local:0 {\n bind 127.0.0.1\n kubernetes {\n  manifests ${manifests}\n }\n}\n` },
});
