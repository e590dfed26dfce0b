/**
 * The credit model and the fixed table, with time passed in: BIND's burst of one second's worth,
 * credit returning at the rate, debt bounded by the window, slips every Nth reply over the
 * limit, and a table that never grows and gives up the accounts with the most credit first.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Accounts, Debit } from '../src/accounts.js';

/** A fixed seed: tests pick keys by hand. */
const fixed = (): number => 0.5;
const rate10 = 100;

/** Debits `count` responses of the key at `now`, returns their results. */
function debitMany(accounts: Accounts, key: number, count: number, now: number, interval = rate10): number[] {
  return Array.from({ length: count }, () => accounts.debit(key, key, interval, now));
}

test('a new account passes one second of responses at once, then the rest is over the limit', () => {
  const accounts = new Accounts(100, 15_000, 0, fixed);
  const results = debitMany(accounts, 7, 15, 5000);
  assert.deepEqual(results.slice(0, 10), Array(10).fill(0));
  assert.equal(results[10], Debit.exceeded | Debit.started);
  assert.deepEqual(results.slice(11), Array(4).fill(Debit.exceeded));
});

test('credit comes back at the rate: one response per interval', () => {
  const accounts = new Accounts(100, 15_000, 0, fixed);
  debitMany(accounts, 7, 11, 5000);
  // 100 ms later the balance is back to zero minus the debt of the 11th response.
  assert.equal(accounts.debit(7, 7, rate10, 5100), Debit.exceeded);
  assert.equal(accounts.debit(7, 7, rate10, 5300), 0);
  assert.equal(accounts.debit(7, 7, rate10, 5300), Debit.exceeded | Debit.started, 'a new episode over the limit');
});

test('the debt stops at the window, and the account recovers one window after the flood', () => {
  const accounts = new Accounts(100, 2000, 0, fixed);
  // A flood of 10,000 responses in one instant: without the bound the debt would be 1,000 s.
  debitMany(accounts, 7, 10_000, 5000);
  assert.equal(accounts.debit(7, 7, rate10, 5000 + 2000 - 50) & Debit.exceeded, Debit.exceeded);
  assert.equal(accounts.debit(7, 7, rate10, 5000 + 2000 + 200), 0);
});

test('credit never exceeds one second: a long-idle account bursts rate responses, not more', () => {
  const accounts = new Accounts(100, 15_000, 0, fixed);
  accounts.debit(7, 7, rate10, 0);
  const results = debitMany(accounts, 7, 12, 3_600_000);
  assert.equal(results.filter((r) => r === 0).length, 10);
});

test('slip-ratio 2 slips every second reply over the limit; 1 every one; 0 none', () => {
  for (const [ratio, pattern] of [
    [2, [0, Debit.slip, 0, Debit.slip, 0, Debit.slip]],
    [1, [Debit.slip, Debit.slip, Debit.slip]],
    [0, [0, 0, 0]],
  ] as const) {
    const accounts = new Accounts(100, 15_000, ratio, fixed);
    const over = debitMany(accounts, 7, 10 + pattern.length, 5000).slice(10);
    assert.deepEqual(
      over.map((r) => r & Debit.slip),
      [...pattern],
      `slip-ratio ${ratio}`,
    );
  }
});

test('accounts are per key: a second key has its own credit', () => {
  const accounts = new Accounts(100, 15_000, 0, fixed);
  debitMany(accounts, 7, 11, 5000);
  assert.equal(accounts.debit(8, 8, rate10, 5000), 0);
  assert.equal(accounts.debit(7, 7, rate10, 5000) & Debit.exceeded, Debit.exceeded);
});

test('the table never holds more than max-table-size accounts, whatever the number of keys', () => {
  const accounts = new Accounts(1000, 15_000, 0, fixed);
  assert.equal(accounts.ways * accounts.sets, 1000);
  let recycled = 0;
  for (let key = 1; key <= 100_000; key++) {
    // Spread keys as the real hashes do: distinct set and fingerprint halves.
    if (accounts.debit(Math.imul(key, 0x9e3779b1), key, rate10, key) & Debit.recycled) recycled++;
  }
  assert.equal(accounts.size, 1000);
  assert.ok(recycled >= 99_000, `${recycled} accounts recycled`);
});

test('a full set gives up its accounts with the most credit; an account in debt survives the churn', () => {
  // One set of 8: every key lands in it.
  const accounts = new Accounts(8, 15_000, 0, fixed);
  const victim = 1;
  debitMany(accounts, victim, 50, 5000);
  // A spoofed flood: 10,000 one-off keys through the same set.
  for (let key = 2; key < 10_002; key++) accounts.debit(0, key, rate10, 5000 + key / 100);
  assert.equal(accounts.debit(0, victim, rate10, 5200) & Debit.exceeded, Debit.exceeded, 'the flood target is still limited');
});

test('max-table-size 0 keeps no account and limits nothing', () => {
  const accounts = new Accounts(0, 15_000, 0, fixed);
  assert.deepEqual(debitMany(accounts, 7, 100, 5000), Array(100).fill(0));
  assert.equal(accounts.size, 0);
});
