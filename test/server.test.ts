/**
 * End-to-end: the real server started from Corefile text on 127.0.0.1, queried over real UDP and
 * TCP sockets, by Node's own resolver (c-ares, a client we did not write) and by raw sockets for
 * malformed and oversized cases.
 */
import dgram from 'node:dgram';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Resolver } from 'node:dns/promises';
import dnsPacket from 'dns-packet';
import type { Answer, OptAnswer, Packet } from 'dns-packet';
import { definePlugin, Flags, replyTo } from '@foghorn/core';
import type { DirectiveEntry } from '@foghorn/core/server';
import { standardDirectives } from 'foghorn';
import { decodeReply, makeQuery, query, rcodeOf, startServer, tcpExchange, udpExchange } from '@foghorn/testkit';

/** A test-only data source: answers TXT with COUNT records of 100 bytes each, to make big replies. */
const bulk = definePlugin({
  name: 'bulk',
  setup(c) {
    c.next();
    const count = Number(c.remainingArgs()[0] ?? '1');
    c.addHandler(() => ({
      name: 'bulk',
      serveDNS(req, w) {
        const reply = replyTo(req);
        reply.flags |= Flags.AA;
        reply.answers = Array.from({ length: count }, (_, i): Answer => ({ type: 'TXT', name: req.name, ttl: 60, data: `${i}`.padEnd(100, 'x') }));
        w.write(reply);
        return 0;
      },
    }));
  },
});

/** A test-only data source: A records for `endpoints.<zone>`, one per endpoint, as a headless service answers. */
let headlessAnswered = 0;
const headless = definePlugin({
  name: 'headless',
  setup(c) {
    c.next();
    const count = Number(c.remainingArgs()[0] ?? '1');
    c.addHandler(() => ({
      name: 'headless',
      serveDNS(req, w) {
        headlessAnswered++;
        const reply = replyTo(req);
        reply.flags |= Flags.AA;
        reply.answers = Array.from({ length: count }, (_, i): Answer => ({ type: 'A', name: req.name, ttl: 5, data: `10.0.${i >> 8}.${i & 255}` }));
        w.write(reply);
        return 0;
      },
    }));
  },
});

function directives(): DirectiveEntry[] {
  const list = standardDirectives();
  // bulk and headless sit where a data source would: before whoami.
  list.splice(list.length - 1, 0, { name: 'bulk', load: () => bulk }, { name: 'headless', load: () => headless });
  return list;
}

function resolverFor(port: number): Resolver {
  const resolver = new Resolver({ timeout: 1000, tries: 1 });
  resolver.setServers([`127.0.0.1:${port}`]);
  return resolver;
}

test('whoami answers with the client address and port over UDP and TCP', async (t) => {
  const server = await startServer('example.org:0 {\n    bind 127.0.0.1\n    whoami\n}\n', { directives: directives() });
  t.after(() => server.close());
  for (const transport of ['udp', 'tcp'] as const) {
    const reply = await query({ port: server.port() }, 'Www.Example.org', 'A', { transport });
    assert.equal(rcodeOf(reply), 'NOERROR');
    assert.equal(reply.flag_aa, true);
    assert.equal(reply.questions?.[0]?.name, 'Www.Example.org', 'question case is preserved');
    const [address, srv] = reply.additionals ?? [];
    assert.deepEqual([address?.type, address?.name, (address as { data?: string }).data], ['A', 'www.example.org', '127.0.0.1']);
    assert.equal(srv?.type, 'SRV');
    assert.equal(srv?.name, `_${transport}.www.example.org`);
  }
});

test('queries go to the longest matching zone, and names nobody serves are REFUSED', async (t) => {
  const corefile = [
    'example.org:0 {\n    bind 127.0.0.1\n    whoami\n}',
    // A block with no handler at all: its zone is served, but every query is REFUSED.
    'sub.example.org:0 {\n    bind 127.0.0.1\n}',
  ].join('\n');
  const server = await startServer(corefile, { directives: directives() });
  t.after(() => server.close());
  const port = server.port();
  assert.equal(server.port('sub.example.org.'), port, 'both blocks share one listener');
  const resolver = resolverFor(port);
  await assert.rejects(resolver.resolve4('a.sub.example.org'), { code: 'EREFUSED' });
  await assert.rejects(resolver.resolve4('example.net'), { code: 'EREFUSED' });
  // whoami answers in the additional section only, so c-ares sees NOERROR with no answer.
  await assert.rejects(resolver.resolve4('a.example.org'), { code: 'ENODATA' });
  assert.equal(rcodeOf(await query({ port }, 'deep.a.example.org', 'A')), 'NOERROR');
});

test('server blocks on two ports are served independently', async (t) => {
  const server = await startServer('a.test:0 {\n    bind 127.0.0.1\n    whoami\n}\nb.test:0 {\n    bind 127.0.0.2\n    whoami\n}\n', {
    directives: directives(),
  });
  t.after(() => server.close());
  const a = { port: server.port('a.test.') };
  const b = { port: server.port('b.test.'), host: '127.0.0.2' };
  assert.equal(rcodeOf(await query(a, 'x.a.test', 'A')), 'NOERROR');
  assert.equal(rcodeOf(await query(a, 'x.b.test', 'A')), 'REFUSED');
  assert.equal(rcodeOf(await query(b, 'x.b.test', 'A')), 'NOERROR');
  assert.equal(rcodeOf(await query(b, 'x.a.test', 'A')), 'REFUSED');
});

test('malformed packets get FORMERR or silence, and the next good query is answered', async (t) => {
  const server = await startServer('.:0 {\n    bind 127.0.0.1\n    whoami\n}\n', { directives: directives() });
  t.after(() => server.close());
  const target = { port: server.port() };
  const good = makeQuery('example.org', 'A', { id: 7 });
  const twoQuestions = Buffer.from(good);
  twoQuestions.writeUInt16BE(2, 4);
  const cut = good.subarray(0, good.length - 3);
  const loop = Buffer.concat([good.subarray(0, 12), Buffer.from([0xc0, 0x0c, 0, 1, 0, 1])]);
  const badLabel = Buffer.concat([good.subarray(0, 12), Buffer.from([0x80, 0, 0, 1, 0, 1])]);
  for (const bad of [twoQuestions, cut, loop, badLabel]) {
    const reply = await udpExchange(target, bad);
    assert.ok(reply, 'a readable header gets a reply');
    const decoded = dnsPacket.decode(reply);
    assert.equal(rcodeOf(decoded), 'FORMERR');
    assert.equal(decoded.id, 7);
    assert.equal(decoded.questions?.length, 0);
  }
  assert.equal(await udpExchange(target, Buffer.from([1, 2, 3]), 300), null, 'no header, no reply');
  const response = Buffer.from(good);
  response[2] = response[2]! | 0x80;
  assert.equal(await udpExchange(target, response, 300), null, 'responses are dropped');
  const notify = Buffer.from(good);
  notify[2] = (notify[2]! & 0x87) | (2 << 3);
  assert.equal(rcodeOf(dnsPacket.decode((await udpExchange(target, notify))!)), 'NOTIMP', 'opcode STATUS is not implemented');
  const [tcpReply] = await tcpExchange(target, [cut, good]);
  assert.equal(rcodeOf(dnsPacket.decode(tcpReply!)), 'FORMERR');
  assert.equal(rcodeOf(await query(target, 'example.org', 'A')), 'NOERROR');
  assert.equal(rcodeOf(await query(target, 'example.org', 'A', { transport: 'tcp' })), 'NOERROR');
});

test('a datagram from port 0, which nothing can answer, costs the server nothing', async (t) => {
  const server = await startServer('.:0 {\n    bind 127.0.0.1\n    whoami\n}\n', { directives: directives() });
  t.after(() => server.close());
  // Only a raw socket sends from port 0 (Node has none, and it takes root), so the listener's own
  // socket is handed the datagrams as the kernel hands them over. Replying to one used to throw
  // ERR_SOCKET_BAD_PORT out of the socket's 'message' handler: one packet ended the process.
  const listeners = (server.server as unknown as { listeners: Map<string, { udp: dgram.Socket }> }).listeners;
  const socket = [...listeners.values()][0]!.udp;
  const good = makeQuery('example.org', 'A', { id: 7 });
  const twoQuestions = Buffer.from(good);
  twoQuestions.writeUInt16BE(2, 4);
  for (const wire of [good, twoQuestions]) {
    assert.doesNotThrow(() => socket.emit('message', wire, { address: '127.0.0.1', family: 'IPv4', port: 0, size: wire.length }));
  }
  assert.equal(rcodeOf(await query({ port: server.port() }, 'example.org', 'A')), 'NOERROR');
});

test('TCP carries several pipelined queries on one connection', async (t) => {
  const server = await startServer('.:0 {\n    bind 127.0.0.1\n    whoami\n}\n', { directives: directives() });
  t.after(() => server.close());
  const queries = [1, 2, 3].map((id) => makeQuery(`q${id}.example.org`, 'A', { id }));
  const replies = await tcpExchange({ port: server.port() }, queries);
  assert.deepEqual(replies.map((r) => dnsPacket.decode(r).id).sort(), [1, 2, 3]);
});

test('replies over the client limit are cut to whole records with TC set', async (t) => {
  const server = await startServer('big.test:0 {\n    bind 127.0.0.1\n    bulk 30\n}\n', { directives: directives() });
  t.after(() => server.close());
  const target = { port: server.port() };
  const plain = await udpExchange(target, makeQuery('big.test', 'TXT'));
  assert.ok(plain && plain.length <= 512, 'no EDNS: at most 512 bytes');
  const truncated = decodeReply(plain);
  assert.equal(truncated.flag_tc, true);
  assert.ok((truncated.answers?.length ?? 0) > 0 && (truncated.answers?.length ?? 0) < 30);
  const edns = await udpExchange(target, makeQuery('big.test', 'TXT', { udpSize: 1232 }));
  assert.ok(edns && edns.length <= 1232);
  assert.equal(decodeReply(edns).flag_tc, true);
  const large = decodeReply((await udpExchange(target, makeQuery('big.test', 'TXT', { udpSize: 8192 })))!);
  assert.equal(large.flag_tc, false);
  assert.equal(large.answers?.length, 30);
  const tcp = await query(target, 'big.test', 'TXT', { transport: 'tcp' });
  assert.equal(tcp.flag_tc, false);
  assert.equal(tcp.answers?.length, 30);
  // c-ares retries over TCP on TC and gets everything.
  const records = await resolverFor(target.port).resolveTxt('big.test');
  assert.equal(records.length, 30);
});

test('a big reply is compressed before it is cut: as many records get through as through CoreDNS', async (t) => {
  const zone = 'headless.default.svc.cluster.local';
  const server = await startServer(`${zone}:0 {\n    bind 127.0.0.1\n    headless 100\n}\n`, { directives: directives() });
  t.after(() => server.close());
  const target = { port: server.port() };
  // The question is 46 + 4 bytes. Written in full each A record takes 60 bytes, so 7 fit in 512
  // and 19 in 1232 (OPT 11); compressed, the owner is a pointer and each takes 16: 28 and 72,
  // miekg/dns's Truncate figures (packages/core/test/compress.test.ts).
  const plain = await udpExchange(target, makeQuery(`endpoints.${zone}`, 'A'));
  assert.equal(plain?.length, 510);
  assert.equal(decodeReply(plain!).flag_tc, true);
  assert.equal(decodeReply(plain!).answers?.length, 28);
  const edns = decodeReply((await udpExchange(target, makeQuery(`endpoints.${zone}`, 'A', { udpSize: 1232 })))!);
  assert.equal(edns.flag_tc, true);
  assert.equal(edns.answers?.length, 72);
  assert.equal(edns.additionals?.at(-1)?.type, 'OPT');
  // Over TCP nothing is cut; the 100 answers fit uncompressed, as dns-packet wrote them.
  const tcp = await query(target, `endpoints.${zone}`, 'A', { transport: 'tcp' });
  assert.equal(tcp.flag_tc, false);
  assert.equal(tcp.answers?.length, 100);
});

test('a cache hit over the client limit is compressed and cut like the reply it stored', async (t) => {
  const zone = 'headless.default.svc.cluster.local';
  const server = await startServer(`${zone}:0 {\n    bind 127.0.0.1\n    cache\n    headless 100\n}\n`, { directives: directives() });
  t.after(() => server.close());
  const target = { port: server.port() };
  // The first reply is the plugin's message object, the second the cache's stored wire bytes.
  const answered = headlessAnswered;
  for (const round of ['miss', 'hit']) {
    const reply = decodeReply((await udpExchange(target, makeQuery(`endpoints.${zone}`, 'A')))!);
    assert.equal(reply.flag_tc, true, round);
    assert.equal(reply.answers?.length, 28, round);
  }
  assert.equal(headlessAnswered, answered + 1, 'the second reply came from the cache');
  assert.equal((await query(target, `endpoints.${zone}`, 'A', { transport: 'tcp' })).answers?.length, 100);
});

test('EDNS is echoed only to clients that sent it, with their size and DO bit', async (t) => {
  const server = await startServer('.:0 {\n    bind 127.0.0.1\n    whoami\n}\n', { directives: directives() });
  t.after(() => server.close());
  const target = { port: server.port() };
  const withOpt = await query(target, 'example.org', 'A', { udpSize: 1400, dnssecOk: true });
  const opt = withOpt.additionals?.find((rr): rr is OptAnswer => rr.type === 'OPT');
  assert.ok(opt);
  assert.equal(opt.udpPayloadSize, 1400);
  assert.equal(opt.ednsVersion, 0);
  assert.equal(opt.flag_do, true);
  const without = await query(target, 'example.org', 'A');
  assert.equal(without.additionals?.some((rr) => rr.type === 'OPT'), false);
  // RFC 6891 §6.1.3: an unknown EDNS version gets BADVERS (extended rcode 1) and an OPT of version 0.
  const v1: Packet = dnsPacket.decode(makeQuery('example.org', 'A', { udpSize: 1232 }));
  (v1.additionals![0] as OptAnswer).ednsVersion = 1;
  const badvers = dnsPacket.decode((await udpExchange(target, dnsPacket.encode(v1)))!);
  const badOpt = badvers.additionals?.find((rr): rr is OptAnswer => rr.type === 'OPT');
  assert.equal(badOpt?.extendedRcode, 1);
  assert.equal(badOpt?.ednsVersion, 0);
});

test('classes other than IN are REFUSED', async (t) => {
  const server = await startServer('.:0 {\n    bind 127.0.0.1\n    whoami\n}\n', { directives: directives() });
  t.after(() => server.close());
  assert.equal(rcodeOf(await query({ port: server.port() }, 'version.bind', 'TXT', { class: 'CH' })), 'REFUSED');
});

test('a plugin that declares anyClass has its listener accept other classes', async (t) => {
  // The same answerer twice, once declaring anyClass: only that block's listener lets CH through.
  const answerer = (anyClass: boolean) =>
    definePlugin({
      name: 'chaosish',
      anyClass,
      setup(c) {
        c.next();
        c.addHandler(() => ({ name: 'chaosish', serveDNS: (req, w) => w.write({ ...replyTo(req), answers: [{ type: 'TXT', class: 'CH', name: req.name, ttl: 0, data: 'foghorn' }] }) && 0 }));
      },
    });
  for (const [anyClass, rcode] of [[true, 'NOERROR'], [false, 'REFUSED']] as const) {
    const server = await startServer('.:0 {\n    bind 127.0.0.1\n    chaosish\n}\n', { directives: [...directives(), { name: 'chaosish', load: () => answerer(anyClass) }] });
    t.after(() => server.close());
    assert.equal(rcodeOf(await query({ port: server.port() }, 'version.bind', 'TXT', { class: 'CH' })), rcode, `anyClass ${anyClass}`);
  }
});

test('replies keep the question as asked, whatever its type and class', async (t) => {
  const server = await startServer('.:0 {\n    bind 127.0.0.1\n    whoami\n}\n', { directives: directives() });
  t.after(() => server.close());
  const target = { port: server.port() };
  // TYPE65534 reaches whoami; class 5 is refused by the server itself.
  for (const [qtype, qclass, rcode] of [[65534, 1, 'NOERROR'], [1, 5, 'REFUSED']] as const) {
    const wire = makeQuery('odd.example.org', 'A', { id: 99 });
    wire.writeUInt16BE(qtype, wire.length - 4);
    wire.writeUInt16BE(qclass, wire.length - 2);
    const reply = (await udpExchange(target, wire))!;
    assert.equal(decodeReply(reply).rcode, rcode);
    assert.deepEqual(reply.subarray(12, wire.length), wire.subarray(12), `question of ${qtype}/${qclass} copied`);
  }
});

test('a port taken by another program fails startup with CoreDNS wording', async (t) => {
  const holder = await startServer('.:0 {\n    bind 127.0.0.1\n    whoami\n}\n', { directives: directives() });
  t.after(() => holder.close());
  const port = holder.port();
  await assert.rejects(startServer(`.:${port} {\n    bind 127.0.0.1\n    whoami\n}\n`, { directives: directives() }), {
    message: `ListenPacket: listen udp 127.0.0.1:${port}: bind: address already in use`,
  });
});
