/** Files a plugin under test reads (a hosts file, a weight file, a Corefile for the CLI). */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Writes `contents` to a file called `name` in a fresh temporary directory, removed with the
 * directory after the test; returns the file's path.
 *
 * @example const hosts = tempFile(t, '10.0.0.1 example.org\n', 'hosts');
 */
export function tempFile(t: { after(fn: () => void): void }, contents: string, name = 'file'): string {
  const dir = mkdtempSync(join(tmpdir(), 'foghorn-test-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, name);
  writeFileSync(path, contents);
  return path;
}
