import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hexdump } from '../src/hexdump.js';

// CoreDNS's plugin/debug/pcap_test.go shape: 16 bytes a line after a six-digit offset, then the length.
test('hexdump writes 16 bytes a line, each line prefixed for text2pcap, then the length', () => {
  const bytes = Uint8Array.from({ length: 18 }, (_, i) => i * 15);
  assert.equal(
    hexdump(bytes),
    'debug: 000000 00 0f 1e 2d 3c 4b 5a 69 78 87 96 a5 b4 c3 d2 e1\ndebug: 000010 f0 ff\ndebug: 000012',
  );
  assert.equal(hexdump(new Uint8Array(16)).split('\n').length, 2);
});
