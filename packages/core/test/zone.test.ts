import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serialNewer } from '@foghorn/core/wire';

test('serials compare in RFC 1982 arithmetic (CoreDNS plugin/file TestLess)', () => {
  const [min, max, low, high] = [0, 4294967295, 12345, 4000000000];
  // CoreDNS's less(a, b) is serialNewer(b, a).
  assert.equal(serialNewer(max, min), false);
  assert.equal(serialNewer(min, max), true, 'a serial that wrapped past 2^32 is newer');
  assert.equal(serialNewer(low, high), true);
  assert.equal(serialNewer(9, 7), true);
  assert.equal(serialNewer(7, 7), false);
  assert.equal(serialNewer(7, 9), false);
  // 2^31 - 1 ahead is the farthest a serial can move forward.
  assert.equal(serialNewer(0x7fffffff, 0), true);
  assert.equal(serialNewer(0x80000000, 0), false);
});
