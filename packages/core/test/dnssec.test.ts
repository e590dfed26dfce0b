import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Answer } from 'dns-packet';
import { canonicalRecord, canonicalRRset, formatRR, keyTag } from '../src/index-wire.js';

test('keyTag gives the tags of the RFCs example keys (RFC 4034 Appendix B)', () => {
  const key = (base64: string): Buffer => Buffer.from(base64, 'base64');
  // RFC 6605 §6.1 and §6.2, RFC 8080 §6.1.
  assert.equal(keyTag(257, 13, key('GojIhhXUN/u4v54ZQqGSnyhWJwaubCvTmeexv7bR6edbkrSqQpF64cYbcB7wNcP+e+MAnLr+Wi9xMWyQLc8NAA==')), 55648);
  assert.equal(keyTag(257, 14, key('xKYaNhWdGOfJ+nPrL8/arkwf2EY3MDJ+SErKivBVSum1w/egsXvSADtNJhyem5RCOpgQ6K8X1DRSEkrbYQ+OB+v8/uX45NBwY8rp65F6Glur8I/mlVNgF6W/qTI37m40')), 10771);
  assert.equal(keyTag(257, 15, key('l02Woi0iS8Aa25FQkUd9RMzZHJpBoRQwAQEX1SxZJA4=')), 3613);
  // An odd-length key (RSA): its last byte counts high.
  assert.equal(keyTag(256, 5, key('AwEAAcFpDv+Cb23kFJowu+VU++b2N1uEHi6Ll9H0BzLasFOdJjEEclCOq/KlD4682vOMXxJNN8ZwOyiCa7Y0TEYqSwWvhHyn3bHCwuy4I6fss4Wd7Y9dU+6QTgJ8LimGG40Iizjc9zqoU8Q+q81vIukpYWOHioHoY7hsWBvSRSlzDJk3')), 45330);
});

test('canonicalRecord lower-cases the owner and the names in rdata of the listed types, and states the original TTL', () => {
  const wire = canonicalRecord({ name: 'WWW.Example.ORG', type: 'MX', ttl: 17, class: 'IN', data: { preference: 10, exchange: 'Mail.Example.ORG' } }, 3600);
  const expected = Buffer.concat([
    Buffer.from('\x03www\x07example\x03org\x00', 'latin1'),
    Buffer.from([0, 15, 0, 1, 0, 0, 0x0e, 0x10, 0, 20, 0, 10]),
    Buffer.from('\x04mail\x07example\x03org\x00', 'latin1'),
  ]);
  assert.deepEqual(wire, expected);
  // SRV: the target after priority, weight and port; the port's bytes stay as they are.
  const srv = canonicalRecord({ name: '_x._tcp.example.org', type: 'SRV', ttl: 1, class: 'IN', data: { priority: 0, weight: 0, port: 0x4142, target: 'A.example.org' } }, 60);
  assert.equal(srv.subarray(-21).toString('latin1'), '\x00\x00\x00\x00\x41\x42\x01a\x07example\x03org\x00');
  // NSEC's next name keeps its case (RFC 6840 §5.1); TXT is data, never a name.
  const nsec = canonicalRecord({ name: 'A.example.org', type: 'NSEC', ttl: 1, class: 'IN', data: { nextDomain: 'B.example.org', rrtypes: ['A'] } }, 60);
  assert.ok(nsec.includes(Buffer.from('\x01B\x07example', 'latin1')));
  assert.ok(nsec.subarray(0, 3).equals(Buffer.from('\x01a\x07', 'latin1')));
  const txt = canonicalRecord({ name: 'example.org', type: 'TXT', ttl: 1, class: 'IN', data: [Buffer.from('ABC')] }, 60);
  assert.equal(txt.subarray(-3).toString(), 'ABC');
});

test('canonicalRRset sorts by rdata as unsigned bytes and drops duplicates (RFC 4034 §6.3)', () => {
  const a = (address: string, name = 'example.org'): Answer => ({ name, type: 'A', ttl: 5, class: 'IN', data: address });
  const rdatas = (wire: Buffer): string[] => {
    const records: string[] = [];
    for (let at = 0; at < wire.length; at += 13 + 10 + 4) records.push([...wire.subarray(at + 23, at + 27)].join('.'));
    return records;
  };
  assert.deepEqual(rdatas(canonicalRRset([a('192.0.2.10'), a('192.0.2.9'), a('10.0.0.1'), a('192.0.2.9', 'EXAMPLE.org')], 3600)), ['10.0.0.1', '192.0.2.9', '192.0.2.10']);
  // Rdata that is a prefix of another sorts first (absent octets before zero): "a" < "a" "b" < "b".
  const txt = (...strings: string[]): Answer => ({ name: 'example.org', type: 'TXT', ttl: 5, class: 'IN', data: strings.map((text) => Buffer.from(text)) });
  const set = canonicalRRset([txt('b'), txt('a', 'b'), txt('a')], 60).toString('latin1');
  const one = '\x00\x10\x00\x01\x00\x00\x00\x3c';
  assert.deepEqual([set.indexOf(`${one}\x00\x02\x01a`), set.indexOf(`${one}\x00\x04\x01a\x01b`), set.indexOf(`${one}\x00\x02\x01b`)].map((at, i, all) => at >= 0 && (i === 0 || at > all[i - 1]!)), [true, true, true]);
});

test('formatRR prints DNSKEY, RRSIG and NSEC, control bytes in names as \\DDD', () => {
  assert.equal(formatRR({ name: 'example.org', type: 'DNSKEY', ttl: 3600, class: 'IN', data: { flags: 257, algorithm: 13, key: Buffer.from([1, 2, 3]) } }), 'example.org. 3600 IN DNSKEY 257 3 13 AQID');
  assert.equal(
    formatRR({ name: 'a.example.org', type: 'RRSIG', ttl: 60, class: 'IN', data: { typeCovered: 'A', algorithm: 13, labels: 3, originalTTL: 3600, expiration: 1283083479, inception: 1281355479, keyTag: 55648, signersName: 'example.org', signature: Buffer.from([1, 2, 3]) } }),
    'a.example.org. 60 IN RRSIG A 13 3 3600 20100829120439 20100809120439 55648 example.org. AQID',
  );
  assert.equal(formatRR({ name: 'nx.example.org', type: 'NSEC', ttl: 60, class: 'IN', data: { nextDomain: '\u0000.nx.example.org', rrtypes: ['A', 'RRSIG', 'NSEC', 'UNKNOWN_61'] } }), 'nx.example.org. 60 IN NSEC \\000.nx.example.org. A RRSIG NSEC TYPE61');
});
