import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goRegExp, regExpGroups } from '@foghorn/core';

test('Go regex spellings are read as RE2 reads them', () => {
  assert.equal(goRegExp('(?i)^WWW\\.').test('www.example.org.'), true);
  assert.equal(goRegExp('(?P<host>[a-z]+)\\.example').exec('ftp.example.org.')?.groups?.['host'], 'ftp');
  assert.equal(goRegExp('\\Aexample\\.org\\.\\z').test('example.org.'), true);
  assert.equal(goRegExp('org\\z').test('org\n'), false);
  assert.equal(regExpGroups(goRegExp('(a)(?P<b>b)(?:c)')), 2);
});

test('what RE2 does not have is refused, as Go refuses it', () => {
  assert.throws(() => goRegExp('(a)\\1'), /invalid escape sequence: `\\1`/);
  assert.throws(() => goRegExp('a(?=b)'), /invalid or unsupported Perl syntax/);
  assert.throws(() => goRegExp('a(?<!b)'), /invalid or unsupported Perl syntax/);
  assert.throws(() => goRegExp('[bad['), (e: Error) => e.message === 'error parsing regexp: Unterminated character class: `[bad[`');
});
