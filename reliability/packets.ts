/**
 * Real queries and the ways an attacker mutates them, as fast-check arbitraries: the input of
 * the request-path property tests (reliability/test/request-path.test.ts) and of `npm run fuzz`.
 *
 * Each mutated packet carries its class, so a failure names what kind of input caused it, and
 * whether the server must answer it: a datagram shorter than a header or with QR=1 is dropped
 * silently (miekg/dns's accept filter), everything else gets a reply of some rcode.
 */
import dnsPacket from 'dns-packet';
import type { Packet, RecordType } from 'dns-packet';
import fc from 'fast-check';

/** Names served by Corefile.example: whoami for `.`, lighthouse for clusterset.local. */
export const servedNames: readonly string[] = [
  'whoami.example.org',
  'checkout.shop.svc.clusterset.local',
  'cluster2.checkout.shop.svc.clusterset.local',
  'web.shop.svc.clusterset.local',
  'db-0.cluster1.db.shop.svc.clusterset.local',
  'missing.shop.svc.clusterset.local',
  '_http._tcp.web.shop.svc.clusterset.local',
  '10.0.96.10.in-addr.arpa',
  'clusterset.local',
  '.',
];

const types = ['A', 'AAAA', 'SRV', 'PTR', 'TXT', 'SOA', 'NS', 'MX', 'ANY', 'CNAME', 'DS', 'DNSKEY', 'HTTPS'] as unknown as readonly RecordType[];

/** One well-formed query as a resolver or stub sends it: with or without EDNS, cookies, DO. */
export const realQuery: fc.Arbitrary<Buffer> = fc
  .record({
    id: fc.integer({ min: 0, max: 0xffff }),
    name: fc.constantFrom(...servedNames),
    type: fc.constantFrom(...types),
    rd: fc.boolean(),
    cd: fc.boolean(),
    edns: fc.option(
      fc.record({
        size: fc.constantFrom(512, 1232, 4096, 65535, 0),
        dnssecOk: fc.boolean(),
        cookie: fc.boolean(),
        subnet: fc.boolean(),
      }),
      { nil: undefined },
    ),
    case0x20: fc.boolean(),
  })
  .map(({ id, name, type, rd, cd, edns, case0x20 }) => {
    const packet: Packet = {
      type: 'query',
      id,
      flags: (rd ? dnsPacket.RECURSION_DESIRED : 0) | (cd ? dnsPacket.CHECKING_DISABLED : 0),
      questions: [{ name: case0x20 ? mixCase(name) : name, type, class: 'IN' }],
    };
    if (edns) {
      const options: { code: number; data: Buffer }[] = [];
      if (edns.cookie) options.push({ code: 10, data: Buffer.from('0123456789abcdef', 'hex') });
      if (edns.subnet) options.push({ code: 8, data: Buffer.from([0, 1, 24, 0, 192, 0, 2]) });
      packet.additionals = [
        { type: 'OPT', name: '.', udpPayloadSize: edns.size, extendedRcode: 0, ednsVersion: 0, flags: edns.dnssecOk ? dnsPacket.DNSSEC_OK : 0, flag_do: edns.dnssecOk, options: options as never },
      ];
    }
    return dnsPacket.encode(packet);
  });

function mixCase(name: string): string {
  let out = '';
  for (let i = 0; i < name.length; i++) out += i % 3 === 0 ? name[i]!.toUpperCase() : name[i];
  return out;
}

/** The classes of mutation; every fuzz report counts by these. */
export type MutationClass =
  | 'real'
  | 'bitflip'
  | 'truncate'
  | 'countLie'
  | 'pointerLoop'
  | 'labelOverflow'
  | 'badOpt'
  | 'multipleOpt'
  | 'oddClassType'
  | 'response'
  | 'opcode'
  | 'extraRecord'
  | 'random';

export interface Mutated {
  readonly kind: MutationClass;
  readonly wire: Buffer;
}

/** True when the server must answer (miekg/dns drops a short header or a response). */
export function expectsReply(wire: Uint8Array): boolean {
  return wire.length >= 12 && (wire[2]! & 0x80) === 0;
}

const u16 = (buf: Buffer, at: number, value: number): void => {
  if (at + 2 <= buf.length) buf.writeUInt16BE(value & 0xffff, at);
};

/** Offset just past the question name (the first name after the header), or the length. */
function questionNameEnd(wire: Buffer): number {
  let at = 12;
  while (at < wire.length) {
    const length = wire[at]!;
    if (length === 0) return at + 1;
    if ((length & 0xc0) === 0xc0) return at + 2;
    at += 1 + length;
  }
  return wire.length;
}

const mutators: Record<Exclude<MutationClass, 'random'>, (base: fc.Arbitrary<Buffer>) => fc.Arbitrary<Buffer>> = {
  real: (base) => base,
  bitflip: (base) =>
    fc.tuple(base, fc.array(fc.nat(), { minLength: 1, maxLength: 8 })).map(([wire, bits]) => {
      const out = Buffer.from(wire);
      for (const bit of bits) out[(bit >> 3) % out.length]! ^= 1 << (bit & 7);
      return out;
    }),
  truncate: (base) => fc.tuple(base, fc.nat()).map(([wire, n]) => Buffer.from(wire.subarray(0, n % wire.length))),
  countLie: (base) =>
    fc.tuple(base, fc.integer({ min: 4, max: 10 }).map((at) => at & ~1), fc.integer({ min: 0, max: 0xffff })).map(([wire, at, count]) => {
      const out = Buffer.from(wire);
      u16(out, at, count);
      return out;
    }),
  pointerLoop: (base) =>
    fc.tuple(base, fc.constantFrom('self', 'pair', 'forward', 'deep')).map(([wire, shape]) => {
      const end = questionNameEnd(wire);
      const question = Buffer.from(wire.subarray(0, 12));
      const tail = wire.subarray(end, end + 4);
      if (shape === 'self') return Buffer.concat([question, Buffer.from([0xc0, 12]), tail]);
      if (shape === 'pair') return Buffer.concat([question, Buffer.from([0xc0, 14, 0xc0, 12]), tail]);
      if (shape === 'forward') return Buffer.concat([question, Buffer.from([0xc0, 40]), tail, Buffer.alloc(40)]);
      // 200 pointers, each to the next one, then the root: past miekg/dns's 126.
      const chain = Buffer.alloc(400 + 1);
      for (let i = 0; i < 200; i++) chain.writeUInt16BE(0xc000 | (12 + 2 * (i + 1)), 2 * i);
      return Buffer.concat([question, chain, tail]);
    }),
  labelOverflow: (base) =>
    fc.tuple(base, fc.integer({ min: 1, max: 8 }), fc.integer({ min: 40, max: 63 }), fc.boolean()).map(([wire, labels, size, lie]) => {
      const end = questionNameEnd(wire);
      const parts: Buffer[] = [wire.subarray(0, 12)];
      for (let i = 0; i < labels; i++) parts.push(Buffer.from([lie ? 64 + size : size]), Buffer.alloc(size, 0x61 + i));
      parts.push(Buffer.from([0]), wire.subarray(end));
      return Buffer.concat(parts);
    }),
  badOpt: (base) =>
    fc.tuple(base, fc.constantFrom('optionPastEnd', 'keepalive1', 'subnetFamily', 'version1', 'ownerNotRoot', 'rdlengthLie')).map(([wire, shape]) => {
      const opt = Buffer.from([0, 0, 41, 0x10, 0, 0, 0, 0, 0, 0, 0]);
      let data = Buffer.alloc(0);
      if (shape === 'optionPastEnd') data = Buffer.from([0, 10, 0, 40, 1, 2]);
      if (shape === 'keepalive1') data = Buffer.from([0, 11, 0, 1, 7]);
      if (shape === 'subnetFamily') data = Buffer.from([0, 8, 0, 4, 0, 9, 0, 0]);
      if (shape === 'version1') opt[6] = 1;
      if (shape === 'ownerNotRoot') return withAdditional(wire, Buffer.concat([Buffer.from([1, 0x61]), opt]));
      opt.writeUInt16BE(shape === 'rdlengthLie' ? 200 : data.length, 9);
      return withAdditional(wire, Buffer.concat([opt, data]));
    }),
  multipleOpt: (base) =>
    fc.tuple(base, fc.integer({ min: 2, max: 3 })).map(([wire, n]) => {
      const opt = Buffer.from([0, 0, 41, 0x04, 0xd0, 0, 0, 0, 0, 0, 0]);
      return withAdditional(wire, Buffer.concat(Array.from({ length: n }, () => opt)), n);
    }),
  oddClassType: (base) =>
    fc.tuple(base, fc.constantFrom(0, 2, 3, 4, 254, 255, 0xffff, 1), fc.constantFrom(0, 41, 249, 250, 251, 252, 255, 65535, 65280, 1)).map(([wire, qclass, qtype]) => {
      const out = Buffer.from(wire);
      const end = questionNameEnd(out);
      u16(out, end, qtype);
      u16(out, end + 2, qclass);
      return out;
    }),
  response: (base) => base.map((wire) => {
    const out = Buffer.from(wire);
    out[2]! |= 0x80;
    return out;
  }),
  opcode: (base) =>
    fc.tuple(base, fc.integer({ min: 1, max: 15 })).map(([wire, opcode]) => {
      const out = Buffer.from(wire);
      out[2] = (out[2]! & 0x87) | (opcode << 3);
      return out;
    }),
  extraRecord: (base) =>
    fc.tuple(base, fc.constantFrom(1, 28, 2, 16, 47, 65, 41), fc.uint8Array({ maxLength: 24 }), fc.constantFrom(6, 8, 10)).map(([wire, type, rdata, section]) => {
      // A record in the answer, authority or additional section with rdata that may or may not fit its type.
      const record = Buffer.concat([Buffer.from([0xc0, 12, type >> 8, type & 0xff, 0, 1, 0, 0, 0, 0, 0, rdata.length]), Buffer.from(rdata)]);
      const end = questionNameEnd(wire) + 4;
      const out = Buffer.concat([wire.subarray(0, end), record]);
      u16(out, 6, 0);
      u16(out, 8, 0);
      u16(out, 10, 0);
      u16(out, section, 1);
      return out;
    }),
};

function withAdditional(wire: Buffer, records: Buffer, count = 1): Buffer {
  const out = Buffer.concat([wire, records]);
  u16(out, 10, out.readUInt16BE(10) + count);
  return out;
}

/** Every class: real queries, each mutation of them, and random bytes. */
export const mutationClasses: readonly MutationClass[] = [...(Object.keys(mutators) as MutationClass[]), 'random'];

/** A packet of one class. */
export function mutatedOf(kind: MutationClass): fc.Arbitrary<Mutated> {
  const arb = kind === 'random' ? fc.integer({ min: 0, max: 600 }).chain((n) => fc.uint8Array({ minLength: n, maxLength: n })).map((bytes) => Buffer.from(bytes)) : mutators[kind](realQuery);
  return arb.map((wire) => ({ kind, wire }));
}

/** A packet of any class, the classes equally likely. */
export const mutated: fc.Arbitrary<Mutated> = fc.oneof(...mutationClasses.map(mutatedOf));
