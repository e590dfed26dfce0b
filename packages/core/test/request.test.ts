import { test } from 'node:test';
import assert from 'node:assert/strict';
import dnsPacket from 'dns-packet';
import type { OptAnswer } from 'dns-packet';
import { isIpv6Text } from '../src/ip.js';
import { Request } from '../src/request.js';

function query(udpSize?: number): Buffer {
  const opt: OptAnswer = { type: 'OPT', name: '.', udpPayloadSize: udpSize ?? 0, extendedRcode: 0, ednsVersion: 0, flags: dnsPacket.DNSSEC_OK, flag_do: true, options: [] };
  return dnsPacket.encode({ type: 'query', id: 7, flags: dnsPacket.RECURSION_DESIRED, questions: [{ type: 'A', name: 'example.org', class: 'IN' }], additionals: udpSize === undefined ? [] : [opt] });
}

const optSize = (wire: Buffer): number | undefined => (dnsPacket.decode(wire).additionals?.find((rr) => rr.type === 'OPT') as OptAnswer | undefined)?.udpPayloadSize;

test('limitUdpSize lowers the size in the fields, in raw and in the decoded message', () => {
  const req = Request.fromWire(query(4096), 'udp', '127.0.0.1', 5353);
  assert.equal(req.message.additionals?.length, 1, 'decoded before the change');
  req.limitUdpSize(1232);
  assert.equal(req.udpSize, 1232);
  assert.equal(req.maxResponseSize, 1232);
  assert.equal(optSize(req.raw), 1232);
  assert.equal((req.message.additionals?.[0] as OptAnswer).udpPayloadSize, 1232);
  assert.equal(req.dnssecOk, true, 'the rest of the OPT is untouched');
  assert.equal(Request.fromWire(req.raw, 'udp', '127.0.0.1', 5353).udpSize, 1232);
});

test('limitUdpSize never raises the size and adds no OPT', () => {
  const small = Request.fromWire(query(900), 'udp', '127.0.0.1', 5353);
  small.limitUdpSize(1232);
  assert.equal(small.udpSize, 900);
  assert.equal(optSize(small.raw), 900);
  const none = Request.fromWire(query(), 'udp', '127.0.0.1', 5353);
  const before = Buffer.from(none.raw);
  none.limitUdpSize(1232);
  assert.equal(none.udpSize, 0);
  assert.equal(none.hasEdns, false);
  assert.deepEqual(none.raw, before);
});

test('isIpv6Text tells the family of every address form Node reports', () => {
  const cases: [address: string, ipv6: boolean][] = [
    ['127.0.0.1', false],
    ['10.255.255.255', false],
    ['0.0.0.0', false],
    ['', false],
    ['::', true],
    ['::1', true],
    ['fe80::1%eth0', true],
    ['2001:db8::1', true],
    ['abcd:ef01::', true],
    ['1:2:3:4:5:6:7:8', true],
    ['::ffff:192.0.2.1', true],
  ];
  for (const [address, ipv6] of cases) {
    assert.equal(isIpv6Text(address), ipv6, address);
    assert.equal(Request.fromWire(query(), 'udp', address, 53).family, ipv6 ? 'IPv6' : 'IPv4', address);
  }
});
