import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatIp, isIpv6Text, parseCidr, parseIp, to4, writeIpv4, writeIpv6 } from '../src/ip.js';

test('parseIp reads what Go’s net.ParseIP reads, and nothing else', () => {
  assert.deepEqual(parseIp('192.0.2.1'), Uint8Array.of(192, 0, 2, 1));
  assert.deepEqual(parseIp('0.0.0.0'), Uint8Array.of(0, 0, 0, 0));
  assert.deepEqual(parseIp('2001:db8::1'), Uint8Array.of(0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1));
  assert.deepEqual(parseIp('::ffff:192.0.2.1'), Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1));
  assert.deepEqual(parseIp('::'), new Uint8Array(16));
  assert.deepEqual(parseIp('1:2:3:4:5:6:7:8'), Uint8Array.of(0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8));
  for (const bad of ['', '1.2.3', '1.2.3.4.5', '01.2.3.4', '256.1.1.1', '1.2.3.-4', ' 1.2.3.4', '1:2:3:4:5:6:7', '1::2::3', '1:2:3:4:5:6:7::8', '12345::', 'fe80::1%eth0', '1.2.3.4::', 'g::1', '::1.2.3']) {
    assert.equal(parseIp(bad), null, bad);
  }
});

test('writeIpv4 and writeIpv6 write in place and say whether the text was an address', () => {
  const out = new Uint8Array(24).fill(7);
  assert.equal(writeIpv4('10.1.2.3', out, 2), true);
  assert.deepEqual(out.subarray(0, 7), Uint8Array.of(7, 7, 10, 1, 2, 3, 7));
  assert.equal(writeIpv4('10.1.2', out, 0), false);
  assert.equal(writeIpv6('fc00:2001::6757', out, 4), true);
  assert.deepEqual(out.subarray(4, 20), Uint8Array.of(0xfc, 0, 0x20, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x67, 0x57));
  assert.equal(writeIpv6('10.1.2.3', out, 0), false);
});

test('to4, formatIp and isIpv6Text agree with Go and Node', () => {
  assert.deepEqual(to4(parseIp('::ffff:10.0.0.1')!), Uint8Array.of(10, 0, 0, 1));
  assert.equal(formatIp(parseIp('2001:0db8:0000:0000:0000:0000:0000:0001')!), '2001:db8::1');
  assert.equal(formatIp(parseIp('::ffff:10.0.0.1')!), '10.0.0.1');
  assert.equal(formatIp(parseIp('1:0:0:2:0:0:0:3')!), '1:0:0:2::3');
  assert.equal(isIpv6Text('::1'), true);
  assert.equal(isIpv6Text('fe80::1%eth0'), true);
  assert.equal(isIpv6Text('127.0.0.1'), false);
});

test('parseCidr is Go’s net.ParseCIDR: the network masked, the family as written, Go’s error text', () => {
  const text = (c: { network: Uint8Array; bits: number }): string => `${formatIp(c.network)}/${c.bits}`;
  assert.equal(text(parseCidr('64:ff9b::1/96')), '64:ff9b::/96');
  assert.equal(text(parseCidr('10.1.2.3/8')), '10.0.0.0/8');
  assert.equal(parseCidr('8.8.8.8/24').network.length, 4);
  assert.equal(parseCidr('::ffff:10.0.0.0/104').network.length, 16);
  assert.equal(text(parseCidr('2002:c0a8:a88a::/48')), '2002:c0a8:a88a::/48');
  assert.equal(text(parseCidr('64:ff9b::/0096')), '64:ff9b::/96');
  for (const bad of ['foobar', '10.0.0.0', '10.0.0.0/33', '::/129', '10.0.0.0/-1', '10.0.0.0/0x8', 'fe80::1%eth0/64', '10.0.0.0/']) {
    assert.throws(() => parseCidr(bad), { message: `invalid CIDR address: ${bad}` }, bad);
  }
});
