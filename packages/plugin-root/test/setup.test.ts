import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { setupTable } from '@foghorn/testkit';
import root, { parseRoot } from '../src/index.js';

// CoreDNS's plugin/root/root_test.go: an existing directory, one that does not exist yet (a
// warning), no path, a path that cannot be checked, and a block instead of a path.
const dir = mkdtempSync(join(tmpdir(), 'foghorn-root-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const missing = join(dir, 'highly_unlikely_to_exist_dir');
const file = join(dir, 'a-file');
writeFileSync(file, '');
// A path under a regular file cannot be checked: stat says "not a directory" (CoreDNS's test uses
// a NUL byte, which the Corefile lexer cannot carry).
const inaccessible = join(file, 'below');
const argError = (line: number, column: number, after: string): string => `Corefile:${line}:${column} - Error during parsing: Wrong argument count or unexpected line ending after '${after}'`;

setupTable('root', parseRoot, {
  plugin: root,
  good: [
    { input: `root ${missing}`, want: missing },
    { input: `root ${dir}`, want: dir },
    { input: `root ${missing}\nroot ${dir}`, want: dir },
    { input: 'root zones', want: 'zones' },
  ],
  bad: [
    { input: 'root', error: argError(2, 1, 'root') },
    { input: `root ${inaccessible}`, error: `Corefile:2:6 - Error during parsing: unable to access root path '${inaccessible}': stat ${inaccessible}: not a directory` },
    { input: `root {\n ${dir}\n}`, error: "Corefile:2:6 - Error during parsing: Unexpected token '{', expecting argument" },
    { input: `root ${dir} ${missing}`, error: argError(2, 7 + dir.length, missing) },
  ],
});
