import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import type { Controller } from '@foghorn/core';
import { parseDirective, setupTable } from '@foghorn/testkit';
import type { BadCase, GoodCase } from '@foghorn/testkit';
import auto, { expand, parseAuto, rewriteToExpand } from '@foghorn/plugin-auto';

const dir = mkdtempSync(join(tmpdir(), 'foghorn-auto-setup-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

interface Summary {
  origins: readonly string[];
  directory: string;
  pattern: string;
  template: string;
  reloadMs: number;
}

const summarize = (c: Controller): Summary[] => parseAuto(c).map((a) => ({ origins: a.origins, directory: a.directory, pattern: a.pattern.source, template: a.template, reloadMs: a.reloadMs }));
const one = (extra: Partial<Summary> = {}): Summary[] => [{ origins: ['example.org.'], directory: dir, pattern: String.raw`db\.(.*)`, template: '${1}', reloadMs: 60_000, ...extra }];

/** CoreDNS's plugin/auto/setup_test.go (TestAutoParse, TestSetupReload), with positions. */
const good: GoodCase<Summary[]>[] = [
  { input: `auto example.org {\n directory ${dir}\n}`, want: one() },
  { input: `auto 10.0.0.0/24 {\n directory ${dir}\n}`, want: one({ origins: ['0.0.10.in-addr.arpa.'] }) },
  { input: `auto {\n directory ${dir}\n reload 0\n}`, want: one({ reloadMs: 0 }) },
  { input: `auto {\n directory ${dir} (.*) bliep\n}`, want: one({ pattern: '(.*)', template: 'bliep' }) },
  { input: `auto {\n directory ${dir} (.*) bliep\n reload 10s\n}`, want: one({ pattern: '(.*)', template: 'bliep', reloadMs: 10_000 }) },
  { input: `auto example.org {\n directory ${dir}\n upstream 8.8.8.8 1.1.1.1\n}`, want: one() },
  { input: `auto example.org {\n directory ${dir}\n upstream\n}`, want: one() },
  { input: `auto {\n directory ${dir} www\\.db\\.(.*) {1}\n reload 45s\n}`, want: one({ pattern: String.raw`www\.db\.(.*)`, reloadMs: 45_000 }) },
  // A directory that does not exist yet is a warning: its zones appear when it does.
  { input: `auto {\n directory ${join(dir, 'later')}\n}`, want: one({ directory: join(dir, 'later') }) },
];

const bad: BadCase[] = [
  // NO_RELOAD, TIMEOUT and TRANSFER have been deprecated.
  { input: `auto {\n directory ${dir}\n no_reload\n}`, error: "Corefile:4:2 - Error during parsing: unknown property 'no_reload'" },
  { input: `auto {\n directory ${dir} (.*) bliep 10\n}`, error: "Error during parsing: Wrong argument count or unexpected line ending after '10'" },
  { input: `auto {\n directory ${dir}\n transfer to 127.0.0.1\n}`, error: "Corefile:4:2 - Error during parsing: unknown property 'transfer'" },
  // No template, no directory, an illegal REGEXP, one without a group.
  { input: `auto {\n directory ${dir} (.*)\n}`, error: "Error during parsing: Wrong argument count or unexpected line ending after '(.*)'" },
  { input: 'auto example.org {\n directory\n}', error: "Corefile:3:2 - Error during parsing: Wrong argument count or unexpected line ending after 'directory'" },
  { input: `auto example.org {\n directory ${dir} * {1}\n}`, error: 'Error during parsing: error parsing regexp: ' },
  { input: `auto example.org {\n directory ${dir} db {1}\n}`, error: 'Error during parsing: Need at least one sub expression' },
  { input: `auto {\n directory ${dir} ${'a'.repeat(10_001)} {1}\n}`, error: 'Error during parsing: regexp too large' },
  { input: `auto {\n directory ${dir}\n reload -1s\n}`, error: 'Corefile:4:9 - Error during parsing: invalid duration' },
  { input: `auto {\n directory ${dir}\n reload\n}`, error: 'Corefile:4:2 - Error during parsing: reload duration value is expected' },
  { input: `auto {\n directory ${dir}\n reload soon\n}`, error: 'Corefile:4:9 - Error during parsing: time: invalid duration "soon"' },
];

setupTable('auto', summarize, { good, bad, plugin: auto });

test('a relative directory is resolved against the working directory', async () => {
  const [config] = await parseDirective('auto', parseAuto, 'auto {\n directory zones\n}');
  assert.equal(config!.directory, resolve('zones'));
});

test("the origin template follows Go's Regexp.Expand", () => {
  // CoreDNS's regexp_test.go (TestRewriteToExpand).
  assert.equal(rewriteToExpand(''), '');
  assert.equal(rewriteToExpand('{1}'), '${1}');
  assert.equal(rewriteToExpand('{1'), '${1');
  const match = /db\.(?<name>[^.]+)\.(.*)/.exec('db.example.org')!;
  assert.equal(expand('${1}', match), 'example');
  assert.equal(expand('${2}.${1}', match), 'org.example');
  assert.equal(expand('${name}-$2', match), 'example-org');
  assert.equal(expand('$1x', match), '', '$1x names the group "1x", which does not exist');
  assert.equal(expand('${9}', match), '');
  assert.equal(expand('${1', match), '${1', 'a malformed reference stays as text');
  assert.equal(expand('$$1', match), '$1');
});
