/**
 * The repository's own rules, checked so that a change that breaks one fails here rather than in
 * review: one place for error codes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { repoRoot } from './cli-helpers.js';

/** Every `.ts` file under `dir`, skipping build output and dependencies. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name === 'dist') return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

test('every Foghorn error code is defined in core\'s error registry', () => {
  const registry = new Set(['packages/core/src/errors.ts', 'packages/corefile/src/errors.ts']);
  const files = sources(join(repoRoot, 'packages')).filter((file) => file.includes('/src/'));
  assert.ok(files.length > 50, 'the package sources were found');
  const offenders = files.filter((file) => !registry.has(relative(repoRoot, file)) && /['"]FOGHORN_ERR_/.test(readFileSync(file, 'utf8')));
  assert.deepEqual(offenders.map((file) => relative(repoRoot, file)), [], 'define the code in packages/core/src/errors.ts');
});
