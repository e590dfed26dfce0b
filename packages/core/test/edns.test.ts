import { test } from 'node:test';
import assert from 'node:assert/strict';
import dnsPacket from 'dns-packet';
import type { OptAnswer, Packet } from 'dns-packet';
import { EDNS_OPTION_EDE, edeOption, replyOpt, withReplyOption } from '../src/edns.js';
import { Request } from '../src/request.js';
import { encodeReply, replyTo } from '../src/response.js';

function request(edns: { udpSize: number; dnssecOk: boolean } | null): Request {
  const packet: Packet = { type: 'query', id: 7, flags: dnsPacket.RECURSION_DESIRED, questions: [{ name: 'example.org', type: 'A', class: 'IN' }] };
  if (edns !== null) {
    packet.additionals = [
      { type: 'OPT', name: '.', udpPayloadSize: edns.udpSize, extendedRcode: 0, ednsVersion: 0, flags: edns.dnssecOk ? dnsPacket.DNSSEC_OK : 0, flag_do: edns.dnssecOk, options: [] },
    ];
  }
  return Request.fromWire(dnsPacket.encode(packet), 'udp', '127.0.0.1', 5300);
}

function decodedOpt(wire: Buffer): OptAnswer {
  const opt = dnsPacket.decode(wire).additionals?.find((rr) => rr.type === 'OPT');
  assert.ok(opt, 'the reply carries an OPT record');
  return opt as OptAnswer;
}

test("a reply's OPT echoes the client's UDP size and DO bit, at version 0 with no options", () => {
  const opt = replyOpt(request({ udpSize: 1232, dnssecOk: true }));
  assert.equal(opt.name, '.');
  assert.equal(opt.udpPayloadSize, 1232);
  assert.equal(opt.ednsVersion, 0);
  assert.equal(opt.extendedRcode, 0);
  assert.equal(opt.flags, dnsPacket.DNSSEC_OK);
  assert.deepEqual(opt.options, []);
  assert.equal(replyOpt(request({ udpSize: 4096, dnssecOk: false })).flags, 0);
});

test('an Extended DNS Error option is the 16-bit info code followed by the extra text', () => {
  assert.deepEqual(edeOption(15), { code: EDNS_OPTION_EDE, data: Buffer.from([0, 15]) });
  assert.deepEqual(edeOption(0x0102, 'no'), { code: 15, data: Buffer.from([1, 2, 0x6e, 0x6f]) });
});

test('an extended error put in a reply reaches the client with the DO bit and size of its query', () => {
  const req = request({ udpSize: 1400, dnssecOk: true });
  const msg = replyTo(req, 5);
  msg.additionals = [replyOpt(req, { options: [edeOption(15)] })];
  const opt = decodedOpt(encodeReply(req, msg));
  assert.equal(opt.udpPayloadSize, 1400);
  assert.equal(opt.flags, dnsPacket.DNSSEC_OK);
  assert.deepEqual(
    opt.options.map((o) => [o.code, Buffer.from(o.data ?? []).toString('hex')]),
    [[15, '000f']],
  );
});

test('the writer adds an OPT only to replies to queries that had one', () => {
  const plain = request(null);
  assert.equal(dnsPacket.decode(encodeReply(plain, replyTo(plain))).additionals?.length ?? 0, 0);
  const edns = request({ udpSize: 2048, dnssecOk: false });
  const opt = decodedOpt(encodeReply(edns, replyTo(edns)));
  assert.equal(opt.udpPayloadSize, 2048);
  assert.equal(opt.flags, 0);
});

/** An encoded reply to example.org A with one answer, `additionals` after it. */
function encodedReply(additionals: Packet['additionals']): Buffer {
  return dnsPacket.encode({
    type: 'response',
    id: 9,
    flags: 0x8180,
    questions: [{ name: 'example.org', type: 'A', class: 'IN' }],
    answers: [{ type: 'A', name: 'example.org', ttl: 60, data: '192.0.2.1' }],
    additionals,
  });
}
const nsid = { code: 3, data: Buffer.from('ns1') };
const optionsOf = (wire: Buffer): [number, string][] =>
  ((decodedOpt(wire).options ?? []) as unknown as { code: number; data: Buffer }[]).map((o) => [o.code, Buffer.from(o.data).toString()]);

test('withReplyOption adds an OPT record with the option to a reply without one', () => {
  const wire = withReplyOption(encodedReply([{ type: 'A', name: 'ns.example.org', ttl: 60, data: '192.0.2.53' }]), nsid, 4096, true)!;
  const decoded = dnsPacket.decode(wire);
  assert.equal(decoded.answers?.length, 1);
  assert.deepEqual(decoded.additionals?.map((rr) => rr.type), ['A', 'OPT']);
  assert.equal(decodedOpt(wire).udpPayloadSize, 4096);
  assert.equal(decodedOpt(wire).flag_do, true);
  assert.deepEqual(optionsOf(wire), [[3, 'ns1']]);
});

test('withReplyOption appends the option to an OPT record, or replaces one of the same code where it stands', () => {
  const opt = (options: { code: number; data: Buffer }[]): OptAnswer =>
    ({ type: 'OPT', name: '.', udpPayloadSize: 1232, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options }) as unknown as OptAnswer;
  const cookie = { code: 10, data: Buffer.from('cookie00') };
  const appended = withReplyOption(encodedReply([opt([cookie])]), nsid, 4096, false)!;
  assert.deepEqual(optionsOf(appended), [[10, 'cookie00'], [3, 'ns1']]);
  // The OPT's own size is kept: the scrub, not this, decides it.
  assert.equal(decodedOpt(appended).udpPayloadSize, 1232);
  const replaced = withReplyOption(encodedReply([opt([{ code: 3, data: Buffer.from('upstream') }, cookie])]), nsid, 4096, false)!;
  assert.deepEqual(optionsOf(replaced), [[3, 'ns1'], [10, 'cookie00']]);
});

test('withReplyOption gives null for a reply whose records cannot be walked', () => {
  const wire = encodedReply([]);
  assert.equal(withReplyOption(wire.subarray(0, wire.length - 3), nsid, 1232, false), null);
  assert.equal(withReplyOption(Buffer.from([0, 9, 0x81, 0x80, 0, 0, 0, 0, 0, 0, 0, 0]), nsid, 1232, false), null);
});
