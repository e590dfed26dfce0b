import { test } from 'node:test';
import assert from 'node:assert/strict';
import dnsPacket from 'dns-packet';
import type { Packet } from 'dns-packet';
import { checkResponse, formatRr, rr, sortedSection } from '../src/index.js';

test('rr reads zone-file lines; TTL defaults to 3600 and class to IN', () => {
  assert.deepEqual(rr('a.example. 5 IN A 192.0.2.1'), { name: 'a.example.', ttl: 5, class: 'IN', type: 'A', data: '192.0.2.1' });
  assert.deepEqual(rr('a.example. AAAA 2001:db8::1'), { name: 'a.example.', ttl: 3600, class: 'IN', type: 'AAAA', data: '2001:db8::1' });
  assert.deepEqual(rr('version.bind. 0 CH TXT "Foghorn 1" two').data, ['Foghorn 1', 'two']);
  assert.deepEqual(rr('_http._tcp.a.example. 5 IN SRV 0 50 80 web.a.example.').data, { priority: 0, weight: 50, port: 80, target: 'web.a.example.' });
  assert.deepEqual(rr('example. 5 IN SOA ns. host. 1 7200 1800 86400 5').data, { mname: 'ns.', rname: 'host.', serial: 1, refresh: 7200, retry: 1800, expire: 86400, minimum: 5 });
  assert.deepEqual(rr('a.example. 5 IN MX 10 mail.example.').data, { preference: 10, exchange: 'mail.example.' });
  for (const bad of ['', 'a.example. 5 IN', 'a.example. 5 IN SRV 0 50 web.', 'a.example. 5 IN SOA ns. host. x 1 1 1 1', 'a.example. 5 IN NAPTR 1']) {
    assert.throws(() => rr(bad), /^Error: rr: /, bad);
  }
});

test('a record survives the wire: formatRr of the decoded record is the line it was written from', () => {
  const lines = [
    'a.example. 5 IN A 192.0.2.1',
    'a.example. 5 IN AAAA 2001:db8::1',
    'a.example. 5 IN CNAME b.example.',
    'a.example. 5 IN NS ns.example.',
    '1.2.0.192.in-addr.arpa. 5 IN PTR a.example.',
    'a.example. 5 IN MX 10 mail.example.',
    '_x._tcp.a.example. 5 IN SRV 1 2 3 t.example.',
    'a.example. 5 IN TXT "hello world" "a\\"b"',
    'example. 5 IN SOA ns.example. host.example. 1 7200 1800 86400 5',
    'example. 5 IN CAA 0 issue "ca.example"',
    'example. 5 IN DS 12345 8 2 ABCDEF01',
  ];
  const wire = dnsPacket.encode({ type: 'response', id: 1, answers: lines.map(rr) });
  const decoded = dnsPacket.decode(wire);
  assert.deepEqual(decoded.answers?.map(formatRr), lines);
});

test('checkResponse compares rcode, flags and every section sorted, and says which differs', () => {
  const reply = (answers: string[], extra: Partial<Packet> = {}): Packet =>
    dnsPacket.decode(dnsPacket.encode({ type: 'response', id: 1, flags: dnsPacket.AUTHORITATIVE_ANSWER, answers: answers.map(rr), ...extra }));
  const two = reply(['a.example. 5 IN A 192.0.2.2', 'a.example. 5 IN A 192.0.2.1']);
  checkResponse(two, { qname: 'a.example.', qtype: 'A', answer: ['a.example. 5 IN A 192.0.2.1', 'a.example. 5 IN A 192.0.2.2'], flags: { aa: true } });
  assert.throws(() => checkResponse(two, { qname: 'a.example.', qtype: 'A', answer: ['a.example. 5 IN A 192.0.2.1'] }), /a\.example\. A: answer section/);
  assert.throws(() => checkResponse(two, { qname: 'a.example.', qtype: 'A', answer: ['a.example. 6 IN A 192.0.2.1', 'a.example. 5 IN A 192.0.2.2'] }), /answer section/, 'TTLs count');
  assert.throws(() => checkResponse(two, { qname: 'a.example.', qtype: 'A', rcode: 'NXDOMAIN' }), /a\.example\. A: rcode/);
  assert.throws(() => checkResponse(two, { qname: 'a.example.', qtype: 'A', answer: [...sortedSection(two.answers)], flags: { aa: false } }), /flag aa/);
  const withOpt = reply([], {
    authorities: [rr('example. 5 IN SOA ns. host. 1 7200 1800 86400 5')],
    additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 1232, flags: 0 } as never],
  });
  checkResponse(withOpt, { qname: 'nx.example.', qtype: 'A', ns: ['example. 5 IN SOA ns. host. 1 7200 1800 86400 5'] });
  assert.throws(() => checkResponse(withOpt, { qname: 'nx.example.', qtype: 'A' }), /authority section/, 'a section left out must be empty');
});
