import { test } from 'node:test';
import assert from 'node:assert/strict';
import dnsPacket from 'dns-packet';
import type { Answer, Packet } from 'dns-packet';
import { compressReply } from '../src/compress.js';
import { readName, skipName } from '../src/wire.js';
import { Flags, HEADER_LENGTH } from '../src/constants.js';

const opt = (): Answer => ({ type: 'OPT', name: '.', udpPayloadSize: 1232, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] }) as never;

function reply(extra: Partial<Packet>): Packet {
  return { type: 'response', id: 7, flags: Flags.AA, questions: [{ type: 'A', name: 'www.Example.org', class: 'IN' }], ...extra };
}

/** Every record of every section, decoded. */
function records(wire: Buffer): Answer[][] {
  const msg = dnsPacket.decode(wire);
  return [msg.answers ?? [], msg.authorities ?? [], msg.additionals ?? []];
}

/** Where each name of the message starts: question, owners, and the rdata names of the types the test uses. */
function nameOffsets(wire: Buffer): { at: number; type: number; field: 'owner' | 'rdata' }[] {
  const names: { at: number; type: number; field: 'owner' | 'rdata' }[] = [{ at: HEADER_LENGTH, type: 0, field: 'owner' }];
  let offset = skipName(wire, HEADER_LENGTH) + 4;
  const count = wire.readUInt16BE(6) + wire.readUInt16BE(8) + wire.readUInt16BE(10);
  for (let i = 0; i < count; i++) {
    names.push({ at: offset, type: 0, field: 'owner' });
    const fixed = skipName(wire, offset);
    const type = wire.readUInt16BE(fixed);
    const rdata = fixed + 10;
    const rdataNames: Record<number, [number, number]> = { 5: [0, 1], 2: [0, 1], 12: [0, 1], 15: [2, 1], 6: [0, 2], 33: [6, 1] };
    const layout = rdataNames[type];
    if (layout) {
      let at = rdata + layout[0];
      for (let n = 0; n < layout[1]; n++) {
        names.push({ at, type, field: 'rdata' });
        at = skipName(wire, at);
      }
    }
    offset = rdata + wire.readUInt16BE(fixed + 8);
  }
  assert.equal(offset, wire.length, 'the walk ends at the end of the message');
  return names;
}

/** Pointers in the name at `at` (not followed), with their own offsets. */
function pointers(wire: Buffer, at: number): { from: number; to: number }[] {
  const found: { from: number; to: number }[] = [];
  for (let o = at; wire[o] !== 0; o += wire[o]! + 1) {
    if ((wire[o]! & 0xc0) === 0xc0) {
      found.push({ from: o, to: wire.readUInt16BE(o) & 0x3fff });
      break;
    }
  }
  return found;
}

const mixed = reply({
  answers: [
    { type: 'CNAME', name: 'www.Example.org', ttl: 60, data: 'web.Example.org' },
    { type: 'A', name: 'web.Example.org', ttl: 60, data: '192.0.2.1' },
    { type: 'A', name: 'web.example.org', ttl: 60, data: '192.0.2.2' },
    { type: 'MX', name: 'Example.org', ttl: 60, data: { preference: 10, exchange: 'mail.Example.org' } },
    { type: 'SRV', name: '_sip._udp.Example.org', ttl: 60, data: { priority: 1, weight: 2, port: 5060, target: 'sip.Example.org' } },
    { type: 'SRV', name: '_sip._tcp.Example.org', ttl: 60, data: { priority: 1, weight: 2, port: 5060, target: 'sip.Example.org' } },
    { type: 'TXT', name: 'web.Example.org', ttl: 60, data: ['web.Example.org'] },
    { type: 'AAAA', name: 'sip.Example.org', ttl: 60, data: '2001:db8::1' },
    { type: 'PTR', name: '1.2.0.192.in-addr.arpa', ttl: 60, data: 'web.Example.org' },
  ],
  authorities: [
    { type: 'NS', name: 'Example.org', ttl: 60, data: 'ns1.Example.org' },
    { type: 'SOA', name: 'Example.org', ttl: 60, data: { mname: 'ns1.Example.org', rname: 'hostmaster.Example.org', serial: 1, refresh: 2, retry: 3, expire: 4, minimum: 5 } },
  ],
  additionals: [{ type: 'A', name: 'ns1.Example.org', ttl: 60, data: '192.0.2.53' }, opt()],
});

test('a compressed message decodes to the same records, shorter', () => {
  const wire = dnsPacket.encode(mixed);
  const compressed = compressReply(wire);
  assert.ok(compressed.length < wire.length * 0.7, `${compressed.length} of ${wire.length} bytes`);
  assert.deepEqual(records(compressed), records(wire));
  assert.deepEqual(dnsPacket.decode(compressed).questions, dnsPacket.decode(wire).questions);
  assert.equal(compressed.readUInt16BE(2), wire.readUInt16BE(2), 'flags unchanged: nothing was cut');
  // Compressing again changes nothing: what dns-packet decodes of a pointer is what it points at.
  assert.deepEqual(compressReply(compressed), compressed);
});

test('pointers only point backwards, and only from names miekg/dns compresses', () => {
  const compressed = compressReply(dnsPacket.encode(mixed));
  let seen = 0;
  for (const name of nameOffsets(compressed)) {
    assert.notEqual(readName(compressed, name.at), null, `name at ${name.at} reads`);
    for (const p of pointers(compressed, name.at)) {
      seen++;
      assert.ok(p.to < p.from, `pointer at ${p.from} goes back`);
      assert.notEqual(name.type, 33, 'an SRV target is written in full (RFC 2782)');
    }
  }
  assert.ok(seen >= 15, `${seen} pointers`);
  // The second SRV target is written in full too, though the first one could serve.
  assert.equal(compressed.indexOf(Buffer.from('\x03sip\x07Example\x03org\x00', 'latin1')) >= 0, true);
  // Names that differ in case only are not merged: the second A owner keeps its lower case.
  assert.equal(records(compressed)[0]![2]!.name, 'web.example.org');
});

test('a name written past offset 0x3FFF is never pointed at', () => {
  // 64 strings of 255 bytes put the next records past 16 KiB.
  const big: Answer = { type: 'TXT', name: 'www.Example.org', ttl: 60, data: Array.from({ length: 64 }, () => 'x'.repeat(255)) };
  const far = reply({
    answers: [
      big,
      { type: 'CNAME', name: 'www.Example.org', ttl: 60, data: 'far.away.test' },
      { type: 'A', name: 'far.away.test', ttl: 60, data: '192.0.2.9' },
      { type: 'A', name: 'far.away.test', ttl: 60, data: '192.0.2.10' },
    ],
  });
  const wire = dnsPacket.encode(far);
  const compressed = compressReply(wire);
  assert.ok(compressed.indexOf(Buffer.from('\x03far\x04away\x04test\x00', 'latin1')) > 0x3fff);
  for (const name of nameOffsets(compressed)) {
    for (const p of pointers(compressed, name.at)) assert.ok(p.to < 0x4000 && p.to < p.from);
  }
  // All three names of far.away.test are written in full: 3 × 15 bytes.
  assert.equal(compressed.toString('latin1').split('\x03far\x04away\x04test\x00').length - 1, 3);
  assert.deepEqual(records(compressed), records(wire));
});

test('over the limit, whole records are kept in order, OPT last, and TC is set', () => {
  const answers: Answer[] = Array.from({ length: 50 }, (_, i) => ({ type: 'A', name: 'www.Example.org', ttl: 60, data: `192.0.2.${i}` }));
  const wire = dnsPacket.encode(reply({ answers, additionals: [opt(), { type: 'A', name: 'ns.Example.org', ttl: 1, data: '192.0.2.1' }] }));
  const all = compressReply(wire);
  assert.equal(dnsPacket.decode(all).flag_tc, false);
  assert.deepEqual(dnsPacket.decode(all).additionals?.map((rr) => rr.type), ['A', 'OPT'], 'OPT moves last');
  // Header 12 + question 21 + OPT 11 = 44; each answer 16: 29 answers make 508.
  const cut = compressReply(wire, 512);
  const msg = dnsPacket.decode(cut);
  assert.equal(cut.length, 508);
  assert.equal(msg.flag_tc, true);
  assert.equal(msg.answers?.length, 29);
  const data = (rr: Answer): unknown => (rr as { data?: unknown }).data;
  assert.deepEqual(msg.answers?.map(data), answers.slice(0, 29).map(data));
  assert.deepEqual(msg.additionals?.map((rr) => rr.type), ['OPT']);
});

test('a malformed record ends the message with TC; an unreadable question leaves the header', () => {
  const wire = dnsPacket.encode(reply({ answers: [{ type: 'A', name: 'a.Example.org', ttl: 1, data: '192.0.2.1' }, { type: 'A', name: 'b.Example.org', ttl: 1, data: '192.0.2.2' }] }));
  const broken = Buffer.from(wire);
  broken.writeUInt16BE(9999, wire.length - 6); // the second record's rdlength runs past the end
  const cut = dnsPacket.decode(compressReply(broken));
  assert.equal(cut.flag_tc, true);
  assert.deepEqual(cut.answers?.map((rr) => rr.name), ['a.Example.org']);
  const loop = Buffer.concat([wire.subarray(0, HEADER_LENGTH), Buffer.from([0xc0, 12, 0, 1, 0, 1])]);
  const header = compressReply(loop);
  assert.equal(header.length, HEADER_LENGTH);
  assert.equal(dnsPacket.decode(header).flag_tc, true);
  assert.equal(header.readUInt16BE(4), 0);
});

/*
 * How many records fit in 512 bytes and in a 1232-byte EDNS limit, compared with miekg/dns's
 * `Msg.Truncate` (msg_truncate.go), whose sizes are written out here from its rules:
 * - header 12; the question is its name in full plus type and class (4);
 * - an owner equal to an earlier name is a 2-byte pointer; type, class, TTL, rdlength take 10;
 * - an SRV target is never compressed (RFC 2782) but later names may point at it;
 * - OPT (root owner, no options) takes 11 bytes and its room is kept before any record;
 * - records are added in order until the first one that does not fit.
 * Cross-checked with miekg/dns v1.1 (Debian's golang-github-miekg-dns-dev) calling Truncate on
 * the same messages: A ×100 → 28 at 512, 72 at 1232; SRV+glue ×16 → 7 SRV at 512, 16 SRV and
 * 11 A at 1232.
 */
const zone = 'headless.default.svc.cluster.local'; // wire length 36 with the root
const ednsOpt = (): Answer => ({ ...opt(), udpPayloadSize: 1232 }) as never;

/** Records miekg keeps: as many as fit after `fixed` bytes, each `size` bytes, within `limit`. */
function miekgFits(limit: number, fixed: number, size: number, count: number): number {
  return Math.min(count, Math.floor((limit - fixed) / size));
}

function kept(wire: Buffer, limit: number): { answers: number; glue: number; tc: boolean } {
  const msg = dnsPacket.decode(compressReply(wire, limit));
  const glue = (msg.additionals ?? []).filter((rr) => rr.type !== 'OPT').length;
  return { answers: msg.answers?.length ?? 0, glue, tc: msg.flag_tc };
}

test('A records of a headless service: as many fit as miekg/dns fits', () => {
  const name = `endpoints.${zone}`; // 10 + 36 = 46 bytes
  const question = 46 + 4;
  const record = 2 + 10 + 4; // pointer to the question, fixed fields, IPv4 address
  const answers = (): Answer[] => Array.from({ length: 100 }, (_, i) => ({ type: 'A', name, ttl: 5, data: `10.0.${i >> 8}.${i & 255}` }));
  const plain = dnsPacket.encode(reply({ questions: [{ type: 'A', name, class: 'IN' }], answers: answers() }));
  const edns = dnsPacket.encode(reply({ questions: [{ type: 'A', name, class: 'IN' }], answers: answers(), additionals: [ednsOpt()] }));
  assert.equal(miekgFits(512, 12 + question, record, 100), 28);
  assert.equal(miekgFits(1232, 12 + question + 11, record, 100), 72);
  assert.deepEqual(kept(plain, 512), { answers: 28, glue: 0, tc: true });
  assert.deepEqual(kept(edns, 1232), { answers: 72, glue: 0, tc: true });
});

test('SRV with glue: as many SRV and A records fit as miekg/dns fits', () => {
  const qname = `_http._tcp.${zone}`; // 6 + 5 + 36 = 47 bytes
  const question = 47 + 4;
  const target = (i: number): string => `ep-${String(i).padStart(3, '0')}.${zone}`; // 7 + 36 = 43 bytes
  const srv = 2 + 10 + 6 + 43; // owner pointer, fixed fields, priority/weight/port, target in full
  const glue = 2 + 10 + 4; // owner points at the SRV target
  const message = (n: number, additionals: Answer[]): Buffer =>
    dnsPacket.encode(
      reply({
        questions: [{ type: 'SRV', name: qname, class: 'IN' }],
        answers: Array.from({ length: n }, (_, i): Answer => ({ type: 'SRV', name: qname, ttl: 5, data: { priority: 0, weight: 100, port: 80, target: target(i) } })),
        additionals: [...Array.from({ length: n }, (_, i): Answer => ({ type: 'A', name: target(i), ttl: 5, data: `10.0.0.${i}` })), ...additionals],
      }),
    );
  // 16 endpoints: at 512 only SRV records fit; at 1232 all 16 SRV and then as much glue as fits.
  const fixed512 = 12 + question;
  const fixed1232 = 12 + question + 11;
  assert.equal(miekgFits(512, fixed512, srv, 16), 7);
  assert.equal(miekgFits(1232, fixed1232, srv, 16), 16);
  assert.equal(miekgFits(1232, fixed1232 + 16 * srv, glue, 16), 11);
  assert.deepEqual(kept(message(16, []), 512), { answers: 7, glue: 0, tc: true });
  assert.deepEqual(kept(message(16, [ednsOpt()]), 1232), { answers: 16, glue: 11, tc: true });
  // 10 endpoints fit whole once compressed (844 bytes), though dns-packet writes 1564.
  const ten = message(10, [ednsOpt()]);
  assert.ok(ten.length > 1232);
  assert.equal(fixed1232 + 10 * (srv + glue), 844);
  assert.equal(compressReply(ten, 1232).length, 844);
  assert.deepEqual(kept(ten, 1232), { answers: 10, glue: 10, tc: false });
});
