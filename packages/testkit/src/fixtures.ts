/**
 * Test data that is not part of the repository (the shared Corefile corpus beside it) and tools
 * a test needs from the machine (the `openssl` CLI). A test whose fixture is missing fails, naming
 * it: a run never passes a test that checked nothing.
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
 * Fails, naming `what`, when a fixture a test needs is not `present`.
 *
 * @example
 * const corpus = sharedPath('corefile-corpus/valid');
 * test('every corpus Corefile validates', () => { requireFixture(existsSync(corpus), `the corpus at ${corpus}`); ... });
 */
export function requireFixture(present: boolean, what: string): void {
  if (!present) throw new Error(`${what} is missing: this test cannot check anything without it`);
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
