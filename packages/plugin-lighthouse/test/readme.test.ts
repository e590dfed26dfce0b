/** The README is the operator's page: CoreDNS's sections, valid Corefile examples, every metric. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import { validateCorefile } from '@foghorn/core/server';
import { directivesOf, tempFile } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import whoami from '@foghorn/plugin-whoami';
import lighthouse from '../src/index.js';
import { LighthouseMetrics } from '../src/metrics.js';
import { SourceRegistry } from '../src/source.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

test('the README has the sections of a CoreDNS plugin page', () => {
  const headings = [...readme.matchAll(/^##? (.+)$/gm)].map((m) => m[1]);
  for (const section of ['lighthouse', 'Name', 'Description', 'Syntax', 'Metrics', 'Ready', 'Examples', 'See Also']) {
    assert.ok(headings.includes(section), `missing section ${section}`);
  }
});

test('every corefile example in the README is a valid Corefile and starts nothing when validated', async (t) => {
  const blocks = [...readme.matchAll(/~~~ corefile\n([\s\S]*?)~~~/g)].map((m) => m[1]!);
  assert.ok(blocks.length >= 2);
  // `errors` is not under test here; a stand-in keeps the examples as written.
  const errors = { ...whoami, name: 'errors', setup: (c: Parameters<typeof whoami.setup>[0]) => void c.next() };
  // Setup refuses a kubeconfig that is not there, so the examples' paths point at a real file.
  const kubeconfig = tempFile(t, '', 'kubeconfig');
  for (const contents of blocks) {
    await validateCorefile({ path: 'README', contents: contents.replace(/^(\s*kubeconfig )\S+/gm, `$1${kubeconfig}`) }, { directives: directivesOf(bind, lighthouse, errors) });
  }
});

test('the README lists every metric the plugin registers, and nothing else', async () => {
  const registry = new Registry();
  new LighthouseMetrics(registry, new SourceRegistry());
  const registered = (await registry.getMetricsAsJSON()).map((m) => m.name).sort();
  const listed = [...new Set([...readme.matchAll(/`(coredns_lighthouse_[a-z_]+)/g)].map((m) => m[1]!))].sort();
  assert.deepEqual(listed, registered);
});
