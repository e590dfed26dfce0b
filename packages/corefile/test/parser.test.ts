import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CorefileError, parseCorefile, type ParseOptions, type ServerBlock } from '../src/index.js';

/** A block as keys plus each directive occurrence's token texts. */
type Shape = [keys: string[], directives: string[][]];

function shape(blocks: readonly ServerBlock[]): Shape[] {
  return blocks.map((b): Shape => [b.keys.map((k) => k.text), b.directives.map((d) => d.tokens.map((t) => t.text))]);
}

const structure: ReadonlyArray<{ name: string; input: string; want: Shape[]; env?: Record<string, string> }> = [
  { name: 'a braced block', input: '. {\n  whoami\n}\n', want: [[['.'], [['whoami']]]] },
  { name: 'a brace-less single block runs to EOF', input: 'example.org\nwhoami\nlog\n', want: [[['example.org'], [['whoami'], ['log']]]] },
  { name: 'the { may be on the next line', input: 'example.org\n{\n  whoami\n}', want: [[['example.org'], [['whoami']]]] },
  { name: 'several keys on one line', input: 'a.org b.org:1053 {\n whoami\n}', want: [[['a.org', 'b.org:1053'], [['whoami']]]] },
  { name: 'a trailing comma continues the keys on the next line', input: 'a.org,\n  b.org, c.org {\n whoami\n}', want: [[['a.org', 'b.org', 'c.org'], [['whoami']]]] },
  { name: 'a key that is only a comma stays as an empty key (CoreDNS quirk)', input: 'a , b {\n whoami\n}', want: [[['a', '', 'b'], [['whoami']]]] },
  { name: 'empty keys are skipped', input: '"" a.org {\n whoami\n}', want: [[['a.org'], [['whoami']]]] },
  { name: 'a block whose keys are all empty is dropped', input: '"" {\n whoami\n}\nb.org {\n log\n}', want: [[['b.org'], [['log']]]] },
  { name: 'a Corefile of only a key line is one block without directives', input: 'example.org', want: [[['example.org'], []]] },
  { name: 'an empty block', input: 'a.org {\n}', want: [[['a.org'], []]] },
  { name: 'several blocks', input: 'a {\n whoami\n}\nb {\n log\n errors\n}', want: [[['a'], [['whoami']]], [['b'], [['log'], ['errors']]]] },
  { name: 'a block may start on the line of the previous }', input: 'a {\n whoami\n} b {\n log\n}', want: [[['a'], [['whoami']]], [['b'], [['log']]]] },
  { name: 'a bare } ends a brace-less block', input: 'a\nwhoami\n}\nb {\n log\n}', want: [[['a'], [['whoami']]], [['b'], [['log']]]] },
  { name: 'arguments stay with their directive', input: '. {\n forward . 1.1.1.1 8.8.8.8\n}', want: [[['.'], [['forward', '.', '1.1.1.1', '8.8.8.8']]]] },
  { name: 'a nested block is collected through its }', input: '. {\n log {\n  class denial\n }\n whoami\n}', want: [[['.'], [['log', '{', 'class', 'denial', '}'], ['whoami']]]] },
  { name: 'nested blocks at any depth', input: '. {\n a {\n  b {\n   c {\n   }\n  }\n }\n}', want: [[['.'], [['a', '{', 'b', '{', 'c', '{', '}', '}', '}']]]] },
  { name: 'a { on the line after a directive joins it', input: '. {\n forward . 1.1.1.1\n {\n  max_fails 3\n }\n}', want: [[['.'], [['forward', '.', '1.1.1.1', '{', 'max_fails', '3', '}']]]] },
  { name: 'a directive may repeat', input: '. {\n log\n whoami\n log a\n}', want: [[['.'], [['log'], ['whoami'], ['log', 'a']]]] },
  { name: '{ glued to a key is part of the key (then brace-less)', input: 'example.org{\n whoami\n}', want: [[['example.org{'], [['whoami']]]] },
  { name: 'a quoted "{" is a brace all the same', input: 'a "{"\n whoami\n"}"', want: [[['a'], [['whoami']]]] },
  { name: 'a missing outer } hides behind a nested } (CoreDNS quirk)', input: '. {\n log {\n  class denial\n }', want: [[['.'], [['log', '{', 'class', 'denial', '}']]]] },
  { name: 'a quoted argument spanning lines keeps later tokens on its line', input: '. {\n log "a\nb" c\n whoami\n}', want: [[['.'], [['log', 'a\nb', 'c'], ['whoami']]]] },
  { name: 'comments are ignored everywhere', input: '# head\n. { # open\n whoami # me\n # alone\n} # end', want: [[['.'], [['whoami']]]] },
  { name: 'empty input has no blocks', input: '', want: [] },
  { name: 'only comments has no blocks', input: '# nothing\n', want: [] },
  { name: 'only snippets has no blocks', input: '(s) {\n whoami\n}\n', want: [] },
  { name: 'a snippet is inserted where it is imported', input: '(s) {\n log\n errors\n}\n. {\n import s\n whoami\n}', want: [[['.'], [['log'], ['errors'], ['whoami']]]] },
  { name: 'a snippet may be imported several times', input: '(s) {\n log\n}\na {\n import s\n}\nb {\n import s\n}', want: [[['a'], [['log']]], [['b'], [['log']]]] },
  { name: 'a snippet may hold whole server blocks for top-level import', input: '(s) {\n a {\n  whoami\n }\n}\nimport s\nb {\n log\n}', want: [[['a'], [['whoami']]], [['b'], [['log']]]] },
  { name: 'import at the start of a line in a nested block', input: '(opts) {\n class denial\n}\n. {\n log {\n  import opts\n }\n}', want: [[['.'], [['log', '{', 'class', 'denial', '}']]]] },
  { name: 'import in the middle of a line is an argument', input: '. {\n log import x\n}', want: [[['.'], [['log', 'import', 'x']]]] },
  { name: 'a quoted "import" imports', input: '(s) {\n log\n}\n. {\n "import" s\n}', want: [[['.'], [['log']]]] },
  { name: 'a snippet imports another defined before it', input: '(a) {\n log\n}\n(b) {\n import a\n whoami\n}\n. {\n import b\n}', want: [[['.'], [['log'], ['whoami']]]] },
  { name: 'a lone } at the top level is a key (CoreDNS quirk)', input: '}', want: [[['}'], []]] },
  { name: 'a key line "(s)" alone at EOF is a server block (CoreDNS quirk)', input: '(s)', want: [[['(s)'], []]] },
  { name: 'a parenthesised key among others is not a snippet', input: '(s) a {\n whoami\n}', want: [[['(s)', 'a'], [['whoami']]]] },
  { name: 'keys are substituted', input: '.:{$PORT} {\n whoami\n}', env: { PORT: '1053' }, want: [[['.:1053'], [['whoami']]]] },
  { name: 'a key that expands to nothing is skipped', input: '{$NOPE} a.org {\n whoami\n}', env: {}, want: [[['a.org'], [['whoami']]]] },
  { name: 'directive names and arguments are substituted', input: '. {\n {$D} {$A} x{%B%}y\n}', env: { D: 'log', A: 'a', B: 'b' }, want: [[['.'], [['log', 'a', 'xby']]]] },
  { name: 'a value with spaces stays one token', input: '. {\n forward . {$FWD}\n}', env: { FWD: '1.1.1.1 8.8.8.8' }, want: [[['.'], [['forward', '.', '1.1.1.1 8.8.8.8']]]] },
  { name: 'nested tokens are substituted', input: '. {\n log {\n  class {$C}\n }\n}', env: { C: 'denial' }, want: [[['.'], [['log', '{', 'class', 'denial', '}']]]] },
  { name: 'snippet names are substituted', input: '({$N}) {\n log\n}\n. {\n import {$N}\n}', env: { N: 'snip' }, want: [[['.'], [['log']]]] },
  { name: 'snippet tokens are substituted when used', input: '(s) {\n log {$X}\n}\n. {\n import s\n}', env: { X: 'used' }, want: [[['.'], [['log', 'used']]]] },
  { name: 'an import key from the environment imports at top level', input: '(s) {\n a {\n  whoami\n }\n}\n{$I} s', env: { I: 'import' }, want: [[['a'], [['whoami']]]] },
];

for (const c of structure) {
  test(`parser: ${c.name}`, () => {
    const options: ParseOptions = c.env === undefined ? {} : { env: c.env };
    assert.deepEqual(shape(parseCorefile(c.input, options)), c.want);
  });
}

test('parser: tokens carry file, line, column and newlines', () => {
  const [block] = parseCorefile('a.org,\n  b.org {\n\tforward . "x\ny" z\n}\n', { file: '/etc/coredns/Corefile' });
  assert.deepEqual(block?.keys, [
    { text: 'a.org', file: '/etc/coredns/Corefile', line: 1, column: 1, newlines: 0 },
    { text: 'b.org', file: '/etc/coredns/Corefile', line: 2, column: 3, newlines: 0 },
  ]);
  assert.deepEqual(block?.directives[0], {
    name: 'forward',
    tokens: [
      { text: 'forward', file: '/etc/coredns/Corefile', line: 3, column: 2, newlines: 0 },
      { text: '.', file: '/etc/coredns/Corefile', line: 3, column: 10, newlines: 0 },
      { text: 'x\ny', file: '/etc/coredns/Corefile', line: 3, column: 12, newlines: 1 },
      { text: 'z', file: '/etc/coredns/Corefile', line: 4, column: 4, newlines: 0 },
    ],
  });
});

test('parser: snippet tokens keep the position of their definition', () => {
  const [block] = parseCorefile('(s) {\n  log\n}\n. {\n import s\n}');
  assert.deepEqual(block?.directives[0]?.tokens[0], { text: 'log', file: 'Corefile', line: 2, column: 3, newlines: 0 });
});

test('parser: the default file name is Corefile and the default env is process.env', () => {
  process.env['FOGHORN_COREFILE_TEST'] = 'fromenv';
  try {
    const [block] = parseCorefile('{$FOGHORN_COREFILE_TEST} {\n whoami\n}');
    assert.equal(block?.keys[0]?.text, 'fromenv');
    assert.equal(block?.keys[0]?.file, 'Corefile');
  } finally {
    delete process.env['FOGHORN_COREFILE_TEST'];
  }
});

test('parser: isDirective sees every substituted directive name, never import or nested tokens', () => {
  const seen: string[] = [];
  parseCorefile('(s) {\n errors\n}\n. {\n import s\n {$D} {\n  class denial\n }\n whoami\n}', {
    env: { D: 'log' },
    isDirective: (name) => {
      seen.push(name);
      return true;
    },
  });
  assert.deepEqual(seen, ['errors', 'log', 'whoami']);
});

test('parser: a snippet body is not parsed until used', () => {
  assert.deepEqual(parseCorefile('(s) {\n bogus {\n  . {\n  }\n }\n}\n', { isDirective: () => false }), []);
});

test('parser: directive matching is case-sensitive', () => {
  assert.throws(() => parseCorefile('. {\n Log\n}', { isDirective: (n) => n === 'log' }), {
    message: "Corefile:2:2 - Error during parsing: Unknown directive 'Log'",
  });
});

test('parser: an unknown directive close to a known one gets a hint, a distant one none', () => {
  const directiveNames = ['whoami', 'log', 'errors', 'forward', 'loop', 'loadbalance'];
  const options = { isDirective: (n: string) => directiveNames.includes(n), directiveNames };
  const hints: ReadonlyArray<[string, string]> = [
    ['forwrd', " (did you mean 'forward'?)"],
    ['frowad', " (did you mean 'forward'?)"],
    ['lgo', " (did you mean 'log'?)"],
    ['loadbalancer', " (did you mean 'loadbalance'?)"],
    ['kubernetes', ''],
    ['x', ''],
  ];
  for (const [name, hint] of hints) {
    assert.throws(() => parseCorefile(`. {\n ${name}\n}`, options), {
      message: `Corefile:2:2 - Error during parsing: Unknown directive '${name}'${hint}`,
    });
  }
});

const errors: ReadonlyArray<{ name: string; input: string; message: string; env?: Record<string, string> }> = [
  { name: 'unknown directive', input: '. {\n whoami\n foo bar\n}', message: "Corefile:3:2 - Error during parsing: Unknown directive 'foo'" },
  { name: 'unknown directive from the environment', input: '. {\n {$X}\n}', env: { X: 'nope' }, message: "Corefile:2:2 - Error during parsing: Unknown directive 'nope'" },
  { name: 'a block on one line', input: '. { whoami }', message: "Corefile:1:12 - Error during parsing: Unexpected '}' because no matching opening brace" },
  { name: 'missing final }', input: '. {\n    whoami\n', message: "Corefile:2:5 - Syntax error: Unexpected token 'whoami', expecting '}' (the block opened at Corefile:1:3 is never closed)" },
  { name: 'missing final } after an argument', input: '. {\n whoami\n log a b', message: "Corefile:3:8 - Syntax error: Unexpected token 'b', expecting '}' (the block opened at Corefile:1:3 is never closed)" },
  { name: 'nested block never closed', input: '. {\n log {\n  class denial\n', message: 'Corefile:3:9 - Error during parsing: Unexpected EOF (the block opened at Corefile:2:6 is never closed)' },
  { name: 'a server block nested in a block', input: '. {\n example.org {\n  whoami\n }\n}', message: "Corefile:2:2 - Error during parsing: Unknown directive 'example.org'" },
  { name: 'a nested "." block', input: 'example.org {\n . {\n }\n}', message: "Corefile:2:2 - Error during parsing: Unknown directive '.'" },
  { name: 'a comma right before {', input: 'a.org, {\n whoami\n}', message: "Corefile:1:8 - Error during parsing: Expected another address but had '{' - check for extra comma" },
  { name: 'a comma then { on the next line', input: 'a.org,\n{\n whoami\n}', message: "Corefile:2:1 - Error during parsing: Expected another address but had '{' - check for extra comma" },
  { name: 'a trailing comma at EOF', input: 'a.org, b.org,', message: 'Corefile:1:8 - Error during parsing: Unexpected EOF' },
  { name: 'import without an argument', input: 'import', message: "Corefile:1:1 - Error during parsing: Wrong argument count or unexpected line ending after 'import'" },
  { name: 'import with its argument on the next line', input: '. {\n import\n x\n}', message: "Corefile:2:2 - Error during parsing: Wrong argument count or unexpected line ending after 'import'" },
  { name: 'import with two arguments', input: 'import a b', message: 'Corefile:1:10 - Error during parsing: Import takes only one argument (glob pattern or file)' },
  { name: 'snippet arguments are not supported', input: '(s) {\n log\n}\n. {\n import s arg\n}', message: 'Corefile:5:11 - Error during parsing: Import takes only one argument (glob pattern or file)' },
  { name: 'import of an empty string', input: '. {\n import ""\n}', message: 'Corefile:2:9 - Error during parsing: Import requires a non-empty filepath' },
  { name: 'import of an empty variable', input: 'import {$EMPTY}', env: {}, message: 'Corefile:1:8 - Error during parsing: Import requires a non-empty filepath' },
  { name: 'snippet redeclaration', input: '(s) {\n}\n(s) {\n}', message: 'Corefile:3:5 - Error during parsing: redeclaration of previously declared snippet s' },
  { name: 'a snippet without braces', input: '(s)\nwhoami', message: "Corefile:2:1 - Syntax error: Unexpected token 'whoami', expecting '{'" },
  { name: 'an unclosed snippet', input: '(s) {\n whoami', message: "Corefile:2:2 - Syntax error: Unexpected token 'whoami', expecting '}' (the block opened at Corefile:1:5 is never closed)" },
  { name: 'a snippet importing itself', input: '(s) {\n log\n import s\n}', message: 'Corefile:4:1 - Error during parsing: maximum snippet import depth (10000) exceeded' },
  { name: 'a snippet used before its definition is a file', input: '. {\n import later\n}\n(later) {\n log\n}', message: 'Corefile:2:9 - Error during parsing: File to import not found: later' },
];

for (const c of errors) {
  test(`parser error: ${c.name}`, () => {
    const options: ParseOptions = {
      file: 'Corefile',
      isDirective: (name) => ['whoami', 'log', 'errors', 'forward'].includes(name),
      ...(c.env === undefined ? {} : { env: c.env }),
    };
    assert.throws(() => parseCorefile(c.input, options), (error: unknown) => {
      assert.ok(error instanceof CorefileError);
      assert.equal(error.message, c.message);
      assert.equal(error.code, 'FOGHORN_ERR_CONFIG');
      assert.equal(`${error.file}:${error.line}:${error.column}`, c.message.split(' ')[0]);
      return true;
    });
  });
}

test('parser error: snippet import cycles stop at 10000 expansions', () => {
  const input = '(a) {\n import b\n}\n(b) {\n import a\n}\n. {\n import a\n}';
  assert.throws(() => parseCorefile(input), {
    message: /^Corefile:\d+:\d+ - Error during parsing: maximum snippet import depth \(10000\) exceeded$/,
  });
});

test('parser error: 10000 snippet imports are allowed, the 10001st is not', () => {
  const ok = `(s) {\n}\n. {\n${' import s\n'.repeat(10_000)}}`;
  assert.deepEqual(shape(parseCorefile(ok)), [[['.'], []]]);
  const tooMany = `(s) {\n}\n. {\n${' import s\n'.repeat(10_001)}}`;
  assert.throws(() => parseCorefile(tooMany), {
    message: 'Corefile:10004:9 - Error during parsing: maximum snippet import depth (10000) exceeded',
  });
});
