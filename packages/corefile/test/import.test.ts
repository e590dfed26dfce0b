import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CorefileError, parseCorefile, type ParseOptions, type ServerBlock } from '../src/index.js';

let root = '';

/** Writes `files` (path relative to the temp dir → content) and returns the absolute path of the first. */
function write(files: Record<string, string>): string {
  for (const [name, content] of Object.entries(files)) {
    const path = join(root, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  }
  return join(root, Object.keys(files)[0] ?? '');
}

function parseFile(file: string, text: string, options: Omit<ParseOptions, 'file'> = {}): ServerBlock[] {
  return parseCorefile(text, { ...options, file });
}

function shape(blocks: readonly ServerBlock[]): Array<[string[], string[][]]> {
  return blocks.map((b) => [b.keys.map((k) => k.text), b.directives.map((d) => d.tokens.map((t) => t.text))]);
}

function throwsAt(fn: () => unknown, message: string): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof CorefileError, String(error));
    assert.equal(error.message, message);
    return true;
  });
}

before(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'foghorn-corefile-')));
});

after(() => {
  rmSync(root, { recursive: true, force: true });
});

test('import: a file is spliced in where the import stands', () => {
  const main = join(root, 'splice', 'Corefile');
  write({ 'splice/common.conf': 'log\nerrors\n' });
  const blocks = parseFile(main, '. {\n whoami\n import common.conf\n cache\n}');
  assert.deepEqual(shape(blocks), [[['.'], [['whoami'], ['log'], ['errors'], ['cache']]]]);
});

test('import: imported tokens carry the absolute path of their file, main tokens the name as given', () => {
  write({ 'pos/inc.conf': '\n  log a\n' });
  const [block] = parseCorefile('. {\n import inc.conf\n}', { file: join(root, 'pos', 'Corefile') });
  assert.deepEqual(block?.directives[0]?.tokens[1], { text: 'a', file: join(root, 'pos', 'inc.conf'), line: 2, column: 7, newlines: 0 });
  assert.equal(block?.keys[0]?.file, join(root, 'pos', 'Corefile'));
});

test('import: paths are relative to the file holding the import, not the working directory', () => {
  write({
    'rel/sub/a.conf': 'import b.conf\nlog a\n',
    'rel/sub/b.conf': 'log b\n',
    'rel/b.conf': 'log WRONG\n',
  });
  const blocks = parseFile(join(root, 'rel', 'Corefile'), '. {\n import sub/a.conf\n}');
  assert.deepEqual(shape(blocks), [[['.'], [['log', 'b'], ['log', 'a']]]]);
});

test('import: whole server blocks at the top level', () => {
  write({ 'top/servers/a.server': 'a.org {\n whoami\n}\n', 'top/servers/b.server': 'b.org {\n log\n}\n' });
  const blocks = parseFile(join(root, 'top', 'Corefile'), 'import servers/*.server\n. {\n errors\n}');
  assert.deepEqual(shape(blocks), [[['a.org'], [['whoami']]], [['b.org'], [['log']]], [['.'], [['errors']]]]);
});

test('import: a glob imports its matches in sorted order', () => {
  write({ 'glob/d/b.conf': 'log b', 'glob/d/a.conf': 'log a', 'glob/d/c.txt': 'log c', 'glob/d/.h.conf': 'log h' });
  const blocks = parseFile(join(root, 'glob', 'Corefile'), '. {\n import d/*.conf\n}');
  assert.deepEqual(shape(blocks), [[['.'], [['log', 'h'], ['log', 'a'], ['log', 'b']]]]);
  const one = parseFile(join(root, 'glob', 'Corefile'), '. {\n import d/?.conf\n}');
  assert.deepEqual(shape(one), [[['.'], [['log', 'a'], ['log', 'b']]]]);
});

test('import: a glob in a directory component', () => {
  write({ 'dirglob/x1/f.conf': 'log 1', 'dirglob/x2/f.conf': 'log 2' });
  const blocks = parseFile(join(root, 'dirglob', 'Corefile'), '. {\n import x*/f.conf\n}');
  assert.deepEqual(shape(blocks), [[['.'], [['log', '1'], ['log', '2']]]]);
});

test('import: an absolute path and an env placeholder in the argument', () => {
  const inc = write({ 'abs/inc.conf': 'log abs' });
  assert.deepEqual(shape(parseFile('Corefile', `. {\n import ${inc}\n}`)), [[['.'], [['log', 'abs']]]]);
  const viaEnv = parseFile('Corefile', '. {\n import {$DIR}/inc.conf\n}', { env: { DIR: join(root, 'abs') } });
  assert.deepEqual(shape(viaEnv), [[['.'], [['log', 'abs']]]]);
});

test('import: at the start of a line in a nested block', () => {
  write({ 'nested/opts.conf': 'class denial\n' });
  const blocks = parseFile(join(root, 'nested', 'Corefile'), '. {\n log {\n  import opts.conf\n }\n}');
  assert.deepEqual(shape(blocks), [[['.'], [['log', '{', 'class', 'denial', '}']]]]);
});

test('import: empty files and BOMs in imported files are fine', () => {
  write({ 'bom/empty.conf': '', 'bom/bom.conf': '\uFEFFlog bom\n' });
  const blocks = parseFile(join(root, 'bom', 'Corefile'), '. {\n import empty.conf\n import bom.conf\n}');
  assert.deepEqual(shape(blocks), [[['.'], [['log', 'bom']]]]);
  assert.equal(blocks[0]?.directives[0]?.tokens[0]?.column, 1);
});

test('import: the same file may be imported twice', () => {
  write({ 'twice/x.conf': 'log' });
  const blocks = parseFile(join(root, 'twice', 'Corefile'), 'a {\n import x.conf\n}\nb {\n import x.conf\n import x.conf\n}');
  assert.deepEqual(shape(blocks), [[['a'], [['log']]], [['b'], [['log'], ['log']]]]);
});

test('import: snippets defined in one file are usable in files imported later', () => {
  write({ 'snip/use.conf': 'a.org {\n import common\n}\n' });
  const blocks = parseFile(join(root, 'snip', 'Corefile'), '(common) {\n  log\n}\nimport use.conf');
  assert.deepEqual(shape(blocks), [[['a.org'], [['log']]]]);
  // Snippet tokens keep the place they were defined.
  assert.deepEqual(blocks[0]?.directives[0]?.tokens[0], { text: 'log', file: join(root, 'snip', 'Corefile'), line: 2, column: 3, newlines: 0 });
});

test('import: a snippet takes precedence over a file of the same name', () => {
  write({ 'prec/common': 'log file\n' });
  const blocks = parseFile(join(root, 'prec', 'Corefile'), '(common) {\n log snippet\n}\n. {\n import common\n}');
  assert.deepEqual(shape(blocks), [[['.'], [['log', 'snippet']]]]);
});

test('import: a snippet redeclared in an imported file', () => {
  write({ 'redecl/more.conf': '(s) {\n}\n' });
  throwsAt(
    () => parseFile(join(root, 'redecl', 'Corefile'), '(s) {\n}\nimport more.conf'),
    `${join(root, 'redecl', 'more.conf')}:1:5 - Error during parsing: redeclaration of previously declared snippet s`,
  );
});

test('import: an empty glob only warns', () => {
  const warnings: string[] = [];
  const blocks = parseFile(join(root, 'Corefile'), '. {\n import nothing/*.conf\n whoami\n}', { warn: (m) => warnings.push(m) });
  assert.deepEqual(shape(blocks), [[['.'], [['whoami']]]]);
  assert.deepEqual(warnings, ['No files matching import glob pattern: nothing/*.conf']);
});

test('import: an empty glob as the last thing in a block', () => {
  const blocks = parseFile(join(root, 'Corefile'), 'import none*\n. {\n import none*\n}\nimport none*', { warn: () => {} });
  assert.deepEqual(shape(blocks), [[['.'], []]]);
});

test('import: a missing file is an error', () => {
  throwsAt(
    () => parseFile(join(root, 'Corefile'), '. {\n import missing.conf\n}'),
    `${join(root, 'Corefile')}:2:9 - Error during parsing: File to import not found: missing.conf`,
  );
});

test('import: a directory is an error', () => {
  write({ 'isdir/sub/x.conf': '' });
  throwsAt(
    () => parseFile(join(root, 'isdir', 'Corefile'), '. {\n import sub\n}'),
    `${join(root, 'isdir', 'Corefile')}:2:9 - Error during parsing: Could not import ${join(root, 'isdir', 'sub')}: is a directory`,
  );
});

test('import: a dangling symlink cannot be opened', () => {
  mkdirSync(join(root, 'dangling'), { recursive: true });
  symlinkSync(join(root, 'dangling', 'gone'), join(root, 'dangling', 'link.conf'));
  const link = join(root, 'dangling', 'link.conf');
  throwsAt(
    () => parseFile(join(root, 'dangling', 'Corefile'), 'import link.conf'),
    `${join(root, 'dangling', 'Corefile')}:1:8 - Error during parsing: Could not import ${link}: open ${link}: no such file or directory`,
  );
});

test('import: glob patterns may hold at most one * and one ?, and not [ ] together', () => {
  const main = join(root, 'Corefile');
  for (const pattern of ['a*/*.conf', 'a?b?.conf', 'a[bc].conf']) {
    throwsAt(
      () => parseFile(main, `import ${pattern}`),
      `${main}:1:8 - Error during parsing: Glob pattern may only contain one wildcard (*), but has others: ${join(root, pattern)}`,
    );
  }
  throwsAt(() => parseFile(main, 'import a[b.conf'), `${main}:1:8 - Error during parsing: Failed to use import pattern a[b.conf: syntax error in pattern`);
});

test('import: errors inside an imported file name that file', () => {
  write({ 'errfile/bad.conf': '\n\n   nope\n' });
  throwsAt(
    () => parseFile(join(root, 'errfile', 'Corefile'), '. {\n import bad.conf\n}', { isDirective: (n) => n !== 'nope' }),
    `${join(root, 'errfile', 'bad.conf')}:3:4 - Error during parsing: Unknown directive 'nope'`,
  );
});

test('import: a file importing itself is a cycle', () => {
  const self = write({ 'cycle1/self.conf': 'log\nimport self.conf\n' });
  throwsAt(
    () => parseFile(join(root, 'cycle1', 'Corefile'), '. {\n import self.conf\n}'),
    `${self}:2:8 - Error during parsing: Import cycle detected: ${join(root, 'cycle1', 'Corefile')} -> ${self} -> ${self}`,
  );
});

test('import: a cycle through several files names the chain', () => {
  const a = write({ 'cycle2/a.conf': 'import b.conf\n', 'cycle2/b.conf': 'import Corefile\n', 'cycle2/Corefile': 'import a.conf\n' });
  const b = join(root, 'cycle2', 'b.conf');
  const main = join(root, 'cycle2', 'Corefile');
  throwsAt(
    () => parseFile(main, 'import a.conf\n'),
    `${b}:1:8 - Error during parsing: Import cycle detected: ${main} -> ${a} -> ${b} -> ${main}`,
  );
});

test('import: a glob that matches the importing file is a cycle', () => {
  const x = write({ 'cycle3/x.conf': 'log\nimport *.conf\n' });
  assert.throws(() => parseFile(join(root, 'cycle3', 'Corefile'), '. {\n import x.conf\n}'), {
    message: new RegExp(`^${x}:2:8 - Error during parsing: Import cycle detected: `),
  });
});

test('import: a cycle through a snippet is caught', () => {
  write({ 'cycle4/b.conf': 'import s\n' });
  assert.throws(() => parseFile(join(root, 'cycle4', 'Corefile'), '(s) {\n import b.conf\n}\n. {\n import s\n}'), {
    message: /Import cycle detected: .*b\.conf -> .*b\.conf$/,
  });
});

/** A tree of files: each level imports the next one `fanout` times; the last level is empty. */
function importTree(dir: string, levels: number, fanout: number): string {
  const files: Record<string, string> = {};
  for (let level = 0; level < levels; level++) {
    files[`${dir}/l${level}.conf`] = `import l${level + 1}.conf\n`.repeat(fanout);
  }
  files[`${dir}/l${levels}.conf`] = '';
  write(files);
  return join(root, dir, 'Corefile');
}

test('import: 100000 file imports per parse are allowed (11110 here)', () => {
  const main = importTree('limit-ok', 3, 10);
  assert.deepEqual(shape(parseFile(main, '. {\n' + ' import l0.conf\n'.repeat(10) + '}')), [[['.'], []]]);
});

test('import: more than 100000 file imports fail with CoreDNS message (which says 10000)', () => {
  const main = importTree('limit-bad', 4, 10);
  assert.throws(() => parseFile(main, '. {\n' + ' import l0.conf\n'.repeat(10) + '}'), {
    message: /^\/.*\.conf:\d+:8 - Error during parsing: maximum file import depth \(10000\) exceeded$/,
  });
});
