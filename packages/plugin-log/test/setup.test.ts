import { setupTable } from '@foghorn/testkit';
import type { BadCase, GoodCase } from '@foghorn/testkit';
import log, { COMBINED_LOG_FORMAT, COMMON_LOG_FORMAT, parseLog } from '@foghorn/plugin-log';
import type { LogRule } from '@foghorn/plugin-log';

const common = COMMON_LOG_FORMAT;

const good: GoodCase<LogRule[]>[] = [
  { input: 'log', want: [{ name: '.', format: common, classes: ['all'] }] },
  { input: 'log example.org', want: [{ name: 'example.org.', format: common, classes: ['all'] }] },
  // One argument is always a name, even a format: CoreDNS logs nothing for `log {combined}`.
  { input: 'log {combined}', want: [{ name: '{combined}.', format: common, classes: ['all'] }] },
  { input: 'log . {combined}', want: [{ name: '.', format: COMBINED_LOG_FORMAT, classes: ['all'] }] },
  { input: 'log . {common}', want: [{ name: '.', format: common, classes: ['all'] }] },
  { input: 'log Example.ORG', want: [{ name: 'Example.ORG.', format: common, classes: ['all'] }] },
  {
    input: 'log example.org example.net',
    want: [
      { name: 'example.org.', format: common, classes: ['all'] },
      { name: 'example.net.', format: common, classes: ['all'] },
    ],
  },
  {
    input: 'log example.org example.net "{combined} {/forward/upstream}"',
    want: [
      { name: 'example.org.', format: `${COMBINED_LOG_FORMAT} {/forward/upstream}`, classes: ['all'] },
      { name: 'example.net.', format: `${COMBINED_LOG_FORMAT} {/forward/upstream}`, classes: ['all'] },
    ],
  },
  { input: 'log . "{type} {name}"', want: [{ name: '.', format: '{type} {name}', classes: ['all'] }] },
  { input: 'log {\n class denial error\n}', want: [{ name: '.', format: common, classes: ['denial', 'error'] }] },
  { input: 'log . {\n class success\n class denial\n}', want: [{ name: '.', format: common, classes: ['success', 'denial'] }] },
  { input: 'log example.org {\n class all\n}', want: [{ name: 'example.org.', format: common, classes: ['all'] }] },
  {
    input: 'log a.example {\n class error\n}\nlog . {common}',
    want: [
      { name: 'a.example.', format: common, classes: ['error'] },
      { name: '.', format: common, classes: ['all'] },
    ],
  },
  {
    input: 'log a.example b.example "{name}" {\n class denial\n}',
    want: [
      { name: 'a.example.', format: '{name}', classes: ['denial'] },
      { name: 'b.example.', format: '{name}', classes: ['denial'] },
    ],
  },
];

const bad: BadCase[] = [
  { input: 'log {\n class\n}', error: "Corefile:3:2 - Error during parsing: Wrong argument count or unexpected line ending after 'class'" },
  { input: 'log {\n class success bogus\n}', error: 'Corefile:3:16 - Error during parsing: invalid Class: bogus' },
  { input: 'log {\n class DENIAL\n}', error: 'Corefile:3:8 - Error during parsing: invalid Class: DENIAL' },
  { input: 'log {\n foo\n}', error: "Corefile:3:2 - Error during parsing: unknown property 'foo'" },
  { input: 'log . {\n format {common}\n}', error: "Corefile:3:2 - Error during parsing: unknown property 'format'" },
  // The `}` on the same line is read as a class value, exactly as CoreDNS reads it.
  { input: 'log { class denial }', error: 'Corefile:2:20 - Error during parsing: invalid Class: }' },
];

setupTable('log', parseLog, { good, bad, key: '.', plugin: log });
