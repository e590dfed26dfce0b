import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pollEvery } from '../src/index.js';

test('pollEvery runs the task each period, skips ticks while a run is going, and stops', async (t) => {
  t.mock.timers.enable({ apis: ['setInterval'] });
  let runs = 0;
  let finish: () => void = () => undefined;
  const stop = pollEvery(100, () => {
    runs++;
    return new Promise<void>((resolve) => (finish = resolve));
  });
  t.mock.timers.tick(100);
  assert.equal(runs, 1);
  t.mock.timers.tick(300);
  assert.equal(runs, 1, 'a slow run is not overlapped');
  finish();
  await Promise.resolve();
  await Promise.resolve();
  t.mock.timers.tick(100);
  assert.equal(runs, 2, 'the next tick after the run ended runs again');
  finish();
  stop();
  t.mock.timers.tick(1000);
  assert.equal(runs, 2, 'stopped');
});

test('pollEvery with no period never runs, and a rejected run does not stop the clock', async (t) => {
  t.mock.timers.enable({ apis: ['setInterval'] });
  let runs = 0;
  pollEvery(0, async () => void runs++)();
  t.mock.timers.tick(10_000);
  assert.equal(runs, 0);
  const stop = pollEvery(10, async () => {
    runs++;
    throw new Error('unreadable');
  });
  t.mock.timers.tick(10);
  await new Promise((resolve) => setImmediate(resolve));
  t.mock.timers.tick(10);
  assert.equal(runs, 2);
  stop();
});
