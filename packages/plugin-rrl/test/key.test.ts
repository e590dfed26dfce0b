/**
 * What a reply is accounted under: the client's prefix, the category read from the reply (the
 * same from a message object and from its wire bytes, as a cache hit writes it), and the name.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import dnsPacket from 'dns-packet';
import type { Packet } from 'dns-packet';
import { Category, classifyMessage, classifyWire, formatPrefix, hashName, hashWireName, PrefixReader } from '../src/key.js';
import type { Classified } from '../src/key.js';

const soa = { name: 'example.org', type: 'SOA', ttl: 60, data: { mname: 'ns.example.org', rname: 'hostmaster.example.org', serial: 1, refresh: 7200, retry: 3600, expire: 1209600, minimum: 60 } } as const;

function reply(rcode: number, sections: Partial<Pick<Packet, 'answers' | 'authorities'>>): Packet {
  return { type: 'response', id: 1, flags: rcode, questions: [{ name: 'www.example.org', type: 'A', class: 'IN' }], ...sections };
}

const cases: { title: string; msg: Packet; category: Category; name: number }[] = [
  { title: 'answers', msg: reply(0, { answers: [{ name: 'www.example.org', type: 'A', ttl: 5, data: '192.0.2.1' }] }), category: Category.response, name: 0 },
  {
    title: 'answers with NXDOMAIN (a CNAME to nowhere)',
    msg: reply(3, { answers: [{ name: 'www.example.org', type: 'CNAME', ttl: 5, data: 'gone.example.org' }], authorities: [soa] }),
    category: Category.response,
    name: 0,
  },
  { title: 'NXDOMAIN under a zone', msg: reply(3, { authorities: [soa] }), category: Category.nxdomain, name: hashName('example.org.') },
  { title: 'NXDOMAIN without authority', msg: reply(3, {}), category: Category.nxdomain, name: 0 },
  {
    title: 'a referral',
    msg: reply(0, { authorities: [{ name: 'Sub.Example.org', type: 'NS', ttl: 5, data: 'ns.sub.example.org' }] }),
    category: Category.referral,
    name: hashName('sub.example.org.'),
  },
  { title: 'NODATA', msg: reply(0, { authorities: [soa] }), category: Category.nodata, name: 0 },
  { title: 'an empty NOERROR', msg: reply(0, {}), category: Category.nodata, name: 0 },
  { title: 'SERVFAIL', msg: reply(2, {}), category: Category.error, name: 0 },
  { title: 'REFUSED', msg: reply(5, {}), category: Category.error, name: 0 },
];

for (const c of cases) {
  test(`${c.title} is ${['response', 'nodata', 'nxdomain', 'referral', 'error'][c.category]}, from the message and from its bytes`, () => {
    const out: Classified = { category: Category.error, name: -1 };
    assert.deepEqual({ ...classifyMessage(c.msg, out) }, { category: c.category, name: c.name });
    assert.deepEqual({ ...classifyWire(dnsPacket.encode(c.msg), out) }, { category: c.category, name: c.name });
  });
}

test('a name hashes alike whatever its case, its trailing dot and its encoding', () => {
  const h = hashName('www.example.org.');
  assert.equal(hashName('WWW.Example.ORG'), h);
  const wire = Buffer.from([3, ...Buffer.from('www'), 7, ...Buffer.from('example'), 3, ...Buffer.from('org'), 0]);
  assert.equal(hashWireName(wire, 0), h);
  // A compression pointer to a name earlier in the message.
  const compressed = Buffer.concat([Buffer.from([7]), Buffer.from('example'), Buffer.from([3]), Buffer.from('ORG'), Buffer.from([0, 3]), Buffer.from('www'), Buffer.from([0xc0, 0])]);
  assert.equal(hashWireName(compressed, 13), h);
  assert.notEqual(hashName('www.example.net.'), h);
  assert.equal(hashName('.'), hashWireName(Buffer.from([0]), 0));
});

test('a compression loop in a reply ends the name hash instead of spinning', () => {
  const loop = Buffer.from([0xc0, 0]);
  assert.equal(typeof hashWireName(loop, 0), 'number');
});

test('client addresses become their /24 and /56 prefixes; IPv4-mapped counts as IPv4', () => {
  const reader = new PrefixReader(24, 56);
  const prefix = (address: string): string | null =>
    reader.read(address) ? formatPrefix(reader.family, reader.w0, reader.w1, reader.w2, reader.w3, reader.family === 4 ? 24 : 56) : null;
  assert.equal(prefix('127.1.0.5'), '127.1.0.0/24');
  assert.equal(prefix('192.0.2.255'), '192.0.2.0/24');
  assert.equal(prefix('::ffff:127.1.0.9'), '127.1.0.0/24');
  assert.equal(prefix('2001:db8:1:2ff::1'), '2001:db8:1:200::/56');
  assert.equal(prefix('fe80::1%eth0'), 'fe80::/56');
  assert.equal(prefix('::1'), '::/56');
  assert.equal(prefix('not an address'), null);
  const host = new PrefixReader(32, 128);
  host.read('2001:db8::7');
  assert.equal(formatPrefix(6, host.w0, host.w1, host.w2, host.w3, 128), '2001:db8::7/128');
});
