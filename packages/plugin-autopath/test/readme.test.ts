/** The README is the operator's page: CoreDNS's sections, valid Corefile examples, every metric. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import bind from '@foghorn/plugin-bind';
import forward from '@foghorn/plugin-forward';
import kubernetes from '@foghorn/plugin-kubernetes';
import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import autopath from '../src/index.js';

// The examples name ./kubeconfig and ./resolv.conf, which setup reads or wants to exist.
const dir = mkdtempSync(join(tmpdir(), 'foghorn-autopath-readme-'));
writeFileSync(join(dir, 'kubeconfig'), '');
writeFileSync(join(dir, 'resolv.conf'), 'search example.org\n');
process.chdir(dir);
after(() => {
  process.chdir(tmpdir());
  rmSync(dir, { recursive: true, force: true });
});

checkPluginReadme(new URL('../../README.md', import.meta.url), {
  name: 'autopath',
  directives: directivesOf(bind, autopath, kubernetes, forward),
  sections: ['Metrics'],
  minExamples: 2,
  metrics: { corefile: `.:0 {\n bind 127.0.0.1\n autopath ${join(dir, 'resolv.conf')}\n}\n` },
});
