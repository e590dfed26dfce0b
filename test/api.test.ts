/**
 * `@foghorn/core`'s public API does not change unreviewed: the declarations of each entry point
 * (`.`, `./wire`, `./server`) are printed from the build (api-report.ts) and compared with the
 * reports committed in packages/core/api/. A change to the root entry breaks every plugin
 * published against `^1`; one to `./wire` those that pin core's minor version.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { apiDir, apiEntries, apiReports } from './api-report.js';
import { repoRoot } from './cli-helpers.js';

test('the declarations of every @foghorn/core entry point match the committed API reports', () => {
  const reports = apiReports();
  for (const entry of apiEntries) {
    const file = join(apiDir, entry.report);
    const committed = existsSync(file) ? readFileSync(file, 'utf8') : '';
    const built = reports.get(entry.report)!;
    if (built === committed) continue;
    const lines = { built: built.split('\n'), committed: committed.split('\n') };
    const at = lines.built.findIndex((line, i) => line !== lines.committed[i]);
    const context = (side: string[]): string => side.slice(Math.max(0, at - 2), at + 6).map((line) => `    ${line}`).join('\n');
    assert.fail(
      `the public API of @foghorn/core${entry.subpath.slice(1)} changed (line ${at + 1} of ${relative(repoRoot, file)}).\n` +
        `  committed:\n${context(lines.committed)}\n  built:\n${context(lines.built)}\n` +
        `If the change is meant (and, for the root entry, fit for plugins published against ^1), run\n` +
        `  npm run api:update\nand commit the updated report with the change.`,
    );
  }
});

test('the root entry point exports what a plugin needs and none of the server', () => {
  const root = readFileSync(join(apiDir, 'core.api.md'), 'utf8');
  for (const name of ['definePlugin', 'Controller', 'defineCapability', 'ReadinessProbes', 'Request', 'ResponseWriter', 'PluginError', 'zonesFromArgs', 'TYPE_A']) {
    assert.match(root, new RegExp(`^// ${name}: `, 'm'), `${name} is in the plugin API`);
  }
  for (const name of ['Server', 'buildInstance', 'RouteTable', 'dispatch', 'readQuery', 'writeReplyHead', 'compressReply', 'sharedHandles', 'descriptorLimit']) {
    assert.doesNotMatch(root, new RegExp(`^// ${name}: `, 'm'), `${name} is not in the plugin API`);
  }
});

/** The names in the first column of the `<!-- api: ENTRY -->` table of a page. */
function documentedNames(page: string, entry: string): string[] {
  const text = readFileSync(join(repoRoot, page), 'utf8');
  const start = text.indexOf(`<!-- api: ${entry} -->`);
  assert.ok(start >= 0, `${page} has an api: ${entry} table`);
  const table = text.slice(start, text.indexOf('<!-- /api -->', start));
  return table
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) => [...line.split('|')[1]!.matchAll(/`(\w+)`/g)].map((match) => match[1]!));
}

/** The names an entry point's committed report declares. */
function exportedNames(report: string): string[] {
  const text = readFileSync(join(apiDir, report), 'utf8');
  return [...text.slice(0, text.indexOf('\n```\n')).matchAll(/^\/\/ (\w+)(?: \(declared as \w+\))?: /gm)].map((match) => match[1]!);
}

test('docs/plugins.md and core\'s README list exactly what each entry point exports', () => {
  const pages: [string, string, string][] = [
    ['docs/plugins.md', 'root', 'core.api.md'],
    ['packages/core/README.md', 'root', 'core.api.md'],
    ['packages/core/README.md', 'wire', 'core-wire.api.md'],
    ['packages/core/README.md', 'server', 'core-server.api.md'],
  ];
  for (const [page, entry, report] of pages) {
    const documented = documentedNames(page, entry);
    const exported = exportedNames(report);
    assert.deepEqual(documented.filter((name) => !exported.includes(name)), [], `${page} documents names the ${entry} entry does not export`);
    assert.deepEqual(exported.filter((name) => !documented.includes(name)), [], `${page} leaves out names the ${entry} entry exports`);
    assert.equal(new Set(documented).size, documented.length, `${page} lists each name of the ${entry} entry once`);
  }
});

test('plugins and libraries import core\'s root or ./wire; only the CLI and testkit import ./server', () => {
  const packages = join(repoRoot, 'packages');
  const offenders: string[] = [];
  for (const name of readdirSync(packages)) {
    const src = join(packages, name, 'src');
    if (name === 'core' || !existsSync(src)) continue;
    for (const file of readdirSync(src, { recursive: true }) as string[]) {
      if (!file.endsWith('.ts')) continue;
      for (const match of readFileSync(join(src, file), 'utf8').matchAll(/from '(@foghorn\/core\/[^']*)'/g)) {
        const subpath = match[1]!;
        const allowed = subpath === '@foghorn/core/wire' || (subpath === '@foghorn/core/server' && (name === 'foghorn' || name === 'testkit'));
        if (!allowed) offenders.push(`packages/${name}/src/${file}: ${subpath}`);
      }
    }
  }
  assert.deepEqual(offenders, []);
});
