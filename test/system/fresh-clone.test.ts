/**
 * The README's commands on a fresh clone, as a new user runs them: `git clone`, `npm ci`,
 * `npm run build`, then `npx foghorn`, and `npm run pack` as the README writes it. npm links a
 * workspace's bin only if its target exists when it installs, so the command must be linked by
 * `npm ci` alone (a committed bin file that loads dist/), never by a build that happened to run
 * first. `npm pack --pack-destination` does not create its directory, which a fresh clone lacks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../cli-helpers.js';

function run(command: string, args: readonly string[], cwd: string): string {
  return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

test('a fresh clone: npm ci links foghorn, npm run build makes it run', { timeout: 300_000 }, (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'foghorn-clone-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const clone = join(dir, 'foghorn');
  run('git', ['clone', '--quiet', '--no-hardlinks', repoRoot, clone], dir);
  run('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], clone);

  // Linked before any build, and saying what to do rather than failing obscurely.
  const unbuilt = (() => {
    try {
      run('npx', ['--no-install', 'foghorn', '-version'], clone);
      return '';
    } catch (error) {
      return String((error as { stderr?: string }).stderr);
    }
  })();
  assert.match(unbuilt, /not built yet: run `npm run build`/);

  run('npm', ['run', 'build'], clone);
  assert.match(run('npx', ['--no-install', 'foghorn', '-version'], clone), /^Foghorn-\d+\.\d+\.\d+\n/);
  assert.equal(run('npx', ['--no-install', 'foghorn', '-validate', '-conf', 'Corefile.example'], clone), 'OK\n');

  // The pack command, word for word from the README's quick start.
  const pack = /^(npm run pack)\s+#/m.exec(readFileSync(join(clone, 'README.md'), 'utf8'))?.[1];
  assert.equal(pack, 'npm run pack', "the README's quick start names npm run pack");
  run('bash', ['-c', pack], clone);
  const workspaces = (JSON.parse(readFileSync(join(clone, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces;
  const packed = readdirSync(join(clone, 'dist-packages'));
  for (const workspace of workspaces) {
    const { name, version } = JSON.parse(readFileSync(join(clone, workspace, 'package.json'), 'utf8')) as { name: string; version: string };
    assert.ok(packed.includes(`${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`), `${name} packed into dist-packages/: ${packed.join(' ')}`);
  }
});
