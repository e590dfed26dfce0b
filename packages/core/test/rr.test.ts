import { test } from 'node:test';
import assert from 'node:assert/strict';
import dnsPacket from 'dns-packet';
import { parseRR } from '@foghorn/core/wire';

test('records of the supported types read as miekg/dns reads them', () => {
  const rows: [string, unknown][] = [
    ['ip-10-95-12-8.example. 60 IN A 10.95.12.8', { name: 'ip-10-95-12-8.example', ttl: 60, class: 'IN', type: 'A', data: '10.95.12.8' }],
    ['example. IN 60 AAAA 2001:db8::1', { name: 'example', ttl: 60, class: 'IN', type: 'AAAA', data: '2001:db8::1' }],
    // No TTL: 3600; no class: IN; relative names are absolute against the root.
    ['foogle.com CNAME google.com', { name: 'foogle.com', ttl: 3600, class: 'IN', type: 'CNAME', data: 'google.com' }],
    ['8.12.95.10.in-addr.arpa. 60 IN PTR ip-10-95-12-8.example.', { name: '8.12.95.10.in-addr.arpa', ttl: 60, class: 'IN', type: 'PTR', data: 'ip-10-95-12-8.example' }],
    ['example. IN NS ns0.example.com.', { name: 'example', ttl: 3600, class: 'IN', type: 'NS', data: 'ns0.example.com' }],
    ['a.example. 60 MX 10 a.example.', { name: 'a.example', ttl: 60, class: 'IN', type: 'MX', data: { preference: 10, exchange: 'a.example' } }],
    ['_x._tcp.example. 60 IN SRV 0 100 8080 a.example.', { name: '_x._tcp.example', ttl: 60, class: 'IN', type: 'SRV', data: { priority: 0, weight: 100, port: 8080, target: 'a.example' } }],
    ['t.example. 60 CH TXT "hello world" two', { name: 't.example', ttl: 60, class: 'CH', type: 'TXT', data: ['hello world', 'two'] }],
    [
      'invalid. 60 IN SOA ns.invalid. hostmaster.invalid. (1 60 60 60 60)',
      { name: 'invalid', ttl: 60, class: 'IN', type: 'SOA', data: { mname: 'ns.invalid', rname: 'hostmaster.invalid', serial: 1, refresh: 60, retry: 60, expire: 60, minimum: 60 } },
    ],
    ['@ 1h IN NS ns.example. ; a comment', { name: '.', ttl: 3600, class: 'IN', type: 'NS', data: 'ns.example' }],
  ];
  for (const [text, want] of rows) {
    const rr = parseRR(text);
    assert.deepEqual(rr, want, text);
    // And dns-packet can put it on the wire.
    dnsPacket.encode({ type: 'response', answers: [rr] });
  }
});

test('what is not a record is refused in miekg/dns words', () => {
  assert.throws(() => parseRR('test.example.'), { message: 'dns: not a TTL: "test.example." at line: 1:13' });
  assert.throws(() => parseRR('a.example. 60 IN A 10.<no value>.1.2'), { message: /^dns: bad A A: "10.<no"/ });
  assert.throws(() => parseRR('a.example. 60 IN A 2001:db8::1'), { message: /^dns: bad A A/ });
  assert.throws(() => parseRR('a.example. 60 IN MX ten a.example.'), { message: /^dns: bad MX Pref: "ten"/ });
  assert.throws(() => parseRR('a.example. 60 IN HINFO x y'), { message: /unsupported RR type: "HINFO"/ });
  assert.throws(() => parseRR('a..example. 60 IN A 10.0.0.1'), { message: /^dns: bad owner name/ });
  assert.throws(() => parseRR('a.example. 60 IN SOA ns. mbox. 1 2 3'), { message: /^dns: bad SOA missing data/ });
  assert.throws(() => parseRR('a.example. 60 IN TXT "open'), { message: /unterminated string/ });
});

test('A addresses are dotted quads as Go reads them', () => {
  for (const bad of ['10.0.0', '10.0.0.1.2', '256.0.0.1', '01.2.3.4', '1..2.3', '1.2.3.4.', 'a.b.c.d']) {
    assert.throws(() => parseRR(`x. 60 IN A ${bad}`), { message: /^dns: bad A A/ }, bad);
  }
  assert.equal((parseRR('x. 60 IN A 0.0.0.0') as { data: string }).data, '0.0.0.0');
});
