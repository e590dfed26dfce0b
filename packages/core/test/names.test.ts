import { test } from 'node:test';
import assert from 'node:assert/strict';
import dnsPacket from 'dns-packet';
import { encodeName, nameLength, QUESTION_POINTER, questionOwned, writeAnswerHead, writeName } from '../src/names.js';
import { readName } from '../src/wire.js';

test('names are written as labels, with or without the trailing dot, escapes resolved', () => {
  assert.deepEqual(encodeName('www.example.org.'), Buffer.from('\x03www\x07example\x03org\x00', 'latin1'));
  assert.deepEqual(encodeName('www.example.org'), encodeName('www.example.org.'));
  assert.deepEqual(encodeName('.'), Buffer.from([0]));
  // readName's escapes come back as the octets they stand for.
  assert.deepEqual(encodeName('a\\.b.c.'), Buffer.from('\x03a.b\x01c\x00', 'latin1'));
  assert.deepEqual(encodeName('\\065\\\\.'), Buffer.from('\x02A\\\x00', 'latin1'));
  assert.equal(readName(encodeName('a\\.b\\032c.d.')!, 0), 'a\\.b\\032c.d.');
  // Go strings are UTF-8: so are labels written from text.
  assert.deepEqual(encodeName('é.'), Buffer.from([2, 0xc3, 0xa9, 0]));
  for (const name of ['www.example.org.', 'a\\.b.c', 'é.x.', '.']) assert.equal(nameLength(name), encodeName(name)!.length, name);
});

test('what is no domain name is refused: empty labels, labels over 63 octets, names over 255', () => {
  for (const bad of ['', 'a..b.', '.a.', `${'x'.repeat(64)}.org.`, 'a\\256.', 'a\\']) {
    assert.equal(encodeName(bad), undefined, bad);
    assert.equal(nameLength(bad), -1, bad);
    assert.throws(() => writeName(Buffer.alloc(300), 0, bad), RangeError, bad);
  }
  const long = `${Array.from({ length: 5 }, () => 'y'.repeat(60)).join('.')}.`;
  assert.equal(encodeName(long), undefined, 'over 255 octets');
  // Measured and written as it is, for answers that must keep what the data says.
  assert.equal(nameLength(long), 306);
  const out = Buffer.alloc(306);
  assert.equal(writeName(out, 0, long), 306);
});

test('writeName writes in place and returns the offset after the name', () => {
  const out = Buffer.alloc(32, 0xff);
  assert.equal(writeName(out, 3, 'ab.c'), 3 + 6);
  assert.deepEqual(out.subarray(3, 9), Buffer.from('\x02ab\x01c\x00', 'latin1'));
  assert.equal(out[2], 0xff);
  assert.equal(out[9], 0xff);
});

test('answers owned by the question point at offset 12 and decode as the question name', () => {
  assert.equal(QUESTION_POINTER, 0xc00c);
  const query = dnsPacket.encode({ type: 'query', id: 1, questions: [{ type: 'A', name: 'Www.Example.org' }] });
  const head = Buffer.from(query);
  head.writeUInt16BE(0x8400, 2);
  head.writeUInt16BE(2, 6);
  const a = Buffer.alloc(16);
  const rdata = writeAnswerHead(a, 0, 1, 300, 4);
  assert.equal(rdata, 12);
  a.set([192, 0, 2, 1], rdata);
  const txt = questionOwned({ type: 'TXT', name: 'ignored.example.', ttl: 60, data: 'hi' });
  const reply = dnsPacket.decode(Buffer.concat([head, a, txt]));
  assert.deepEqual(
    reply.answers?.map((rr) => [rr.name, rr.type, (rr as { ttl?: number }).ttl]),
    [
      ['Www.Example.org', 'A', 300],
      ['Www.Example.org', 'TXT', 60],
    ],
  );
  assert.equal((reply.answers?.[0] as { data: string }).data, '192.0.2.1');
});
