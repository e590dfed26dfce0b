import { test } from 'node:test';
import assert from 'node:assert/strict';
import { networkContains, parseClientAddress, parseNetwork } from '../src/address.js';
import type { Network } from '../src/address.js';

function net(text: string): Network {
  const network = parseNetwork(text);
  assert.ok(network, `${text} should parse`);
  return network;
}

function contains(network: string, client: string): boolean {
  const address = parseClientAddress(client);
  assert.ok(address, `${client} should parse`);
  return networkContains(net(network), address);
}

test('networks accept what Go net.ParseCIDR accepts', () => {
  for (const text of ['0.0.0.0/0', '10.0.0.0/8', '192.168.1.5/24', '1.2.3.4/032', '::/0', '::1/128', '2001:db8::/32', '::ffff:10.0.0.0/104', '1:2:3:4:5:6:7:8/64', 'fe80::/10']) {
    assert.ok(parseNetwork(text), text);
  }
});

test('networks refuse what Go net.ParseCIDR refuses', () => {
  for (const text of ['10.0.0.0/33', '10.0.0/8', '10.0.0.0.0/8', '01.0.0.0/8', '256.0.0.0/8', '10.0.0.0/', '10.0.0.0/-1', '10.0.0.0/8/8', '::/129', '1::2::3/64', '1:2:3:4::5:6:7:8/64', ':::/0', '12345::/16', 'g::/16', 'fe80::1%eth0/64', '/8', 'example.org/32']) {
    assert.equal(parseNetwork(text), undefined, text);
  }
});

test('a plain address becomes a single-host network', () => {
  assert.equal(net('192.0.2.1').text, '192.0.2.1/32');
  assert.equal(net('2001:db8::1').bits, 128);
  assert.ok(contains('192.0.2.1', '192.0.2.1'));
  assert.ok(!contains('192.0.2.1', '192.0.2.2'));
});

test('host bits of a network are cleared, as Go masks them', () => {
  assert.ok(contains('192.168.1.5/24', '192.168.1.200'));
  assert.ok(!contains('192.168.1.5/24', '192.168.2.1'));
});

test('IPv4 prefixes match on bit boundaries inside an octet', () => {
  assert.ok(contains('10.0.0.0/9', '10.127.255.255'));
  assert.ok(!contains('10.0.0.0/9', '10.128.0.0'));
  assert.ok(contains('0.0.0.0/0', '255.255.255.255'));
  assert.ok(contains('255.255.255.255/32', '255.255.255.255'));
});

test('IPv6 prefixes match across 32-bit words', () => {
  assert.ok(contains('2001:db8::/32', '2001:db8:ffff::1'));
  assert.ok(!contains('2001:db8::/32', '2001:db9::1'));
  assert.ok(contains('2001:db8:0:8000::/49', '2001:db8:0:ffff::1'));
  assert.ok(!contains('2001:db8:0:8000::/49', '2001:db8:0:7fff::1'));
  assert.ok(contains('::/0', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'));
  assert.ok(contains('::1/128', '0:0:0:0:0:0:0:1'));
});

test('IPv4 clients never match IPv6 networks, nor the other way round', () => {
  assert.ok(!contains('::/0', '127.0.0.1'));
  assert.ok(!contains('0.0.0.0/0', '::1'));
});

test('an IPv4-mapped client address counts as IPv4 and a zone is cut off', () => {
  assert.ok(contains('192.0.2.0/24', '::ffff:192.0.2.7'));
  assert.ok(contains('fe80::/10', 'fe80::1%eth0'));
  assert.equal(parseClientAddress('not-an-address'), undefined);
});
