/**
 * Third-party plugins loaded by name: the example package installed into a temp directory next
 * to a Corefile, as an operator would, and the errors for broken packages.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { query, rcodeOf } from '@foghorn/testkit';
import { repoRoot, runCli, RunningCli } from './cli-helpers.js';

/**
 * A directory laid out as `npm install foghorn-plugin-hello` leaves it where `@foghorn/core` is
 * not on any registry: the package and nothing else. Its peer `@foghorn/core` must come from the
 * Foghorn that loads it. `edit` changes the installed copy.
 */
function installHello(t: { after(fn: () => void): void }, edit?: (dir: string) => void): string {
  const dir = mkdtempSync(join(tmpdir(), 'foghorn-plugins-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const pluginDir = join(dir, 'node_modules', 'foghorn-plugin-hello');
  cpSync(join(repoRoot, 'examples', 'foghorn-plugin-hello'), pluginDir, { recursive: true, filter: (source) => !source.includes('node_modules') });
  edit?.(pluginDir);
  writeFileSync(join(dir, 'Corefile'), 'example.org:0 {\n    bind 127.0.0.1\n    hello "from npm"\n    whoami\n}\n');
  return dir;
}

function editJson(file: string, change: (json: Record<string, unknown>) => void): void {
  const json = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  change(json);
  writeFileSync(file, JSON.stringify(json));
}

test('a plugin installed next to the Corefile is loaded by name and placed by its order hint', async (t) => {
  const dir = installHello(t);
  const listed = await runCli(['-plugins', '-conf', join(dir, 'Corefile')]);
  const names = listed.stdout.trim().split('\n').map((line) => line.split('\t'));
  const hello = names.findIndex(([name]) => name === 'hello');
  assert.deepEqual(names[hello], ['hello', 'foghorn-plugin-hello', '1.0.0']);
  const forward = names.findIndex(([name]) => name === 'forward');
  assert.equal(forward, hello + 1, 'hello sits just before forward');
  assert.ok(hello < names.findIndex(([name]) => name === 'whoami'));

  assert.equal((await runCli(['-validate', '-conf', join(dir, 'Corefile')])).stdout, 'OK\n');
  const cli = new RunningCli(['-conf', join(dir, 'Corefile')], { cwd: dir });
  t.after(() => cli.kill('SIGKILL'));
  const [, port] = await cli.waitFor(/^example\.org\.:(\d+) on 127\.0\.0\.1$/m);
  const reply = await query({ port: Number(port) }, 'example.org', 'TXT');
  assert.deepEqual(reply.answers?.map((rr) => String((rr as { data?: unknown }).data)), ['from npm']);
  assert.equal(rcodeOf(await query({ port: Number(port) }, 'example.org', 'A')), 'NOERROR', 'other types reach whoami');
});

test("a plugin's own copy of @foghorn/core is never loaded: it runs on the host's", async (t) => {
  const dir = installHello(t, (pluginDir) => {
    // What npm leaves when a plugin's devDependencies or an older core got installed beside it.
    const copy = join(pluginDir, '..', '@foghorn', 'core');
    mkdirSync(copy, { recursive: true });
    writeFileSync(join(copy, 'package.json'), JSON.stringify({ name: '@foghorn/core', version: '0.1.0', type: 'module', exports: './index.js' }));
    writeFileSync(join(copy, 'index.js'), "throw new Error('a second @foghorn/core was loaded');\n");
  });
  const result = await runCli(['-validate', '-conf', join(dir, 'Corefile')]);
  assert.equal(result.stdout, 'OK\n', result.stderr);
});

test('broken plugin packages give a clear error at the place the Corefile uses them', async (t) => {
  const cases: [string, (dir: string) => void, RegExp][] = [
    [
      'wrong API version',
      (dir) => writeFileSync(join(dir, 'index.js'), readFileSync(join(dir, 'index.js'), 'utf8').replace('apiVersion: 1', 'apiVersion: 2')),
      /plugin API version/,
    ],
    [
      'peer range this core does not satisfy',
      (dir) => editJson(join(dir, 'package.json'), (json) => (json['peerDependencies'] = { '@foghorn/core': '^9.0.0' })),
      /needs @foghorn\/core \^9\.0\.0, but this Foghorn has 0\.1\.0/,
    ],
    [
      'no peer dependency on core',
      (dir) => editJson(join(dir, 'package.json'), (json) => delete json['peerDependencies']),
      /must declare @foghorn\/core in peerDependencies/,
    ],
    ['no plugin export', (dir) => writeFileSync(join(dir, 'index.js'), 'export const nothing = 1;\n'), /has no plugin as its default export/],
    ['a syntax error', (dir) => writeFileSync(join(dir, 'index.js'), 'export default {\n'), /failed to load/],
  ];
  for (const [name, edit, message] of cases) {
    const dir = installHello(t, edit);
    const result = await runCli(['-validate', '-conf', join(dir, 'Corefile')]);
    assert.equal(result.code, 1, name);
    assert.match(result.stderr, new RegExp(`Corefile:3:5 - Error during parsing: plugin/hello: plugin package foghorn-plugin-hello`), name);
    assert.match(result.stderr, message, name);
    assert.doesNotMatch(result.stderr, /\n\s+at /, `${name}: no stack trace`);
    const listed = await runCli(['-plugins', '-conf', join(dir, 'Corefile')]);
    const line = listed.stdout.split('\n').find((l) => l.startsWith('hello\t'));
    assert.match(line ?? '', /^hello\tfoghorn-plugin-hello\t1\.0\.0\tfailed to load: plugin package foghorn-plugin-hello/, `${name}: -plugins says it is broken`);
    assert.match(line ?? '', message, name);
  }
});

test('a directive with no installed package is an unknown directive', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'foghorn-plugins-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'Corefile'), '. {\n    hello\n}\n');
  const result = await runCli(['-validate', '-conf', join(dir, 'Corefile')], { cwd: dir });
  assert.equal(result.stderr.trim(), `${join(dir, 'Corefile')}:2:5 - Error during parsing: Unknown directive 'hello'`);
});

test('-plugins-cfg replaces the directive list and its order', async (t) => {
  const dir = installHello(t);
  const cfg = join(dir, 'plugin.cfg');
  writeFileSync(cfg, '# our own chain\nbind:@foghorn/plugin-bind\nwhoami:@foghorn/plugin-whoami\nhello:foghorn-plugin-hello\n');
  const listed = await runCli(['-plugins', '-plugins-cfg', cfg, '-conf', join(dir, 'Corefile')]);
  assert.deepEqual(listed.stdout.trim().split('\n').map((line) => line.split('\t')[0]), ['bind', 'whoami', 'hello']);
  // whoami now comes first and never calls next: hello is never reached.
  const cli = new RunningCli(['-plugins-cfg', cfg, '-conf', join(dir, 'Corefile')], { cwd: dir });
  t.after(() => cli.kill('SIGKILL'));
  const [, port] = await cli.waitFor(/^example\.org\.:(\d+) on 127\.0\.0\.1$/m);
  const reply = await query({ port: Number(port) }, 'example.org', 'TXT');
  assert.equal(reply.answers?.length, 0);
  assert.equal(reply.additionals?.[0]?.type, 'A');

  writeFileSync(cfg, 'bind:@foghorn/plugin-bind\nnope:foghorn-plugin-nope\n');
  const missing = await runCli(['-validate', '-plugins-cfg', cfg, '-conf', join(dir, 'Corefile')]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /plugin\.cfg:2: package foghorn-plugin-nope for directive 'nope' is neither built in nor installed/);
});
