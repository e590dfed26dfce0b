import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CorefileError, Dispenser, parseCorefile, type Token } from '../src/index.js';

function dispenser(input: string, directive: string): Dispenser {
  const [block] = parseCorefile(input);
  assert.ok(block !== undefined);
  return Dispenser.fromBlock(block, directive);
}

function token(text: string, line: number, column: number, file = 'Corefile'): Token {
  return { text, file, line, column, newlines: text.split('\n').length - 1 };
}

test('dispenser: next() + remainingArgs() visit each occurrence of the directive', () => {
  const c = dispenser('. {\n log a b\n whoami\n log\n log c\n}', 'log');
  const seen: string[][] = [];
  for (; c.next(); ) {
    assert.equal(c.val(), 'log');
    seen.push(c.remainingArgs());
  }
  assert.deepEqual(seen, [['a', 'b'], [], ['c']]);
  assert.equal(c.directive, 'log');
});

const verbs: ReadonlyArray<{ name: string; input: string; run: (c: Dispenser) => unknown; want: unknown }> = [
  {
    name: 'nextArg stops at the end of the line',
    input: '. {\n log a\n log b\n}',
    run: (c) => [c.next(), c.nextArg(), c.val(), c.nextArg(), c.val()],
    want: [true, true, 'a', false, 'a'],
  },
  {
    name: 'nextArg never loads {',
    input: '. {\n log a {\n  x\n }\n}',
    run: (c) => [c.next(), c.nextArg(), c.nextArg(), c.val()],
    want: [true, true, false, 'a'],
  },
  {
    name: 'nextArg counts the newlines of a multi-line quoted token',
    input: '. {\n log "x\ny" z\n log w\n}',
    run: (c) => [c.next(), c.nextArg(), c.nextArg(), c.val(), c.nextArg()],
    want: [true, true, true, 'z', false],
  },
  {
    name: 'nextArg loads a } on the same line',
    input: '. {\n log { class denial }\n}',
    run: (c) => [c.next(), c.nextBlock(), c.remainingArgs()],
    want: [true, true, ['denial', '}']],
  },
  {
    name: 'nextLine loads only a token on a later line',
    input: '. {\n log a\n log b\n}',
    run: (c) => [c.next(), c.nextLine(), c.nextArg(), c.nextLine(), c.val(), c.nextLine()],
    want: [true, false, true, true, 'log', false],
  },
  {
    name: 'args(n) returns n arguments or undefined',
    input: '. {\n log a b\n log c\n}',
    run: (c) => [c.next(), c.args(2), c.next(), c.args(2), c.val()],
    want: [true, ['a', 'b'], true, undefined, 'c'],
  },
  {
    name: 'val() is empty before the first and after the last token',
    input: '. {\n log\n}',
    run: (c) => [c.val(), c.next(), c.val(), c.next(), c.val()],
    want: ['', true, 'log', false, 'log'],
  },
  {
    name: 'nextArg() before the first token loads it',
    input: '. {\n log a\n}',
    run: (c) => [c.nextArg(), c.val(), c.nextArg(), c.val()],
    want: [true, 'log', true, 'a'],
  },
  {
    name: 'nextBlock is false without a block and does not move',
    input: '. {\n log a\n log b\n}',
    run: (c) => [c.next(), c.nextArg(), c.nextBlock(), c.val()],
    want: [true, true, false, 'a'],
  },
  {
    name: 'nextBlock is false for { } and leaves the cursor on }',
    input: '. {\n forward . 1.1.1.1 {\n }\n}',
    run: (c) => [c.next(), c.remainingArgs(), c.nextBlock(), c.val(), c.nesting],
    want: [true, ['.', '1.1.1.1'], false, '}', 0],
  },
  {
    name: 'nextBlock does not enter a { on the next line',
    input: '. {\n forward . 1.1.1.1\n {\n  max_fails 3\n }\n}',
    run: (c) => [c.next(), c.remainingArgs(), c.nextBlock(), c.next(), c.val()],
    want: [true, ['.', '1.1.1.1'], false, true, '{'],
  },
];

for (const v of verbs) {
  test(`dispenser: ${v.name}`, () => {
    const [block] = parseCorefile(v.input);
    assert.ok(block !== undefined);
    const first = block.directives[0];
    assert.ok(first !== undefined);
    assert.deepEqual(v.run(Dispenser.fromBlock(block, first.name)), v.want);
  });
}

test('dispenser: nextBlock reads every option line of a block', () => {
  const c = dispenser('. {\n log . {\n  class denial error\n  format combined\n }\n log\n}', 'log');
  const occurrences: Array<{ args: string[]; options: Array<[string, string[]]> }> = [];
  for (; c.next(); ) {
    const args = c.remainingArgs();
    const options: Array<[string, string[]]> = [];
    for (; c.nextBlock(); ) options.push([c.val(), c.remainingArgs()]);
    occurrences.push({ args, options });
  }
  assert.deepEqual(occurrences, [
    { args: ['.'], options: [['class', ['denial', 'error']], ['format', ['combined']]] },
    { args: [], options: [] },
  ]);
});

test("dispenser: `log { class denial }` reads '}' as an argument (CoreDNS quirk)", () => {
  const c = dispenser('. {\n log { class denial }\n}', 'log');
  const options: Array<[string, string[]]> = [];
  for (; c.next(); ) {
    assert.deepEqual(c.remainingArgs(), []);
    for (; c.nextBlock(); ) options.push([c.val(), c.remainingArgs()]);
  }
  assert.deepEqual(options, [['class', ['denial', '}']]]);
});

test('dispenser: nextBlock(level) reads a block nested in an option', () => {
  const c = dispenser('. {\n tls {\n  client {\n   ca x\n   verify\n  }\n  cert y\n }\n}', 'tls');
  const seen: string[] = [];
  for (; c.next(); ) {
    for (; c.nextBlock(); ) {
      if (c.val() === 'client') {
        const level = c.nesting;
        assert.equal(level, 1);
        for (; c.nextBlock(level); ) seen.push(`client.${c.val()}:${c.remainingArgs().join(',')}`);
        assert.equal(c.nesting, 1);
      } else {
        seen.push(`${c.val()}:${c.remainingArgs().join(',')}`);
      }
    }
  }
  assert.deepEqual(seen, ['client.ca:x', 'client.verify:', 'cert:y']);
});

test('dispenser: nextBlock stops at EOF in an unclosed block', () => {
  const c = new Dispenser([token('log', 1, 1), token('{', 1, 5), token('class', 2, 2)], 'log');
  assert.equal(c.next(), true);
  assert.equal(c.nextBlock(), true);
  assert.equal(c.val(), 'class');
  assert.equal(c.nextBlock(), false);
  assert.equal(c.nextBlock(), false);
});

test('dispenser: tokens from different files are never on the same line', () => {
  const c = new Dispenser([token('log', 1, 1, 'a.conf'), token('x', 1, 5, 'b.conf')]);
  assert.equal(c.directive, 'log');
  assert.equal(c.next(), true);
  assert.equal(c.nextArg(), false);
  assert.equal(c.nextLine(), true);
  assert.equal(c.val(), 'x');
});

test('dispenser: token() and remainingArgTokens() give positions', () => {
  const c = dispenser('. {\n  forward . 1.1.1.1\n}', 'forward');
  assert.deepEqual(c.token(), token('forward', 2, 3)); // before next(): the first token
  c.next();
  assert.deepEqual(c.remainingArgTokens(), [token('.', 2, 11), token('1.1.1.1', 2, 13)]);
  assert.deepEqual(c.token(), token('1.1.1.1', 2, 13));
});

const errors: ReadonlyArray<{ name: string; input: string; run: (c: Dispenser) => CorefileError; message: string }> = [
  {
    name: 'error() is at the current token',
    input: '. {\n log {\n  foo bar\n }\n}',
    run: (c) => {
      c.next();
      c.nextBlock();
      return c.error(`unknown property '${c.val()}'`);
    },
    message: "Corefile:3:3 - Error during parsing: unknown property 'foo'",
  },
  {
    name: 'argError() names the current token',
    input: '. {\n forward .\n}',
    run: (c) => {
      c.next();
      c.args(2);
      return c.argError();
    },
    message: "Corefile:2:10 - Error during parsing: Wrong argument count or unexpected line ending after '.'",
  },
  {
    name: 'argError() before a { on the line is about the {',
    input: '. {\n forward {\n }\n}',
    run: (c) => {
      c.next();
      c.args(1);
      return c.argError();
    },
    message: "Corefile:2:10 - Error during parsing: Unexpected token '{', expecting argument",
  },
  {
    name: 'argError() on a { is about the {',
    input: '. {\n forward . 1.1.1.1\n {\n }\n}',
    run: (c) => {
      c.next();
      c.remainingArgs();
      c.next();
      return c.argError();
    },
    message: "Corefile:3:2 - Error during parsing: Unexpected token '{', expecting argument",
  },
  {
    name: 'syntaxError() says what was found and what was expected',
    input: '. {\n log a\n}',
    run: (c) => {
      c.next();
      c.nextArg();
      return c.syntaxError('}');
    },
    message: "Corefile:2:6 - Syntax error: Unexpected token 'a', expecting '}'",
  },
  {
    name: 'eofError() is at the last token read',
    input: '. {\n log a\n}',
    run: (c) => {
      for (; c.next(); );
      return c.eofError();
    },
    message: 'Corefile:2:6 - Error during parsing: Unexpected EOF',
  },
];

for (const e of errors) {
  test(`dispenser: ${e.name}`, () => {
    const [block] = parseCorefile(e.input);
    assert.ok(block?.directives[0] !== undefined);
    const error = e.run(Dispenser.fromBlock(block, block.directives[0].name));
    assert.ok(error instanceof CorefileError);
    assert.equal(error.message, e.message);
    assert.equal(error.code, 'FOGHORN_ERR_CONFIG');
  });
}
