/**
 * `@foghorn/core`'s public API does not change unreviewed: the declarations of each entry point
 * (`.`, `./wire`, `./server`) are printed from the build (api-report.ts) and compared with the
 * reports committed in packages/core/api/. A change to the root entry breaks every plugin
 * published against `^1`; one to `./wire` those that pin core's minor version.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
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
