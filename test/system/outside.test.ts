/**
 * A plugin author and an operator outside this repository, with nothing but packed tarballs
 * (the `@foghorn/*` packages are not on a registry): the TypeScript template of docs/plugins.md
 * is copied out of the page, built and tested against the packed core and testkit, and packed;
 * `foghorn` is installed from the tarballs in one directory, the plugin next to a Corefile in
 * another, and the plugin answers through the installed `foghorn`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { query, rcodeOf } from '@foghorn/testkit';
import { repoRoot } from '../cli-helpers.js';

/** The environment of a shell outside this test run (node --test marks its children). */
const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => key !== 'NODE_TEST_CONTEXT'));

function run(command: string, args: readonly string[], cwd: string): string {
  try {
    return execFileSync(command, args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${stdout}\n${stderr}`);
  }
}

const npmFlags = ['--prefer-offline', '--no-audit', '--no-fund'];

/** The files of the template: each fenced block that follows a `<!-- file: PATH -->` line. */
function templateFiles(): Map<string, string> {
  const page = readFileSync(join(repoRoot, 'docs', 'plugins.md'), 'utf8');
  const files = new Map<string, string>();
  for (const match of page.matchAll(/^<!-- file: (\S+) -->\n```\w*\n([\s\S]*?)^```$/gm)) files.set(match[1]!, match[2]!);
  return files;
}

test('a TypeScript plugin built from tarballs outside the repository runs in a packed foghorn', { timeout: 300_000 }, async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'foghorn-outside-'));
  t.after(() => rmSync(work, { recursive: true, force: true }));
  const tarballs = join(work, 'tarballs');
  mkdirSync(tarballs);
  run('npm', ['pack', '--workspaces', '--pack-destination', tarballs], repoRoot);
  const tarball = (name: string): string => {
    const file = readdirSync(tarballs).find((f) => new RegExp(`^${name}-\\d+\\.\\d+\\.\\d+\\.tgz$`).test(f));
    assert.ok(file, `npm pack wrote ${name}`);
    return join(tarballs, file);
  };

  // The author: the template's files, the tarballs the template's devDependencies name.
  const files = templateFiles();
  assert.deepEqual([...files.keys()].sort(), ['package.json', 'src/index.ts', 'test/greet.test.ts', 'tsconfig.json']);
  // The plugin is built against the frozen plugin API alone: core's root entry point, no subpath.
  const coreImports = [...files.get('src/index.ts')!.matchAll(/from '(@foghorn\/core[^']*)'/g)].map((match) => match[1]);
  assert.ok(coreImports.length > 0);
  assert.deepEqual([...new Set(coreImports)], ['@foghorn/core']);
  const author = join(work, 'foghorn-plugin-greet');
  for (const [path, text] of files) {
    mkdirSync(dirname(join(author, path)), { recursive: true });
    writeFileSync(join(author, path), text);
  }
  const foghornTarballs = ['foghorn-core', 'foghorn-corefile', 'foghorn-testkit'].map(tarball);
  run('npm', ['install', ...npmFlags, '--save-dev', ...foghornTarballs], author);
  const tested = run('npm', ['test'], author);
  assert.match(tested, /^# fail 0$/m);
  assert.match(tested, /^# pass [1-9]/m);
  run('npm', ['pack', '--pack-destination', work], author);
  assert.ok(existsSync(join(work, 'foghorn-plugin-greet-1.0.0.tgz')));

  // The operator: foghorn from the tarballs in one place, the plugin next to the Corefile.
  // Each directory is a project of its own: without a package.json npm would install into the
  // nearest ancestor that has one.
  const project = (dir: string): void => {
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: basename(dir), private: true }));
  };
  const opt = join(work, 'opt');
  project(opt);
  const distribution = readdirSync(tarballs).filter((f) => !f.startsWith('foghorn-testkit-')).map((f) => join(tarballs, f));
  run('npm', ['install', ...npmFlags, '--omit=dev', ...distribution], opt);
  const site = join(work, 'site');
  project(site);
  run('npm', ['install', ...npmFlags, join(work, 'foghorn-plugin-greet-1.0.0.tgz')], site);
  assert.equal(existsSync(join(site, 'node_modules', '@foghorn')), false, 'the optional core peer is not installed beside the plugin');
  writeFileSync(join(site, 'Corefile'), 'example.org:0 {\n    bind 127.0.0.1\n    greet "from a tarball"\n    whoami\n}\n');

  const child = spawn(join(opt, 'node_modules', '.bin', 'foghorn'), ['-conf', join(site, 'Corefile')], { cwd: site, env });
  t.after(() => child.kill('SIGKILL'));
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    const collect = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /^example\.org\.:(\d+) on 127\.0\.0\.1$/m.exec(output);
      if (match) resolve(Number(match[1]));
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('exit', (code) => reject(new Error(`foghorn exited ${code}:\n${output}`)));
  });
  const txt = await query({ port }, 'example.org', 'TXT');
  assert.deepEqual(txt.answers?.map((rr) => String((rr as { data?: unknown }).data)), ['from a tarball']);
  assert.equal(rcodeOf(await query({ port }, 'example.org', 'A')), 'NOERROR', 'other types go on to whoami');
  assert.match(run(join(opt, 'node_modules', '.bin', 'foghorn'), ['-plugins', '-conf', join(site, 'Corefile')], site), /^greet\tfoghorn-plugin-greet\t1\.0\.0$/m);
});
