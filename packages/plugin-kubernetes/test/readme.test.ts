/** The README is the operator's page: CoreDNS's sections, valid Corefile examples, every metric. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bind from '@foghorn/plugin-bind';
import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import kubernetes from '../src/index.js';

// An empty manifests directory: the plugin starts, registers its metrics, and needs no API server.
const manifests = mkdtempSync(join(tmpdir(), 'foghorn-k8s-readme-'));

checkPluginReadme(new URL('../../README.md', import.meta.url), {
  name: 'kubernetes',
  directives: directivesOf(bind, kubernetes),
  sections: ['Metrics', 'Ready'],
  minExamples: 4,
  metrics: { corefile: `cluster.local:0 {\n bind 127.0.0.1\n kubernetes {\n  manifests ${manifests}\n }\n}\n` },
});
