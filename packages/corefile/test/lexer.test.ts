import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tokenize } from '../src/index.js';

type Row = readonly [text: string, line: number, column: number];

const cases: ReadonlyArray<{ name: string; input: string; want: readonly Row[] }> = [
  { name: 'splits words on spaces and tabs', input: 'forward .\t1.1.1.1', want: [['forward', 1, 1], ['.', 1, 9], ['1.1.1.1', 1, 11]] },
  { name: 'counts lines from 1', input: 'a\n\n  b\n', want: [['a', 1, 1], ['b', 3, 3]] },
  { name: 'a comment at a token start runs to the end of the line', input: '# all of this\nfoo # and "this"\nbar', want: [['foo', 2, 1], ['bar', 3, 1]] },
  { name: 'a # mid-word ends the word and hides only the rest of it', input: '1.1.1.1#53 a b', want: [['1.1.1.1', 1, 1], ['a', 1, 12], ['b', 1, 14]] },
  { name: 'a mid-word comment swallows a quote in the same word', input: 'foo#bar"x y"', want: [['foo', 1, 1], ['y"', 1, 11]] },
  { name: 'a quote inside a word is literal', input: 'foo"bar" x', want: [['foo"bar"', 1, 1], ['x', 1, 10]] },
  { name: 'a quoted token ends at its closing quote', input: '"a"b', want: [['a', 1, 1], ['b', 1, 4]] },
  { name: 'spaces and # are literal inside quotes', input: '"a b # c"', want: [['a b # c', 1, 1]] },
  { name: '\\" is the only escape', input: '"a\\"b"', want: [['a"b', 1, 1]] },
  { name: 'a backslash before anything else is kept', input: '"a\\nb\\\\c"', want: [['a\\nb\\\\c', 1, 1]] },
  { name: '"" is an empty token', input: 'a "" b', want: [['a', 1, 1], ['', 1, 3], ['b', 1, 6]] },
  { name: 'newlines inside quotes are kept and counted', input: '"x\ny" z\nw', want: [['x\ny', 1, 1], ['z', 2, 4], ['w', 3, 1]] },
  { name: 'an unterminated quote at EOF is a token', input: 'a "bc d', want: [['a', 1, 1], ['bc d', 1, 3]] },
  { name: 'an unterminated empty quote at EOF is nothing', input: 'a "', want: [['a', 1, 1]] },
  { name: 'a dangling backslash in an unterminated quote is dropped', input: '"bc\\', want: [['bc', 1, 1]] },
  { name: 'a comment right after a quoted token', input: '"a"#c\nd', want: [['a', 1, 1], ['d', 2, 1]] },
  { name: 'CRLF line endings work', input: 'a b\r\nc\r\n', want: [['a', 1, 1], ['b', 1, 3], ['c', 2, 1]] },
  { name: 'a \\r inside a word is dropped and does not end it', input: 'a\rb c', want: [['ab', 1, 1], ['c', 1, 5]] },
  { name: 'a mid-word comment goes on over \\r', input: 'a#b\rc d', want: [['a', 1, 1], ['d', 1, 7]] },
  { name: 'a \\r inside quotes is kept', input: '"a\rb"', want: [['a\rb', 1, 1]] },
  { name: 'a leading BOM is discarded', input: '\uFEFFfoo bar', want: [['foo', 1, 1], ['bar', 1, 5]] },
  { name: 'a BOM elsewhere is an ordinary character', input: 'a \uFEFFb', want: [['a', 1, 1], ['\uFEFFb', 1, 3]] },
  { name: 'braces are only special as whole tokens', input: 'example.org{ { }', want: [['example.org{', 1, 1], ['{', 1, 14], ['}', 1, 16]] },
  { name: 'there is no line continuation', input: 'a \\\nb', want: [['a', 1, 1], ['\\', 1, 3], ['b', 2, 1]] },
  { name: 'Unicode spaces separate tokens (NBSP, NEL, U+3000)', input: 'a\u00a0b\u0085c\u3000d', want: [['a', 1, 1], ['b', 1, 3], ['c', 1, 5], ['d', 1, 7]] },
  { name: 'a zero-width space is not whitespace', input: 'a\u200bb', want: [['a\u200bb', 1, 1]] },
  { name: 'columns count code points', input: 'é 😀 x', want: [['é', 1, 1], ['😀', 1, 3], ['x', 1, 5]] },
  { name: 'empty input has no tokens', input: '', want: [] },
  { name: 'only comments and blank lines have no tokens', input: '# a\n\n   # b\r\n', want: [] },
];

for (const c of cases) {
  test(`lexer: ${c.name}`, () => {
    const got = tokenize(c.input).map((t): Row => [t.text, t.line, t.column]);
    assert.deepEqual(got, c.want);
  });
}

test('lexer: tokens carry the file name and the newlines of quoted text', () => {
  const [first, second] = tokenize('"a\nb\nc" d', 'my.conf');
  assert.deepEqual(first, { text: 'a\nb\nc', file: 'my.conf', line: 1, column: 1, newlines: 2 });
  assert.deepEqual(second, { text: 'd', file: 'my.conf', line: 3, column: 4, newlines: 0 });
});
