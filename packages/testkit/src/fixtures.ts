/**
 * Test data that is not part of the repository (the shared Corefile corpus beside it) and tools
 * a test needs from the machine (the `openssl` CLI). A test whose fixture is missing is skipped,
 * visibly, with the reason; with `CI=true` it is an error instead, so CI never passes a test that
 * checked nothing.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: the nearest directory above this package with a `workspaces` package.json. */
export function repositoryRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && 'workspaces' in (JSON.parse(readFileSync(manifest, 'utf8')) as object)) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('no repository root (a package.json with workspaces) above @foghorn/testkit');
    dir = parent;
  }
}

/** `../shared/<relative>` beside the repository root: test data kept outside the repository. */
export function sharedPath(relative: string): string {
  return join(repositoryRoot(), '..', 'shared', relative);
}

/**
 * The `skip` option for a test that needs `what`: false when `present`, else the reason. With
 * `CI=true` a missing fixture throws (the test file fails, naming what is missing).
 *
 * @example
 * const corpus = sharedPath('corefile-corpus/valid');
 * test('every corpus Corefile validates', { skip: missingFixture(existsSync(corpus), `the corpus at ${corpus}`) }, ...);
 */
export function missingFixture(present: boolean, what: string): string | false {
  if (present) return false;
  if (process.env['CI'] === 'true') throw new Error(`${what} is missing, and CI=true: a CI run must not skip this test`);
  return `${what} is missing`;
}

/** Whether a command-line tool runs (`openssl version`). */
export function hasTool(command: string, args: readonly string[] = ['version']): boolean {
  try {
    execFileSync(command, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
