import assert from 'node:assert/strict';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { captureLog, eventually, tempFile } from '@foghorn/testkit';
import { ManifestsDirectory, parseManifests } from '@foghorn/kube';
import type { KubeObject } from '@foghorn/kube';

/** Replaces a file whole, as editors save: a scan never sees it half-written. */
function replaceFile(path: string, text: string): void {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}

const ns = (name: string): string => `apiVersion: v1\nkind: Namespace\nmetadata: {name: ${name}}\n`;

test('parseManifests reads multi-document YAML, Lists and JSON', () => {
  assert.deepEqual(parseManifests(`${ns('a')}---\napiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Namespace, metadata: {name: b}}\n`).map((o) => o.metadata?.name), ['a', 'b']);
  assert.deepEqual(parseManifests('{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"c"}}', true).map((o) => o.metadata?.name), ['c']);
  assert.throws(() => parseManifests('a: [b'));
});

test('ManifestsDirectory hands every object to apply, follows edits, and logs a broken file once per version', async (t) => {
  const dir = dirname(tempFile(t, ns('a'), 'a.yaml'));
  mkdirSync(join(dir, 'sub'));
  writeFileSync(join(dir, 'sub', 'b.json'), '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"b"}}');
  writeFileSync(join(dir, 'notes.txt'), 'not a manifest');
  const log = captureLog();
  let names: (string | undefined)[] = [];
  const files: string[] = [];
  const unreadable: string[] = [];
  const directory = new ManifestsDirectory(dir, (objects: readonly KubeObject[]) => (names = objects.map((o) => o.metadata?.name)), log.logger, {
    debounceMs: 10,
    onFile: (path) => files.push(path),
    onUnreadable: (path) => unreadable.push(path),
  });
  t.after(() => directory.stop());
  await directory.start();
  assert.equal(directory.synced, true);
  assert.deepEqual(names, ['a', 'b']);
  assert.deepEqual(files, [join(dir, 'a.yaml'), join(dir, 'sub', 'b.json')]);
  replaceFile(join(dir, 'a.yaml'), 'a: [b');
  await eventually(() => unreadable.length === 1);
  assert.deepEqual(names, ['a', 'b'], 'the broken file keeps its last good objects');
  replaceFile(join(dir, 'c.yaml'), ns('c'));
  await eventually(() => names.includes('c'));
  assert.equal(log.lines.filter((line) => line.includes('a.yaml')).length, 1, 'logged once, not at every rescan');
  await assert.rejects(new ManifestsDirectory(join(dir, 'missing'), () => undefined, log.logger).start(), /^Error: manifests directory '.*missing': ENOENT/);
});
