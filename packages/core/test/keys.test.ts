import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isSubdomain, matchZone, parseServerKey } from '../src/keys.js';

test('server keys are normalised to dns://zone:port', () => {
  const cases: [string, string[]][] = [
    ['example.org', ['dns://example.org.:53']],
    ['Example.ORG.', ['dns://example.org.:53']],
    ['dns://example.org:1053', ['dns://example.org.:1053']],
    ['.', ['dns://.:53']],
    ['.:0053', ['dns://.:53']],
    ['10.0.0.0/8', ['dns://10.in-addr.arpa.:53']],
    ['10.0.0.0/24:1053', ['dns://0.0.10.in-addr.arpa.:1053']],
    ['10.1.0.0/17', Array.from({ length: 128 }, (_, i) => `dns://${i}.1.10.in-addr.arpa.:53`)],
    ['2001:db8::/32', ['dns://8.b.d.0.1.0.0.2.ip6.arpa.:53']],
    ['2001:db8::/30', ['8', '9', 'a', 'b'].map((nibble) => `dns://${nibble}.b.d.0.1.0.0.2.ip6.arpa.:53`)],
    ['tls://example.org', ['tls://example.org.:853']],
    ['tls://.:5553', ['tls://.:5553']],
    ['https://example.org', ['https://example.org.:443']],
    ['https://10.0.0.0/8:8443', ['https://10.in-addr.arpa.:8443']],
  ];
  for (const [key, expected] of cases) {
    assert.deepEqual(parseServerKey(key, 53).map((k) => k.canonical), expected, key);
  }
  assert.equal(parseServerKey('10.0.0.0/27', 53).length, 32);
  assert.equal(parseServerKey('10.0.0.0/27', 53)[31]!.zone, '31.0.0.10.in-addr.arpa.');
  // -dns.port is the default of dns:// keys only.
  assert.equal(parseServerKey('tls://.', 1053)[0]!.port, 853);
  assert.equal(parseServerKey('https://.', 1053)[0]!.transport, 'https');
});

test('bad keys are refused with CoreDNS wording', () => {
  const cases: [string, RegExp][] = [
    ['example.org:', /expecting data after last colon: "example.org:"/],
    [':1053', /zone is not a valid domain name: $/],
    ['grpc://example.org', /grpc:\/\/ server blocks are not supported yet/],
    ['quic://example.org', /quic:\/\/ server blocks are not supported yet/],
    ['https3://example.org', /https3:\/\/ server blocks are not supported yet/],
    ['10.0.0.0/33', /invalid CIDR 10.0.0.0\/33/],
    ['example.org:70000', /invalid port '70000'/],
  ];
  for (const [key, message] of cases) assert.throws(() => parseServerKey(key, 53), message, key);
});

test('zone matching is by whole labels and picks the longest zone', () => {
  assert.equal(isSubdomain('a.example.org.', 'example.org.'), true);
  assert.equal(isSubdomain('aexample.org.', 'example.org.'), false);
  assert.equal(isSubdomain('example.org.', 'example.org.'), true);
  assert.equal(isSubdomain('anything.', '.'), true);
  assert.equal(matchZone(['org.', 'example.org.', '.'], 'www.example.org.'), 'example.org.');
  assert.equal(matchZone(['example.org.'], 'example.net.'), undefined);
});
