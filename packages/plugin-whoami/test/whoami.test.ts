import { test } from 'node:test';
import assert from 'node:assert/strict';
import dnsPacket from 'dns-packet';
import type { Answer, OptAnswer, SrvAnswer } from 'dns-packet';
import bind from '@foghorn/plugin-bind';
import { directivesOf, makeQuery, query, rcodeOf, startServer, tcpExchange, udpExchange } from '@foghorn/testkit';
import whoami from '../src/index.js';

test('whoami answers the root with _udp. and its client port', async (t) => {
  const server = await startServer('.:0 {\n    bind 127.0.0.1\n    whoami\n}\n', { directives: directivesOf(bind, whoami) });
  t.after(() => server.close());
  const reply = await query({ port: server.port() }, '.', 'NS');
  assert.equal(rcodeOf(reply), 'NOERROR');
  assert.equal(reply.answers?.length, 0);
  assert.deepEqual(reply.additionals?.map((rr) => [rr.type, rr.name]), [['A', '.'], ['SRV', '_udp']]);
});

test('a name too long for `_udp.` in front gets its address without the SRV record, never a malformed reply', async (t) => {
  const server = await startServer('.:0 {\n    bind 127.0.0.1\n    whoami\n}\n', { directives: directivesOf(bind, whoami) });
  t.after(() => server.close());
  const label = (c: string): string => c.repeat(62);
  const longest = [label('a'), label('b'), label('c'), label('d')].join('.'); // 4 x 63 + 1 = 253 octets
  const reply = await query({ port: server.port() }, longest, 'A', { udpSize: 4096 });
  assert.deepEqual(reply.additionals?.map((rr) => rr.type), ['A', 'OPT']);
  const fits = [label('a'), label('b'), label('c'), 'd'.repeat(57)].join('.'); // 248 octets: _udp. makes 253
  assert.deepEqual((await query({ port: server.port() }, fits, 'A', { udpSize: 4096 })).additionals?.map((rr) => rr.type), ['A', 'SRV', 'OPT']);
});

/**
 * The reply dns-packet encodes for CoreDNS's whoami message (owner names lower-cased, names
 * uncompressed, OPT echoing the client's size and DO bit): what the handler's wire bytes must be.
 */
function expectedReply(query: Buffer, transport: 'udp' | 'tcp', address: string, port: number): Buffer {
  const q = dnsPacket.decode(query);
  const question = q.questions![0]!;
  const owner = question.name.toLowerCase();
  const opt = q.additionals?.find((rr) => rr.type === 'OPT') as OptAnswer | undefined;
  const srv: Answer = { type: 'SRV', name: owner === '.' ? `_${transport}` : `_${transport}.${owner}`, ttl: 0, data: { priority: 0, weight: 0, port, target: '.' } };
  return dnsPacket.encode({
    type: 'response',
    id: q.id!,
    // AA, and opcode, RD and CD copied from the query.
    flags: 0x0400 | (q.flags! & 0x7910),
    questions: [question],
    additionals: [
      address.includes(':') ? { type: 'AAAA', name: owner, ttl: 0, data: address } : { type: 'A', name: owner, ttl: 0, data: address },
      srv,
      ...(opt ? [{ type: 'OPT', name: '.', udpPayloadSize: opt.udpPayloadSize, extendedRcode: 0, ednsVersion: 0, flags: opt.flags ?? 0, flag_do: opt.flag_do, options: [] } satisfies OptAnswer] : []),
    ],
  });
}

const srvPortOf = (wire: Buffer): number => (dnsPacket.decode(wire).additionals?.find((rr) => rr.type === 'SRV') as SrvAnswer).data.port;

test('the reply bytes are those of the message CoreDNS builds, over UDP and TCP, IPv4 and IPv6, with and without EDNS', async (t) => {
  const server = await startServer('.:0 {\n    bind 127.0.0.1 ::1\n    whoami\n}\n', { directives: directivesOf(bind, whoami) });
  t.after(() => server.close());
  const portOf = (host: string): number => server.server.addresses.find((a) => a.host === host)!.port;
  const queries = [
    makeQuery('Bench.Example.ORG', 'A', { id: 1 }),
    makeQuery('.', 'NS', { id: 2, flags: dnsPacket.RECURSION_DESIRED | dnsPacket.CHECKING_DISABLED }),
    makeQuery('example.org', 'AAAA', { id: 3, udpSize: 1232 }),
    makeQuery('eXample.org', 'TXT', { id: 4, udpSize: 4096, dnssecOk: true, flags: 0 }),
    makeQuery('a\\.b.ex\\000ample.org', 'A', { id: 5 }),
  ];
  for (const host of ['127.0.0.1', '::1']) {
    const target = { host, port: portOf(host) };
    for (const query of queries) {
      const udp = await udpExchange(target, query);
      assert.ok(udp);
      assert.deepEqual(udp, expectedReply(query, 'udp', host, srvPortOf(udp)), `${host} udp ${dnsPacket.decode(query).questions![0]!.name}`);
      const [tcp] = await tcpExchange(target, query);
      assert.ok(tcp);
      assert.deepEqual(tcp, expectedReply(query, 'tcp', host, srvPortOf(tcp)), `${host} tcp ${dnsPacket.decode(query).questions![0]!.name}`);
    }
  }
});

test('EDNS options to echo and a reply over 512 octets get the same records through dns-packet', async (t) => {
  const server = await startServer('.:0 {\n    bind 127.0.0.1\n    whoami\n}\n', { directives: directivesOf(bind, whoami) });
  t.after(() => server.close());
  // NSID (option 3) is echoed by the scrub.
  const nsid = dnsPacket.encode({
    type: 'query',
    id: 6,
    questions: [{ name: 'example.org', type: 'A' }],
    additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 1232, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [{ code: 3, data: Buffer.alloc(0) }] } as unknown as OptAnswer],
  });
  const withNsid = dnsPacket.decode((await udpExchange({ port: server.port() }, nsid))!);
  assert.deepEqual(withNsid.additionals?.map((rr) => [rr.type, rr.name]), [['A', 'example.org'], ['SRV', '_udp.example.org'], ['OPT', '.']]);
  assert.deepEqual((withNsid.additionals![2] as OptAnswer).options?.map((o) => o.code), [3]);
  // 200 octets: the uncompressed reply would be 12 + 204 + 214 + 246 = 676 octets; compressed it fits 512.
  const long = ['a', 'b', 'c'].map((c) => c.repeat(63)).join('.') + '.' + 'd'.repeat(7);
  const reply = await udpExchange({ port: server.port() }, makeQuery(long, 'A'));
  assert.ok(reply && reply.length <= 512);
  const decoded = dnsPacket.decode(reply);
  assert.equal(decoded.flag_tc, false);
  assert.deepEqual(decoded.additionals?.map((rr) => [rr.type, rr.name]), [['A', long], ['SRV', `_udp.${long}`]]);
});
