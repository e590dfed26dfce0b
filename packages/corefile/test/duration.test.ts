import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatDuration, parseDuration } from '../src/index.js';

const good: ReadonlyArray<readonly [string, number]> = [
  ['0', 0],
  ['-0', 0],
  ['5s', 5_000],
  ['1.5s', 1_500],
  ['.5s', 500],
  ['5.s', 5_000],
  ['300ms', 300],
  ['1h30m', 5_400_000],
  ['2h45m10s', 9_910_000],
  ['1m0s', 60_000],
  ['100us', 0.1],
  ['100µs', 0.1],
  ['100μs', 0.1],
  ['1500ns', 0.0015],
  ['-1.5h', -5_400_000],
  ['+10s', 10_000],
  ['0s', 0],
];

for (const [input, ms] of good) {
  test(`parseDuration('${input}') is ${ms} ms`, () => {
    assert.equal(parseDuration(input), ms);
  });
}

const bad: ReadonlyArray<readonly [string, string]> = [
  ['5', 'time: missing unit in duration "5"'],
  ['1.5', 'time: missing unit in duration "1.5"'],
  ['1d', 'time: unknown unit "d" in duration "1d"'],
  ['1 s', 'time: unknown unit " s" in duration "1 s"'],
  ['', 'time: invalid duration ""'],
  ['-', 'time: invalid duration "-"'],
  ['s', 'time: invalid duration "s"'],
  ['.s', 'time: invalid duration ".s"'],
  ['1s-2s', 'time: unknown unit "s-" in duration "1s-2s"'],
  ['9999999999999999999h', 'time: invalid duration "9999999999999999999h"'],
];

for (const [input, message] of bad) {
  test(`parseDuration('${input}') throws ${message}`, () => {
    assert.throws(() => parseDuration(input), { message });
  });
}

const formats: ReadonlyArray<readonly [number, string]> = [
  [0, '0s'],
  [30_000, '30s'],
  [300_000, '5m0s'],
  [3_600_000, '1h0m0s'],
  [1_500, '1.5s'],
  [100, '100ms'],
  [1.5, '1.5ms'],
  [0.001, '1µs'],
  [0.0015, '1.5µs'],
  [0.000001, '1ns'],
  [90_500, '1m30.5s'],
  [5_400_000, '1h30m0s'],
  [-1_500, '-1.5s'],
  [86_400_000, '24h0m0s'],
];

for (const [ms, text] of formats) {
  test(`formatDuration(${ms}) is '${text}'`, () => {
    assert.equal(formatDuration(ms), text);
  });
}

test('formatDuration rejects non-finite numbers', () => {
  assert.throws(() => formatDuration(Number.NaN), RangeError);
});

test('parseDuration and formatDuration round-trip', () => {
  for (const text of ['5m0s', '1h0m0s', '1.5s', '100ms', '30s', '2h45m10.25s']) {
    assert.equal(formatDuration(parseDuration(text)), text);
  }
});
