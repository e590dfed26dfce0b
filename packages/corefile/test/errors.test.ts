import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CorefileError, errorAt, formatPosition, substituteEnv, syntaxErrorAt } from '../src/index.js';

const at = { file: 'Corefile', line: 3, column: 5 };

test('errors: formatPosition is FILE:LINE:COLUMN', () => {
  assert.equal(formatPosition(at), 'Corefile:3:5');
});

test('errors: errorAt and syntaxErrorAt use CoreDNS wording with the column added', () => {
  const e = errorAt(at, "Unknown directive 'foo'");
  assert.equal(e.message, "Corefile:3:5 - Error during parsing: Unknown directive 'foo'");
  assert.equal(e.reason, "Error during parsing: Unknown directive 'foo'");
  assert.deepEqual([e.file, e.line, e.column, e.code, e.name], ['Corefile', 3, 5, 'FOGHORN_ERR_CONFIG', 'CorefileError']);
  assert.equal(syntaxErrorAt(at, 'whoami', '}').message, "Corefile:3:5 - Syntax error: Unexpected token 'whoami', expecting '}'");
});

test('errors: instanceof works for errors from another copy of the package, and only for those', async () => {
  // errors.js imports nothing at run time, so a copy of the file is a second copy of the class.
  const dir = mkdtempSync(join(tmpdir(), 'foghorn-corefile-copy-'));
  try {
    const source = fileURLToPath(new URL('../src/errors.js', import.meta.url));
    copyFileSync(source, join(dir, 'errors.js'));
    const other = (await import(pathToFileURL(join(dir, 'errors.js')).href)) as { CorefileError: typeof CorefileError };
    assert.notEqual(other.CorefileError, CorefileError);
    assert.ok(new other.CorefileError('Error during parsing: x', at) instanceof CorefileError);
    assert.ok(errorAt(at, 'x') instanceof other.CorefileError);
    assert.ok(errorAt(at, 'x') instanceof Error);
    assert.ok(!(new Error('x') instanceof CorefileError));
    const nothing: unknown = null;
    assert.ok(!(nothing instanceof CorefileError));
    assert.ok(!({ code: 'FOGHORN_ERR_CONFIG' } instanceof CorefileError));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const env = { A: 'a', B: 'b', EMPTY: '', REF: '{$B}', PCT: '{%B%}', SELF: '{$SELF}', GROW: 'x{$GROW}' };

const substitutions: ReadonlyArray<readonly [string, string]> = [
  ['plain', 'plain'],
  ['{$A}', 'a'],
  ['x{$A}y{$B}z', 'xaybz'],
  ['{%A%}', 'a'],
  ['{$A}{%B%}', 'ab'],
  ['{$UNSET}x', 'x'],
  ['{$EMPTY}', ''],
  ['{$A}{$A}', 'aa'],
  ['{%REF%}', 'b'], // {%..%} first, then {$..} over the result
  ['{$PCT}', '{%B%}'], // but not the other way round
  ['{$}{$A}', '{$}{$A}'], // an empty name stops substitution for the rest of the token
  ['{$A}{$}{$B}', 'a{$}{$B}'],
  ['{%%}{%A%}{$B}', '{%%}{%A%}b'],
  ['{$A', '{$A'],
  ['{A}', '{A}'],
  ['{$constructor}', ''],
  ['{$SELF}', '{$SELF}'], // a value holding its own placeholder cannot hang
];

for (const [input, want] of substitutions) {
  test(`env: substituteEnv('${input}') is '${want}'`, () => {
    assert.equal(substituteEnv(input, env), want);
  });
}

test('env: a self-growing value stops instead of running away', () => {
  assert.ok(substituteEnv('{$GROW}', env).startsWith('xxxx'));
});
