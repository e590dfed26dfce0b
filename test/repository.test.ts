/**
 * The repository's own rules, checked so that a change that breaks one fails here rather than in
 * review: one place for error codes; every package wired into the workspace, the build and the
 * distribution; every plugin package in the same shape.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
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

interface Manifest {
  name: string;
  keywords?: string[];
  exports?: Record<string, unknown>;
  engines?: Record<string, string>;
  dependencies?: Record<string, string>;
  workspaces?: string[];
}

const readJson = <T>(path: string): T => JSON.parse(readFileSync(join(repoRoot, path), 'utf8')) as T;
const packageDirs = readdirSync(join(repoRoot, 'packages'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(repoRoot, 'packages', entry.name, 'package.json')))
  .map((entry) => `packages/${entry.name}`)
  .sort();
const manifest = (dir: string): Manifest => readJson<Manifest>(`${dir}/package.json`);
/** Plugin packages: the ones whose keywords say so. */
const pluginDirs = packageDirs.filter((dir) => manifest(dir).keywords?.includes('foghorn-plugin'));

test('every package is a workspace and a root tsconfig reference', () => {
  assert.ok(pluginDirs.length >= 12, `found the plugin packages: ${pluginDirs.join(', ')}`);
  const workspaces = readJson<Manifest>('package.json').workspaces ?? [];
  const references = readJson<{ references: { path: string }[] }>('tsconfig.json').references.map((ref) => ref.path);
  for (const dir of packageDirs) {
    assert.ok(workspaces.includes(dir), `${dir} is missing from the root package.json workspaces`);
    assert.ok(references.includes(dir), `${dir} is missing from the root tsconfig.json references`);
  }
});

test('every plugin package is a dependency of foghorn and has its place in directives.ts', async () => {
  const { directiveOrder } = await import('foghorn');
  const dependencies = manifest('packages/foghorn').dependencies ?? {};
  const listed = new Map(directiveOrder.map((entry) => [entry.packageName, entry.name]));
  for (const dir of pluginDirs) {
    const { name } = manifest(dir);
    assert.ok(name in dependencies, `${name} is missing from packages/foghorn/package.json dependencies`);
    const directive = listed.get(name);
    assert.ok(directive !== undefined, `${name} has no entry in packages/foghorn/src/directives.ts`);
    const plugin = ((await import(name)) as { default: { name: string } }).default;
    assert.equal(plugin.name, directive, `${name}'s definePlugin name is its directive`);
  }
  const plugins = new Set(pluginDirs.map((dir) => manifest(dir).name));
  for (const packageName of listed.keys()) assert.ok(plugins.has(packageName), `directives.ts lists ${packageName}, which is not a plugin package here`);
});

test('every plugin package has the same files in the same roles', () => {
  // README (CoreDNS's plugin page), the definition (index), parsing and wiring (setup), and the
  // tests of both: README examples and metrics, and the setup table.
  const roles = ['README.md', 'package.json', 'tsconfig.json', 'src/index.ts', 'src/setup.ts', 'test/readme.test.ts', 'test/setup.test.ts'];
  for (const dir of pluginDirs) {
    for (const file of roles) assert.ok(existsSync(join(repoRoot, dir, file)), `${dir}/${file} is missing`);
    const { exports, engines } = manifest(dir);
    assert.ok(exports?.['.'] !== undefined, `${dir}: package.json exports "."`);
    assert.ok(engines?.['node'] !== undefined, `${dir}: package.json has engines.node`);
  }
});

test('every plugin setup module exports setup, and a parser named parse<Directive>', async () => {
  for (const dir of pluginDirs) {
    const module = (await import(pathToFileURL(join(repoRoot, dir, 'dist/src/setup.js')).href)) as Record<string, unknown>;
    assert.equal(typeof module['setup'], 'function', `${dir}/src/setup.ts exports setup(c)`);
    const parsers = Object.keys(module).filter((name) => /^parse[A-Z]/.test(name) && typeof module[name] === 'function');
    const directive = dir.slice('packages/plugin-'.length);
    // A directive with `_` (package `plugin-k8s-external`) is camel-cased: parseK8sExternal.
    const expected = `parse${directive.split('-').map((part) => part[0]!.toUpperCase() + part.slice(1)).join('')}`;
    assert.ok(parsers.includes(expected), `${dir}/src/setup.ts exports ${expected} (has ${parsers.join(', ') || 'none'})`);
  }
});

test("the README's directive table is the shipped directive list, in chain order", async () => {
  const { directiveOrder } = await import('foghorn');
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const table = /<!-- directives:begin -->\n([\s\S]*?)<!-- directives:end -->/.exec(readme)?.[1];
  assert.ok(table !== undefined, 'README.md has no <!-- directives:begin --> ... <!-- directives:end --> table');
  const rows = [...table.matchAll(/^\| \[([a-z0-9_]+)\]\((packages\/[^)]+)\/README\.md\) \| (.+) \|$/gm)].map((m) => ({ name: m[1]!, dir: m[2]!, what: m[3]! }));
  assert.deepEqual(
    rows.map((row) => row.name),
    directiveOrder.map((entry) => entry.name),
    'README.md lists the directives of packages/foghorn/src/directives.ts, in that order (node scripts/readme-directives.mjs rewrites the table)',
  );
  for (const [i, row] of rows.entries()) {
    assert.equal(manifest(row.dir).name, directiveOrder[i]!.packageName, `${row.name} links the README of its package`);
    assert.ok(row.what.trim() !== '', `${row.name} says what it does`);
  }
});

test('`npm start` runs the server with the V8 flags of a serving process (v8-flags.ts)', async () => {
  const { v8Flags } = await import('foghorn');
  const start = readJson<{ scripts: Record<string, string> }>('package.json').scripts['start'] ?? '';
  const flags = /\bnode ((?:--\S+ )*)packages\/foghorn\/dist\/src\/cli\.js\b/.exec(start)?.[1]?.trim().split(' ') ?? [];
  assert.deepEqual(flags, v8Flags, `the start script: ${start}`);
});
