import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shlexSplit } from '../src/shlex.js';

// github.com/flynn/go-shlex's shlex_test.go.
test('shlex splits words, keeps quoted spaces, drops comments (TestTokenizer)', () => {
  assert.deepEqual(shlexSplit('one two "three four" "five \\"six\\"" seven#eight # nine # ten\n eleven'), ['one', 'two', 'three four', 'five "six"', 'seven#eight', 'eleven']);
});

test('shlex splits simple words (TestSplitSimple)', () => {
  assert.deepEqual(shlexSplit('one two three'), ['one', 'two', 'three']);
});

test('shlex keeps anything inside double quotes (TestSplitEscapingQuotes)', () => {
  assert.deepEqual(shlexSplit('one "два ${three}" four'), ['one', 'два ${three}', 'four']);
});

test("shlex keeps backslashes and double quotes inside single quotes (TestSplitNonEscapingQuotes)", () => {
  assert.deepEqual(shlexSplit("one 'два ${three}' four"), ['one', 'два ${three}', 'four']);
  assert.deepEqual(shlexSplit(`'a\\"b' c`), ['a\\"b', 'c']);
});

test('shlex joins quoted and unquoted parts of one word, and reads an escaped space as part of it', () => {
  assert.deepEqual(shlexSplit(`a"b c"'d e'f g\\ h`), ['ab cd ef', 'g h']);
  assert.deepEqual(shlexSplit('  '), []);
  assert.deepEqual(shlexSplit('""'), ['']);
});

test('shlex refuses unterminated quotes and escapes, and characters it does not know', () => {
  assert.throws(() => shlexSplit('"open'), { message: 'EOF found when expecting closing quote.' });
  assert.throws(() => shlexSplit("'open"), { message: 'EOF found when expecting closing quote.' });
  assert.throws(() => shlexSplit('end\\'), { message: 'EOF found after escape character' });
  assert.throws(() => shlexSplit('`x`'), { message: 'Unknown rune: 96' });
  assert.throws(() => shlexSplit('x`'), { message: 'Uknown rune: 96' });
});
