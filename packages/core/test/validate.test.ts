import { test } from 'node:test';
import assert from 'node:assert/strict';
import dnsPacket from 'dns-packet';
import { checkName, validateRecords } from '../src/validate.js';
import { emptyHeader, readQuery, Verdict } from '../src/wire.js';

const question = dnsPacket.encode({ type: 'query', id: 7, flags: dnsPacket.RECURSION_DESIRED, questions: [{ type: 'A', name: 'example.org', class: 'IN' }] });

/** The question above plus raw records, with ANCOUNT/NSCOUNT/ARCOUNT set to the given counts. */
function withRecords(counts: [number, number, number], ...records: Buffer[]): Buffer {
  const wire = Buffer.concat([question, ...records]);
  wire.writeUInt16BE(counts[0], 6);
  wire.writeUInt16BE(counts[1], 8);
  wire.writeUInt16BE(counts[2], 10);
  return wire;
}

/** A record owned by the root name with raw rdata. */
function rr(type: number, rdata: number[] | Buffer, rdlength = rdata.length): Buffer {
  const head = Buffer.alloc(11);
  head.writeUInt16BE(type, 1);
  head.writeUInt16BE(1, 3);
  head.writeUInt16BE(rdlength, 9);
  return Buffer.concat([head, Buffer.from(rdata)]);
}

function opt(...options: [number, number[]][]): Buffer {
  const data = Buffer.concat(options.map(([code, bytes]) => {
    const head = Buffer.alloc(4);
    head.writeUInt16BE(code, 0);
    head.writeUInt16BE(bytes.length, 2);
    return Buffer.concat([head, Buffer.from(bytes)]);
  }));
  const head = Buffer.alloc(11);
  head.writeUInt16BE(41, 1);
  head.writeUInt16BE(1232, 3);
  head.writeUInt16BE(data.length, 9);
  return Buffer.concat([head, data]);
}

const verdict = (wire: Buffer): Verdict => readQuery(wire, emptyHeader());

test('well-formed records in every section are accepted, as miekg/dns unpacks them', () => {
  const cases: [string, Buffer][] = [
    ['A in the answer', withRecords([1, 0, 0], rr(1, [192, 0, 2, 1]))],
    ['empty rdata of any type', withRecords([1, 0, 0], rr(1, []))],
    ['SOA in the authority (IXFR-style query)', withRecords([0, 1, 0], rr(6, [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]))],
    ['MX cut after its first field', withRecords([1, 0, 0], rr(15, [0, 10]))],
    ['TXT with two strings', withRecords([1, 0, 0], rr(16, [1, 97, 2, 98, 99]))],
    ['an unknown type is opaque', withRecords([1, 0, 0], rr(65280, [1, 2, 3]))],
    ['OPT with a cookie and client subnet', withRecords([0, 0, 1], opt([10, [1, 2, 3, 4, 5, 6, 7, 8]], [8, [0, 1, 24, 0, 192, 0, 2]]))],
    ['a name compressed onto the question', withRecords([1, 0, 0], Buffer.from([0xc0, 12, 0, 2, 0, 1, 0, 0, 0, 0, 0, 2, 0xc0, 12]))],
  ];
  for (const [name, wire] of cases) assert.equal(verdict(wire), Verdict.Accept, name);
});

test('a malformed record anywhere in the query gets FORMERR (CoreDNS answers FORMERR)', () => {
  const selfPointer = Buffer.from([0xc0, question.length, 0, 1, 0, 1, 0, 0, 0, 0, 0, 4, 1, 2, 3, 4]);
  const cases: [string, Buffer][] = [
    ['A with rdlength 3', withRecords([1, 0, 0], rr(1, [1, 2, 3]))],
    ['A with rdlength 5', withRecords([1, 0, 0], rr(1, [1, 2, 3, 4, 5]))],
    ['owner name pointing at itself', withRecords([1, 0, 0], selfPointer)],
    ['self pointer in the authority', withRecords([0, 1, 0], selfPointer)],
    ['self pointer in the additional', withRecords([0, 0, 1], selfPointer)],
    ['rdata past the end', withRecords([1, 0, 0], rr(1, [1, 2, 3, 4], 9))],
    ['TXT string past rdlength', withRecords([1, 0, 0], rr(16, [5, 97]))],
    ['CNAME whose name runs past rdlength', withRecords([1, 0, 0], rr(5, [3, 97, 98]))],
    ['reserved label type in rdata', withRecords([1, 0, 0], rr(2, [0x40, 0]))],
    ['NSEC window of 33 octets', withRecords([1, 0, 0], rr(47, [0, 0, 33, ...Buffer.alloc(33, 1)]))],
    ['OPT option past the OPT rdata', withRecords([0, 0, 1], opt([10, [1, 2]]).subarray(0, -1))],
    ['OPT keepalive of 1 octet', withRecords([0, 0, 1], opt([11, [1]]))],
    ['OPT client subnet with family 3', withRecords([0, 0, 1], opt([8, [0, 3, 0, 0]]))],
    ['OPT client subnet /33 for IPv4', withRecords([0, 0, 1], opt([8, [0, 1, 33, 0, 1, 2, 3, 4, 5]]))],
    ['HTTPS with keys out of order', withRecords([1, 0, 0], rr(65, [0, 1, 0, 0, 3, 0, 2, 0, 53, 0, 1, 0, 1, 1, 104]))],
    ['a count larger than the records', withRecords([2, 0, 0], rr(1, [1, 2, 3, 4]))],
  ];
  for (const [name, wire] of cases) assert.equal(verdict(wire), Verdict.FormErr, name);
});

test('a name follows at most 126 pointers and holds at most 255 octets, like UnpackDomainName', () => {
  // A chain of pointers, each to the one before, ending at a root label at offset 0.
  const chain = (n: number): Buffer => {
    const buf = Buffer.alloc(1 + 2 * n);
    for (let i = 0; i < n; i++) {
      const at = 1 + 2 * i;
      const target = i === 0 ? 0 : at - 2;
      buf[at] = 0xc0 | (target >> 8);
      buf[at + 1] = target & 0xff;
    }
    return buf;
  };
  assert.equal(checkName(chain(126), 1 + 2 * 125, 1 + 2 * 126), 1 + 2 * 126);
  assert.equal(checkName(chain(127), 1 + 2 * 126, 1 + 2 * 127), -1);
  const long = (labels: number, size: number): Buffer => Buffer.concat([...Array.from({ length: labels }, () => Buffer.from([size, ...Buffer.alloc(size, 97)])), Buffer.from([0])]);
  assert.equal(checkName(long(4, 62), 0, 1000), 253, '4 x 63 + 1 = 253 octets');
  assert.equal(checkName(Buffer.concat([long(3, 63).subarray(0, -1), long(1, 61)]), 0, 1000), 255);
  assert.equal(checkName(Buffer.concat([long(3, 63).subarray(0, -1), long(1, 62)]), 0, 1000), -1);
  assert.equal(validateRecords(Buffer.alloc(0), 0, 0), true);
});

test('an unreadable question leaves no question end from the query before (found by the request-path fuzzing)', () => {
  const header = emptyHeader();
  assert.equal(readQuery(question, header), Verdict.Accept);
  const notimp = Buffer.from(question);
  notimp[2] = 0x08; // opcode 1
  notimp[12] = 0x7f; // a first label running past the end
  assert.equal(readQuery(notimp, header), Verdict.NotImp);
  assert.equal(header.questionEnd, 12);
});
