import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Flags } from '@foghorn/core';
import { directivesOf, setupTable, startServer } from '@foghorn/testkit';
import header, { flagMasks, parseHeader } from '../src/index.js';
import type { HeaderRules, Rule } from '../src/index.js';

type Pair = [Rule['flag'], boolean];
const rules = (query: Pair[], response: Pair[]): HeaderRules => ({
  query: query.map(([flag, state]) => ({ flag, state })),
  response: response.map(([flag, state]) => ({ flag, state })),
});

// CoreDNS v1.14.7's plugin/header/setup_test.go, with the positions Foghorn adds, and
// CoreDNS 1.12's selector-less rules, still read as response rules.
setupTable('header', parseHeader, {
  plugin: header,
  good: [
    { input: 'header {\n    query set rd\n}', want: rules([['rd', true]], []) },
    { input: 'header {\n    response set aa\n}', want: rules([], [['aa', true]]) },
    { input: 'header {\n    response set ra aa\n    query clear rd\n}', want: rules([['rd', false]], [['ra', true], ['aa', true]]) },
    { input: 'header {\n    RESPONSE SET RA\n}', want: rules([], [['ra', true]]) },
    { input: 'header {\n    set ra aa\n    clear rd\n}', want: rules([], [['ra', true], ['aa', true], ['rd', false]]) },
    // The first header with rules is the one CoreDNS uses; a later one is not read.
    { input: 'header {\n    query set rd\n}\nheader {\n    response set aa\n}', want: rules([['rd', true]], []) },
  ],
  bad: [
    { input: 'header {}', error: "Corefile:2:8 - Error during parsing: Wrong argument count or unexpected line ending after '{}'" },
    { input: 'header {\n}', error: "Corefile:3:1 - Error during parsing: Wrong argument count or unexpected line ending after '}'" },
    { input: 'header', error: "Corefile:2:1 - Error during parsing: Wrong argument count or unexpected line ending after 'header'" },
    { input: 'header {\n    foo\n}', error: 'Corefile:3:5 - Error during parsing: setting up rule: invalid selector=foo should be query or response' },
    { input: 'header {\n    response set\n}', error: 'Corefile:3:14 - Error during parsing: setting up rule: invalid length for flags, at least one should be provided' },
    { input: 'header {\n    query foo\n}', error: 'Corefile:3:11 - Error during parsing: setting up rule: invalid length for flags, at least one should be provided' },
    { input: 'header {\n    query foo rd\n}', error: 'Corefile:3:11 - Error during parsing: setting up rule: unknown flag action=foo, should be set or clear' },
    { input: 'header {\n    query\n}', error: 'Corefile:3:5 - Error during parsing: setting up rule: no flag action provided' },
    { input: 'header {\n    response set ra cd\n}', error: 'Corefile:3:21 - Error during parsing: setting up rule: unknown/unsupported flag=cd' },
  ],
});

test('the last rule on a flag wins: rules become one set mask and one clear mask', () => {
  assert.deepEqual(flagMasks([{ flag: 'ra', state: true }, { flag: 'ra', state: false }, { flag: 'aa', state: true }]), { set: Flags.AA, clear: Flags.RA });
  assert.deepEqual(flagMasks([{ flag: 'rd', state: false }, { flag: 'rd', state: true }]), { set: Flags.RD, clear: 0 });
});

test('a selector-less rule logs CoreDNS 1.12 deprecation warning with its line', async (t) => {
  const server = await startServer('example.org:0 {\n    header {\n        set ra\n    }\n}\n', { directives: directivesOf(header) });
  t.after(() => server.close());
  assert.ok(
    server.lines.some((line) => line === "[WARNING] plugin/header: The selector for header rule in line 3 isn't explicit defined. Assume rule applies for selector 'response'. This syntax is deprecated. In future versions of CoreDNS the selector must be explicit defined."),
    server.lines.join('\n'),
  );
});
