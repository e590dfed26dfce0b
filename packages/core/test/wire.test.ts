import { test } from 'node:test';
import assert from 'node:assert/strict';
import dnsPacket from 'dns-packet';
import { emptyHeader, questionEnd, readQuery, skipName, Verdict } from '../src/wire.js';

function query(extra: Partial<dnsPacket.Packet> = {}): Buffer {
  return dnsPacket.encode({ type: 'query', id: 4242, flags: dnsPacket.RECURSION_DESIRED, questions: [{ type: 'AAAA', name: 'Www.Example.org', class: 'IN' }], ...extra });
}

test('a plain query is read without dns-packet: id, name with case, type, class', () => {
  const header = emptyHeader();
  assert.equal(readQuery(query(), header), Verdict.Accept);
  assert.equal(header.id, 4242);
  assert.equal(header.name, 'Www.Example.org.');
  assert.equal(header.lowerName, 'www.example.org.');
  assert.equal(header.qtype, 28);
  assert.equal(header.qclass, 1);
  assert.equal(header.hasEdns, false);
});

test('the lower-case name: converted only when a label has a capital; escapes and other bytes stay', () => {
  const header = emptyHeader();
  const read = (name: string): [string, string] => {
    assert.equal(readQuery(query({ questions: [{ type: 'A', name, class: 'IN' }] }), header), Verdict.Accept);
    return [header.name, header.lowerName];
  };
  assert.deepEqual(read('www.example.org'), ['www.example.org.', 'www.example.org.']);
  assert.deepEqual(read('a.Z'), ['a.Z.', 'a.z.']);
  assert.deepEqual(read('@[`{.x'), ['@[`{.x.', '@[`{.x.'], 'the bytes next to A and Z are not capitals');
  assert.deepEqual(read('wWw.EXAMPLE.org'), ['wWw.EXAMPLE.org.', 'www.example.org.']);
  // The previous name had capitals: the flag belongs to each name.
  assert.deepEqual(read('plain.org'), ['plain.org.', 'plain.org.']);
});

test('the OPT record gives size, version, DO and the options worth echoing', () => {
  const header = emptyHeader();
  const wire = query({
    additionals: [
      {
        type: 'OPT', name: '.', udpPayloadSize: 1232, extendedRcode: 0, ednsVersion: 0, flags: dnsPacket.DNSSEC_OK, flag_do: true,
        options: [{ code: 10, data: Buffer.from('0123456789abcdef', 'hex') }, { code: 8, data: Buffer.from([0, 1, 24, 0, 10, 0, 0]) }] as never,
      },
    ],
  });
  assert.equal(readQuery(wire, header), Verdict.Accept);
  assert.equal(header.udpSize, 1232);
  assert.equal(header.dnssecOk, true);
  assert.deepEqual(header.ednsOptions?.map((o) => o.code), [10], 'COOKIE is echoed, client subnet is not');
});

test('the accept filter drops, refuses or rejects like miekg/dns', () => {
  const header = emptyHeader();
  const cases: [string, Buffer, Verdict][] = [
    ['short header', Buffer.alloc(5), Verdict.Drop],
    ['a response', dnsPacket.encode({ type: 'response', id: 1, questions: [{ type: 'A', name: 'a.', class: 'IN' }] }), Verdict.Drop],
    ['two questions', query({ questions: [{ type: 'A', name: 'a.', class: 'IN' }, { type: 'A', name: 'b.', class: 'IN' }] }), Verdict.FormErr],
    ['no question', query({ questions: [] }), Verdict.FormErr],
    ['two OPT records', query({ additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 512, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] }, { type: 'OPT', name: '.', udpPayloadSize: 512, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] }] }), Verdict.FormErr],
    ['pointer loop', Buffer.concat([query().subarray(0, 12), Buffer.from([0xc0, 12, 0, 1, 0, 1])]), Verdict.FormErr],
    ['forward pointer', Buffer.concat([query().subarray(0, 12), Buffer.from([0xc0, 20, 0, 1, 0, 1])]), Verdict.FormErr],
    ['label past the end', Buffer.concat([query().subarray(0, 12), Buffer.from([40, 97, 0])]), Verdict.FormErr],
    ['name over 255 octets', Buffer.concat([query().subarray(0, 12), ...Array.from({ length: 5 }, () => Buffer.from([63, ...Buffer.alloc(63, 97)])), Buffer.from([0, 0, 1, 0, 1])]), Verdict.FormErr],
  ];
  for (const [name, wire, verdict] of cases) assert.equal(readQuery(wire, header), verdict, name);
  const status = query();
  status[2] = (status[2]! & 0x87) | (2 << 3);
  assert.equal(readQuery(status, header), Verdict.NotImp);
});

test('labels with dots and unprintable bytes are escaped as in zone files', () => {
  const header = emptyHeader();
  const wire = Buffer.concat([query().subarray(0, 12), Buffer.from([3, 0x61, 0x2e, 0x07, 0]), Buffer.from([0, 1, 0, 1])]);
  assert.equal(readQuery(wire, header), Verdict.Accept);
  assert.equal(header.name, 'a\\.\\007.');
});

test('skipName and questionEnd stop at the end of the bytes and reject reserved label types', () => {
  const wire = query();
  // 12-byte header, then 3Www7Example3org0 (17 bytes), then type and class.
  assert.equal(skipName(wire, 12), 29);
  assert.equal(questionEnd(wire), 33);
  assert.equal(skipName(Buffer.from([0xc0, 0x0c]), 0), 2, 'a pointer ends the name without being followed');
  const cases: [string, Buffer][] = [
    ['a label running past the end', Buffer.from([5, 0x61, 0x62])],
    ['no terminating zero', Buffer.from([1, 0x61])],
    ['half a pointer', Buffer.from([1, 0x61, 0xc0])],
    ['reserved label type 0x40', Buffer.from([0x41, 0])],
    ['reserved label type 0x80', Buffer.from([0x81, 0])],
    ['nothing at all', Buffer.alloc(0)],
  ];
  for (const [what, bytes] of cases) assert.equal(skipName(bytes, 0), -1, what);
  assert.equal(questionEnd(wire.subarray(0, 12)), -1, 'a header alone');
  assert.equal(questionEnd(wire.subarray(0, 31)), -1, 'type and class cut off');
  const noQuestion = dnsPacket.encode({ type: 'response', id: 1, questions: [] });
  assert.equal(questionEnd(noQuestion), -1, 'QDCOUNT 0');
});
