import assert from 'node:assert/strict';
import { test } from 'node:test';
import { captureLog } from '@foghorn/testkit';
import { Backoff, ThrottledLog } from '../src/backoff.js';

test('backoff doubles up to the cap with equal jitter, and reset starts over', () => {
  const lowest = new Backoff(100, 1000, () => 0);
  assert.deepEqual([1, 2, 3, 4, 5, 6].map(() => lowest.next()), [50, 100, 200, 400, 500, 500]);
  const highest = new Backoff(100, 1000, () => 0.999999);
  assert.deepEqual([1, 2, 3, 4, 5, 6].map(() => highest.next()), [100, 200, 400, 800, 1000, 1000]);
  highest.reset();
  assert.equal(highest.next(), 100);
  // Many thousand failures later the exponent must not overflow into Infinity or NaN.
  const long = new Backoff(100, 1000, () => 0.5);
  for (let i = 0; i < 5000; i++) long.next();
  assert.equal(long.next(), 750);
});

test('warnings are limited to one per interval, the next one counting what was held back', () => {
  let now = 0;
  const { logger, lines } = captureLog();
  const log = new ThrottledLog(logger.forPlugin('lighthouse'), 30_000, () => now);
  log.warning('first');
  now = 1000;
  log.warning('second');
  log.warning('third');
  now = 31_000;
  log.warning('fourth');
  log.recovered((n) => `recovered after ${n}`);
  log.recovered((n) => `again ${n}`);
  log.close();
  log.warning('after close');
  log.info('after close');
  assert.deepEqual(lines, [
    '[WARNING] plugin/lighthouse: first',
    '[WARNING] plugin/lighthouse: fourth (2 similar warnings suppressed)',
    '[INFO] plugin/lighthouse: recovered after 4',
  ]);
});
