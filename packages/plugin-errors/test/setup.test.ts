import { setupTable } from '@foghorn/testkit';
import type { BadCase, GoodCase } from '@foghorn/testkit';
import errors, { parseErrors } from '@foghorn/plugin-errors';
import type { ErrorsOptions } from '@foghorn/plugin-errors';

const none = { stacktrace: false, consolidate: [] };

const good: GoodCase<ErrorsOptions>[] = [
  { input: 'errors', want: none },
  { input: 'errors stdout', want: none },
  { input: 'errors {\n stacktrace\n}', want: { stacktrace: true, consolidate: [] } },
  {
    input: 'errors {\n consolidate 5m ".* i/o timeout$"\n}',
    want: { stacktrace: false, consolidate: [{ durationMs: 300_000, pattern: '.* i/o timeout$', regexp: /.* i\/o timeout$/, level: 'error', showFirst: false }] },
  },
  {
    input: 'errors stdout {\n consolidate 30s ^Failed warning show_first\n consolidate 1.5s x info\n stacktrace\n}',
    want: {
      stacktrace: true,
      consolidate: [
        { durationMs: 30_000, pattern: '^Failed', regexp: /^Failed/, level: 'warning', showFirst: true },
        { durationMs: 1500, pattern: 'x', regexp: /x/, level: 'info', showFirst: false },
      ],
    },
  },
  {
    input: 'errors {\n consolidate 1m x show_first\n consolidate 1m y debug\n}',
    want: {
      stacktrace: false,
      consolidate: [
        { durationMs: 60_000, pattern: 'x', regexp: /x/, level: 'error', showFirst: true },
        { durationMs: 60_000, pattern: 'y', regexp: /y/, level: 'debug', showFirst: false },
      ],
    },
  },
  // Go's inline flag group becomes RegExp flags.
  {
    input: 'errors {\n consolidate 1m (?i)timeout\n}',
    want: { stacktrace: false, consolidate: [{ durationMs: 60_000, pattern: '(?i)timeout', regexp: /timeout/i, level: 'error', showFirst: false }] },
  },
];

const long = 'a'.repeat(10_001);
const bad: BadCase[] = [
  { input: 'errors stderr', error: 'Corefile:2:8 - Error during parsing: invalid log file: stderr' },
  { input: 'errors stdout extra', error: "Corefile:2:15 - Error during parsing: Wrong argument count or unexpected line ending after 'extra'" },
  { input: 'errors\nerrors', error: 'Corefile:3:1 - Error during parsing: this plugin can only be used once per Server Block' },
  { input: 'errors {\n foo\n}', error: "Corefile:3:2 - Syntax error: Unexpected token 'foo', expecting 'Unknown field foo'" },
  { input: 'errors {\n consolidate 5m\n}', error: "Corefile:3:14 - Error during parsing: Wrong argument count or unexpected line ending after '5m'" },
  { input: 'errors {\n consolidate 5m a error show_first extra\n}', error: "Corefile:3:36 - Error during parsing: Wrong argument count or unexpected line ending after 'extra'" },
  { input: 'errors {\n consolidate 5x a\n}', error: 'Corefile:3:17 - Error during parsing: time: unknown unit "x" in duration "5x"' },
  { input: 'errors {\n consolidate five a\n}', error: 'Corefile:3:19 - Error during parsing: time: invalid duration "five"' },
  { input: `errors {\n consolidate 5m ${long}\n}`, error: 'Corefile:3:17 - Error during parsing: regex pattern too long: 10001 > 10000' },
  { input: 'errors {\n consolidate 5m (unclosed\n}', error: 'Corefile:3:17 - Error during parsing: error parsing regexp: ' },
  { input: 'errors {\n consolidate 5m a warning error\n}', error: 'Corefile:3:27 - Error during parsing: multiple log levels specified in consolidate' },
  { input: 'errors {\n consolidate 5m a show_first warning\n}', error: 'Corefile:3:30 - Error during parsing: log level must come before show_first in consolidate' },
  { input: 'errors {\n consolidate 5m a loud\n}', error: 'Corefile:3:19 - Error during parsing: unknown option in consolidate: loud' },
];

setupTable('errors', parseErrors, { good, bad, key: '.', plugin: errors });
