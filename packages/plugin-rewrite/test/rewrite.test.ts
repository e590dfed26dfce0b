/**
 * rewrite over real sockets: CoreDNS's TestRewrite, TestRewriteDefaultRevertPolicy,
 * TestTtlRewrite, TestRewriteEDNS0Local, TestEdns0MultiRule, TestRCodeRewriteEmptyResponse and
 * the cname rule's example (plugin/rewrite/*_test.go), with replies written as objects, as wire
 * bytes, from the cache and through forward.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import dnsPacket from 'dns-packet';
import type { Answer, OptAnswer, Packet, RecordType } from 'dns-packet';
import { Flags, Rcode, replyTo } from '@foghorn/core';
import type { EdnsOption, PluginDefinition, Request } from '@foghorn/core';
import { parseRR, replyOpt } from '@foghorn/core/wire';
import { decodeReply, directivesOf, query, rcodeOf, startServer, tcpExchange, testPlugin, udpExchange } from '@foghorn/testkit';
import type { Reply, TestServer } from '@foghorn/testkit';
import rewrite from '@foghorn/plugin-rewrite';
import cache from '@foghorn/plugin-cache';
import errors from '@foghorn/plugin-errors';
import forward from '@foghorn/plugin-forward';
import bind from '@foghorn/plugin-bind';
import template from '@foghorn/plugin-template';

type Answerer = (req: Request) => Packet | number;

/** A data source for the tests: writes what `answer` makes, as a message object or as wire bytes. */
function source(answer: Answerer, wire = false): PluginDefinition {
  return testPlugin('source', () => ({
    name: 'source',
    serveDNS(req, w) {
      const made = answer(req);
      if (typeof made === 'number') return made;
      if (wire) w.writeWire(dnsPacket.encode(made));
      else w.write(made);
      return Rcode.NOERROR;
    },
  }));
}

/** The OPT options of a query, all of them (the Request keeps only those a reply echoes). */
function queryOptions(req: Request): EdnsOption[] {
  const opt = req.message.additionals?.find((rr): rr is OptAnswer => rr.type === 'OPT');
  return ((opt?.options ?? []) as unknown as EdnsOption[]).map((o) => ({ code: o.code, data: Buffer.from(o.data) }));
}

/**
 * CoreDNS's msgPrinter: an A record (TTL 5) for the name asked, and what was asked — name, type,
 * class, OPT options as CODE=HEX — in the TXT record `seen.test.`, the OPT record's UDP size in
 * `edns.test.`; the OPT options come back too.
 */
function echo(req: Request): Packet {
  const msg = replyTo(req);
  msg.flags |= Flags.AA;
  const options = queryOptions(req);
  msg.answers = [{ name: req.name, type: 'A', class: 'IN', ttl: 5, data: '10.0.0.1' }];
  const seen = [req.name, req.type, req.class, ...options.map((o) => `${o.code}=${o.data.toString('hex')}`)];
  msg.additionals = [{ name: 'seen.test', type: 'TXT', class: 'IN', ttl: 0, data: seen }];
  if (req.hasEdns) msg.additionals.push({ name: 'edns.test', type: 'TXT', class: 'IN', ttl: 0, data: [String(req.udpSize)] });
  if (req.hasEdns) msg.additionals.push(replyOpt(req, { options }));
  return msg;
}

/** What the source saw: the `seen.test.` TXT strings. */
function seen(reply: Reply): string[] {
  const txt = reply.additionals?.find((rr) => rr.type === 'TXT' && rr.name === 'seen.test');
  assert.ok(txt, 'the reply has the seen.test TXT record');
  return (dataOf(txt) as Buffer[]).map((b) => b.toString());
}

/** A record's data and TTL (dns-packet's OPT record has neither, so its Answer type lacks them). */
const dataOf = (rr: Answer): unknown => (rr as { data?: unknown }).data;
const ttlOf = (rr: Answer): number | undefined => (rr as { ttl?: number }).ttl;
/** dns-packet's RecordType leaves out the query type ANY. */
const ANY = 'ANY' as RecordType;

function optionsOf(reply: Reply): string[] {
  const opt = reply.additionals?.find((rr): rr is OptAnswer => rr.type === 'OPT');
  return ((opt?.options ?? []) as unknown as EdnsOption[]).map((o) => `${o.code}=${Buffer.from(o.data).toString('hex')}`);
}

/** A server for `.` on 127.0.0.1 with the directive `lines`, and ` source` when a source is among `plugins`. */
async function serve(t: { after(fn: () => Promise<void>): void }, lines: string, plugins: PluginDefinition[]): Promise<TestServer> {
  const body = plugins.some((p) => p.name === 'source') ? `${lines}\n source` : lines;
  const server = await startServer(`.:0 {\n bind 127.0.0.1\n ${body}\n}\n`, { directives: directivesOf(bind, ...plugins) });
  t.after(() => server.close());
  return server;
}

/** The plugins of most tests: rewrite then the echo source. */
const plain = [rewrite, source(echo)];

/** A query for `name` with EDNS0 `options`, as bytes. */
function ednsQuery(name: string, type: RecordType, options: EdnsOption[]): Buffer {
  return dnsPacket.encode({
    type: 'query',
    id: 4321,
    flags: Flags.RD,
    questions: [{ name, type, class: 'IN' }],
    additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 1232, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: options as unknown as OptAnswer['options'] }],
  });
}

async function ask(server: TestServer, wire: Buffer): Promise<Reply> {
  const reply = await udpExchange({ port: server.port() }, wire);
  assert.ok(reply, 'a reply');
  return decodeReply(reply);
}

const testRewriteRules = [
  'rewrite name from.nl. to.nl.',
  'rewrite name regex (core)\\.(dns)\\.(rocks)\\.(nl) {2}.{1}.{3}.{4} answer name (dns)\\.(core)\\.(rocks)\\.(nl) {2}.{1}.{3}.{4}',
  'rewrite name exact from.exact.nl. to.nl.',
  'rewrite name prefix prefix to',
  'rewrite name suffix .suffix. .nl.',
  'rewrite name substring from.substring to',
  'rewrite name regex (f.*m)\\.regex\\.(nl) to.{2}',
  'rewrite continue name regex consul\\.(rocks) core.dns.{1}',
  'rewrite stop name core.dns.rocks to.nl.',
  'rewrite continue class HS CH',
  'rewrite stop class CH IN',
  'rewrite stop type ANY HINFO',
].join('\n ');

/** CoreDNS's TestRewrite rows for class IN: the question asked, and the one the next plugin sees. */
const testRewriteRows: [string, RecordType, string, string][] = [
  ['from.nl', 'A', 'to.nl.', 'A'],
  ['a.nl', 'A', 'a.nl.', 'A'],
  ['a.nl', ANY, 'a.nl.', 'HINFO'],
  // The name is rewritten, the type is not: the name rule stops.
  ['from.nl', ANY, 'to.nl.', ANY],
  ['from.exact.nl', 'A', 'to.nl.', 'A'],
  ['prefix.nl', 'A', 'to.nl.', 'A'],
  ['to.suffix', 'A', 'to.nl.', 'A'],
  ['from.substring.nl', 'A', 'to.nl.', 'A'],
  ['from.regex.nl', 'A', 'to.nl.', 'A'],
  ['consul.rocks', 'A', 'to.nl.', 'A'],
  ['core.dns.rocks.nl', 'A', 'dns.core.rocks.nl.', 'A'],
];

test('TestRewrite: the next plugin sees the rewritten question, the client its own', async (t) => {
  const server = await serve(t, testRewriteRules, plain);
  for (const [name, type, toName, toType] of testRewriteRows) {
    for (const transport of ['udp', 'tcp'] as const) {
      const reply = await query({ port: server.port() }, name, type, { transport });
      assert.deepEqual(seen(reply).slice(0, 3), [toName, toType, 'IN'], `${name} ${type} over ${transport}`);
      assert.deepEqual(reply.questions, [{ name, type, class: 'IN' }], `${name} ${type} question`);
    }
  }
});

test('TestRewriteDefaultRevertPolicy: exact rules revert answer names; prefix, suffix, substring and regex rules without answer options do not', async (t) => {
  const server = await serve(t, testRewriteRules, plain);
  const rows: [string, string][] = [
    ['from.exact.nl', 'from.exact.nl'],
    ['prefix.nl', 'to.nl'],
    ['to.suffix', 'to.nl'],
    ['from.substring.nl', 'to.nl'],
    ['from.regex.nl', 'to.nl'],
    // The explicit answer rule maps dns.core.rocks.nl back.
    ['core.dns.rocks.nl', 'core.dns.rocks.nl'],
  ];
  for (const [name, answer] of rows) {
    const reply = await query({ port: server.port() }, name, 'A');
    assert.equal(reply.answers?.[0]?.name, answer, name);
    assert.equal(reply.questions?.[0]?.name, name);
  }
});

test('a name is matched in lower case and the client gets its question back with its case', async (t) => {
  const server = await serve(t, 'rewrite name foo.example.com foo.default.svc.cluster.local', plain);
  const reply = await query({ port: server.port() }, 'FOO.Example.COM', 'A');
  assert.deepEqual(seen(reply).slice(0, 1), ['foo.default.svc.cluster.local.']);
  assert.deepEqual(reply.questions, [{ name: 'FOO.Example.COM', type: 'A', class: 'IN' }]);
  // CoreDNS maps the answer back to the lower-cased name it matched.
  assert.equal(reply.answers?.[0]?.name, 'foo.example.com');
  assert.equal(rcodeOf(reply), 'NOERROR');
  assert.equal(reply.flag_aa, true);
});

test('the README response rewrite: answer name maps the consul names back to coredns.rocks', async (t) => {
  const rules = 'rewrite stop {\n name regex (.*)-(us-west-1)\\.coredns\\.rocks {1}.service.{2}.consul\n answer name (.*)\\.service\\.(us-west-1)\\.consul {1}-{2}.coredns.rocks\n }';
  const server = await serve(t, rules, plain);
  const reply = await query({ port: server.port() }, 'ftp-us-west-1.coredns.rocks', 'A', { transport: 'tcp' });
  assert.deepEqual(seen(reply).slice(0, 1), ['ftp.service.us-west-1.consul.']);
  assert.deepEqual(reply.questions, [{ name: 'ftp-us-west-1.coredns.rocks', type: 'A', class: 'IN' }]);
  assert.deepEqual(
    reply.answers?.map((rr) => [rr.name, rr.type, dataOf(rr)]),
    [['ftp-us-west-1.coredns.rocks', 'A', '10.0.0.1']],
  );
});

/** A source with records of every value type, for the value rewrites. */
function consul(req: Request): Packet {
  const msg = replyTo(req);
  const name = req.name;
  const records: Answer[] = [
    { name, type: 'CNAME', ttl: 60, data: 'ftp-us-west-1.service.consul.' },
    { name, type: 'PTR', ttl: 60, data: 'ftp-us-west-1.service.consul.' },
    { name, type: 'SRV', ttl: 60, data: { priority: 0, weight: 100, port: 21, target: 'ftp-us-west-1.service.consul.' } },
    { name, type: 'MX', ttl: 60, data: { preference: 10, exchange: 'mail.service.consul.' } },
    { name, type: 'A', ttl: 60, data: '10.0.0.2' },
  ];
  msg.answers = records;
  msg.authorities = [{ name: 'service.consul', type: 'NS', ttl: 60, data: 'ns.service.consul' }];
  return msg;
}

test('the README PTR example: answer value rewrites the names records point to, in every section', async (t) => {
  const rules = 'rewrite stop {\n name suffix .arpa .arpa\n answer name auto\n answer value (.*)\\.service\\.consul\\. {1}.coredns.rocks.\n }';
  for (const wire of [false, true]) {
    const server = await serve(t, rules, [rewrite, source(consul, wire)]);
    const reply = await query({ port: server.port() }, '30.30.30.10.in-addr.arpa', 'PTR');
    const values = reply.answers?.map((rr) => [rr.type, dataOf(rr)]);
    assert.deepEqual(values, [
      ['CNAME', 'ftp-us-west-1.coredns.rocks'],
      ['PTR', 'ftp-us-west-1.coredns.rocks'],
      ['SRV', { priority: 0, weight: 100, port: 21, target: 'ftp-us-west-1.coredns.rocks' }],
      ['MX', { preference: 10, exchange: 'mail.coredns.rocks' }],
      ['A', '10.0.0.2'],
    ], wire ? 'wire reply' : 'object reply');
    assert.equal(dataOf(reply.authorities![0]!), 'ns.coredns.rocks');
    assert.equal(reply.answers?.[0]?.name, '30.30.30.10.in-addr.arpa');
  }
});

test('a suffix rule with answer auto swaps the suffix back in names and values', async (t) => {
  const server = await serve(t, 'rewrite stop {\n name suffix .coredns.rocks .service.consul answer auto\n }', [rewrite, source(consul)]);
  const reply = await query({ port: server.port() }, 'ftp-us-west-1.coredns.rocks', 'A');
  assert.equal(reply.answers?.[0]?.name, 'ftp-us-west-1.coredns.rocks');
  assert.deepEqual(dataOf(reply.answers![0]!), 'ftp-us-west-1.coredns.rocks');
  // The swap is a plain string suffix: `service.consul` itself does not end in `.service.consul`.
  assert.equal(reply.authorities?.[0]?.name, 'service.consul');
  assert.equal(dataOf(reply.authorities![0]!), 'ns.coredns.rocks');
});

test('the AKS "Rewrite DNS" server block: names under example.com are answered from default.svc.cluster.local through forward', async (t) => {
  // The cluster side: the names the rewrite sends upstream.
  const cluster = await serve(t, '', [source((req) => (req.qname.endsWith('.default.svc.cluster.local.') ? echo(req) : Rcode.NXDOMAIN))]);
  const rules = [
    ' rewrite stop {',
    '  name regex (.*)\\.example\\.com {1}.default.svc.cluster.local',
    '  answer name (.*)\\.default\\.svc\\.cluster\\.local {1}.example.com',
    ' }',
    ` forward . 127.0.0.1:${cluster.port()}`,
  ].join('\n');
  const server = await serve(t, rules, [errors, rewrite, forward]);
  for (const transport of ['udp', 'tcp'] as const) {
    const reply = await query({ port: server.port() }, 'my-svc.example.com', 'A', { transport, udpSize: 1232 });
    assert.equal(rcodeOf(reply), 'NOERROR');
    assert.deepEqual(reply.questions, [{ name: 'my-svc.example.com', type: 'A', class: 'IN' }]);
    assert.deepEqual(reply.answers?.map((rr) => [rr.name, dataOf(rr)]), [['my-svc.example.com', '10.0.0.1']]);
    assert.deepEqual(seen(reply).slice(0, 1), ['my-svc.default.svc.cluster.local.']);
  }
});

test('class rewrites reach the upstream through forward: HS to CH to IN with continue, CH to IN', async (t) => {
  const upstream = await serve(t, '', [source(echo)]);
  const rules = `${testRewriteRules}\n forward . 127.0.0.1:${upstream.port()}`;
  const server = await serve(t, rules, [rewrite, forward]);
  // CoreDNS's TestRewrite rows for classes CH and HS.
  const rows: [string, RecordType, 'CH' | 'HS', string, string][] = [
    ['a.nl', 'A', 'CH', 'A', 'IN'],
    ['a.nl', ANY, 'CH', ANY, 'IN'],
    ['a.nl', ANY, 'HS', ANY, 'IN'],
  ];
  for (const [name, type, klass, toType, toClass] of rows) {
    const reply = await query({ port: server.port() }, name, type, { class: klass });
    assert.deepEqual(seen(reply).slice(1, 3), [toType, toClass], `${name} ${type} ${klass}`);
    assert.deepEqual(reply.questions, [{ name, type, class: klass }]);
  }
});

test('a cached reply (wire bytes) is reverted like a fresh one', async (t) => {
  let asked = 0;
  const counting = source((req) => {
    asked++;
    return echo(req);
  });
  const server = await serve(t, 'rewrite name exact www.example.org. www.example.net.\n cache', [rewrite, cache, counting]);
  for (let i = 0; i < 3; i++) {
    const reply = await query({ port: server.port() }, 'www.example.org', 'A');
    assert.deepEqual(reply.questions, [{ name: 'www.example.org', type: 'A', class: 'IN' }]);
    assert.equal(reply.answers?.[0]?.name, 'www.example.org');
  }
  assert.equal(asked, 1, 'the second and third replies came from the cache');
});

test('a query no rule matches goes on untouched, its reply unchanged', async (t) => {
  const server = await serve(t, 'rewrite name exact other.example. www.example.net.', plain);
  const reply = await query({ port: server.port() }, 'www.example.org', 'A');
  assert.deepEqual(seen(reply).slice(0, 3), ['www.example.org.', 'A', 'IN']);
});

test('a rewrite to a name that is no domain name gets SERVFAIL with the client question', async (t) => {
  // FROM and TO are made fully qualified: `example.` becomes `..`, leaving an empty label.
  const server = await serve(t, 'errors\n rewrite name substring example ..', [errors, rewrite, source(echo)]);
  const reply = await query({ port: server.port() }, 'www.example.org', 'A');
  assert.equal(rcodeOf(reply), 'SERVFAIL');
  assert.deepEqual(reply.questions, [{ name: 'www.example.org', type: 'A', class: 'IN' }]);
  assert.ok(server.lines.some((line) => line.includes('invalid name after rewrite: www...org.')), server.lines.join('\n'));
});

test('TestTtlRewrite: TTLs are set or clamped for the names each rule matches', async (t) => {
  let answers: Answer[] = [];
  const fixed = source((req) => ({ ...replyTo(req), answers }));
  const rules = [
    'rewrite stop ttl srv1.coredns.rocks 1',
    'rewrite stop ttl exact srv15.coredns.rocks 15',
    'rewrite stop ttl prefix srv30 30',
    'rewrite stop ttl suffix 45.coredns.rocks 45',
    'rewrite stop ttl substring rv50 50',
    'rewrite stop ttl regex (srv10)\\.(coredns)\\.(rocks) 10',
    'rewrite stop ttl regex (srv20)\\.(coredns)\\.(rocks) 20',
    'rewrite stop ttl range.example.com. 30-300',
    'rewrite stop ttl ceil.example.com. -11',
    'rewrite stop ttl floor.example.com. 5-',
  ].join('\n ');
  const server = await serve(t, rules, [rewrite, fixed]);
  const a = (name: string, ttl: number, data = '10.0.0.1'): Answer => ({ name, type: 'A', ttl, data });
  const rows: [string, RecordType, Answer[], number][] = [
    ['srv1.coredns.rocks', 'A', [a('srv1.coredns.rocks', 5)], 1],
    ['srv15.coredns.rocks', 'A', [a('srv15.coredns.rocks', 5, '10.0.0.15')], 15],
    ['srv30.coredns.rocks', 'A', [a('srv30.coredns.rocks', 5, '10.0.0.30')], 30],
    ['srv45.coredns.rocks', 'A', [a('srv45.coredns.rocks', 5, '10.0.0.45')], 45],
    ['srv50.coredns.rocks', 'A', [a('srv50.coredns.rocks', 5, '10.0.0.50')], 50],
    ['srv10.coredns.rocks', 'A', [a('srv10.coredns.rocks', 5, '10.0.0.10')], 10],
    ['xmpp.coredns.rocks', 'SRV', [{ name: 'xmpp.coredns.rocks', type: 'SRV', ttl: 5, data: { priority: 0, weight: 100, port: 100, target: 'srvxmpp.coredns.rocks' } }], 5],
    ['srv15.coredns.rocks', 'HINFO', [{ name: 'srv15.coredns.rocks', type: 'HINFO', ttl: 5, data: { cpu: 'INTEL-64', os: 'RHEL 7.5' } }], 15],
    ['srv20.coredns.rocks', 'A', [a('srv20.coredns.rocks', 5, '10.0.0.22'), a('srv20.coredns.rocks', 5, '10.0.0.23')], 20],
    ['range.example.com', 'A', [a('range.example.com', 5)], 30],
    ['range.example.com', 'A', [a('range.example.com', 55)], 55],
    ['range.example.com', 'A', [a('range.example.com', 500)], 300],
    ['ceil.example.com', 'A', [a('ceil.example.com', 5)], 5],
    ['ceil.example.com', 'A', [a('ceil.example.com', 15)], 11],
    ['floor.example.com', 'A', [a('floor.example.com', 0)], 5],
    ['floor.example.com', 'A', [a('floor.example.com', 30)], 30],
  ];
  for (const [name, type, records, ttl] of rows) {
    answers = records;
    const reply = await query({ port: server.port() }, name, type);
    assert.equal(reply.answers?.length, records.length, name);
    for (const rr of reply.answers ?? []) assert.equal(ttlOf(rr), ttl, `${name} ${type}`);
  }
});

test('TestRCodeRewriteEmptyResponse: an rcode returned without a reply is written by rewrite and rewritten', async (t) => {
  const cases = ['stop', 'continue'].flatMap((mode) => [Rcode.FORMERR, Rcode.SERVFAIL, Rcode.REFUSED, Rcode.NOTIMP].map((rcode) => ({ mode, rcode })));
  // One server per case, all at once.
  await Promise.all(
    cases.map(async ({ mode, rcode }) => {
      const name = ['', 'FORMERR', 'SERVFAIL', '', 'NOTIMP', 'REFUSED'][rcode]!;
      const server = await serve(t, `rewrite ${mode} rcode exact srv1.coredns.rocks ${name} NOERROR`, [rewrite, source(() => rcode)]);
      const reply = await query({ port: server.port() }, 'srv1.coredns.rocks', 'A');
      assert.equal(rcodeOf(reply), 'NOERROR', `${mode} ${name}`);
      assert.deepEqual(reply.questions, [{ name: 'srv1.coredns.rocks', type: 'A', class: 'IN' }]);
      // Another name keeps the rcode, written by the server.
      assert.equal(rcodeOf(await query({ port: server.port() }, 'srv2.coredns.rocks', 'A')), name);
    }),
  );
});

test('TestRCodeRewrite: a written reply with records gets its rcode replaced', async (t) => {
  const failing = source((req) => ({ ...echo(req), flags: (echo(req).flags ?? 0) | Rcode.SERVFAIL }), true);
  const server = await serve(t, 'rewrite stop rcode exact srv1.coredns.rocks SERVFAIL FORMERR', [rewrite, failing]);
  const reply = await query({ port: server.port() }, 'srv1.coredns.rocks', 'A');
  assert.equal(rcodeOf(reply), 'FORMERR');
  assert.equal(reply.answers?.length, 1);
});

test('TestRewriteEDNS0Local: local and nsid options are set, appended or replaced in the query', async (t) => {
  const rows: [string, string[]][] = [
    ['local set 0xffee 0xabcdef', ['65518=abcdef']],
    ['local append 0xffee abcdefghijklmnop', [`65518=${Buffer.from('abcdefghijklmnop').toString('hex')}`]],
    // Nothing to replace: the query gets an (empty) OPT record all the same.
    ['local replace 0xffee abcdefghijklmnop', []],
    ['nsid set', ['3=']],
    ['nsid append', ['3=']],
    ['nsid replace', []],
  ];
  await Promise.all(
    rows.map(async ([args, want]) => {
      const server = await serve(t, `rewrite edns0 ${args}`, plain);
      // The query has no OPT record; rewrite adds one with UDP size 4096.
      const reply = await query({ port: server.port() }, 'example.com', 'A');
      assert.deepEqual(seen(reply).slice(3), want, args);
      const udpSize = reply.additionals?.find((rr) => rr.name === 'edns.test');
      assert.deepEqual((dataOf(udpSize!) as Buffer[]).map(String), ['4096'], args);
      // The OPT record rewrite added is not shown to a client that sent none (RFC 6891 §7).
      assert.equal(reply.additionals?.some((rr) => rr.type === 'OPT'), false, args);
    }),
  );
});

test('TestEdns0MultiRule: the first rule that applies stops; revert restores the client options in the reply', async (t) => {
  const local = (text: string): EdnsOption => ({ code: 0xffee, data: Buffer.from(text) });
  const hex = (text: string): string => `65518=${Buffer.from(text).toString('hex')}`;
  const subnet = (bits: number): EdnsOption => ({ code: 8, data: Buffer.from([0, 1, bits, 0, 127, 0, 0, 1].slice(0, 4 + Math.ceil(bits / 8))) });
  const rows: { rules: string[]; from: EdnsOption[]; seen: string[]; reply: string[] }[] = [
    { rules: ['local replace 0xffee abcdef', 'local set 0xffee fedcba'], from: [], seen: [hex('fedcba')], reply: [hex('fedcba')] },
    { rules: ['local replace 0xffee abcdef', 'local set 0xffee fedcba'], from: [local('foobar')], seen: [hex('abcdef')], reply: [hex('abcdef')] },
    { rules: ['local replace 0xffee abcdef revert', 'local set 0xffee fedcba revert'], from: [], seen: [hex('fedcba')], reply: [] },
    { rules: ['local replace 0xffee abcdef revert', 'local set 0xffee fedcba revert'], from: [local('foobar')], seen: [hex('abcdef')], reply: [hex('foobar')] },
    { rules: ['local replace 0xffee {qname}', 'local set 0xffee {qtype}'], from: [], seen: ['65518=0001'], reply: ['65518=0001'] },
    { rules: ['local replace 0xffee {qname}', 'local set 0xffee {qtype}'], from: [local('foobar')], seen: [hex('example.com.')], reply: [hex('example.com.')] },
    { rules: ['local replace 0xffee {qname} revert', 'local set 0xffee {qtype} revert'], from: [local('foobar')], seen: [hex('example.com.')], reply: [hex('foobar')] },
    { rules: ['nsid replace', 'nsid set'], from: [local('foobar')], seen: [hex('foobar'), '3='], reply: [hex('foobar'), '3='] },
    { rules: ['nsid replace revert', 'nsid set revert'], from: [local('foobar')], seen: [hex('foobar'), '3='], reply: [hex('foobar')] },
    { rules: ['subnet replace 32 56', 'subnet set 0 56'], from: [], seen: ['8=00010000'], reply: ['8=00010000'] },
    { rules: ['subnet replace 32 56', 'subnet set 0 56'], from: [subnet(0)], seen: ['8=000120007f000001'], reply: ['8=000120007f000001'] },
    { rules: ['subnet replace 24 56 revert', 'subnet set 0 56'], from: [subnet(0)], seen: ['8=000118007f0000'], reply: ['8=00010000'] },
    { rules: ['local set 0xffee {client_ip}', 'local set 0xffee x'], from: [], seen: ['65518=7f000001'], reply: ['65518=7f000001'] },
    { rules: ['local set 0xffee {protocol}', 'local set 0xffee x'], from: [], seen: [hex('udp')], reply: [hex('udp')] },
    { rules: ['local unset 0xffee', 'local set 0xffee x'], from: [local('foobar')], seen: [], reply: [] },
  ];
  await Promise.all(
    rows.map(async (row) => {
      const server = await serve(t, row.rules.map((r) => `rewrite stop edns0 ${r}`).join('\n '), plain);
      const reply = await ask(server, ednsQuery('example.com', 'A', row.from));
      assert.deepEqual(seen(reply).slice(3), row.seen, `${row.rules.join(' / ')} seen`);
      assert.deepEqual(optionsOf(reply), row.reply, `${row.rules.join(' / ')} reply`);
    }),
  );
});

test('the CNAME target rewrite: CNAMEs up to the target are kept, the rest is the lookup of the new target', async (t) => {
  const cdn = source((req) => {
    const msg = replyTo(req);
    if (req.qname === 'my-app.com.') {
      msg.answers = [
        { name: 'my-app.com', type: 'CNAME', ttl: 200, data: 'my-app.example' },
        { name: 'my-app.example', type: 'CNAME', ttl: 200, data: 'my-app.com.cdn.example.net' },
        { name: 'my-app.com.cdn.example.net', type: 'A', ttl: 300, data: '20.2.0.1' },
        { name: 'my-app.com.cdn.example.net', type: 'A', ttl: 300, data: '20.2.0.2' },
      ];
    } else if (req.qname === 'my-app.com.other.cdn.com.') {
      msg.answers = [{ name: 'my-app.com.other.cdn.com', type: 'A', ttl: 100, data: '30.3.1.2' }];
    }
    return msg;
  }, true);
  const server = await serve(t, 'rewrite cname regex (.*).cdn.example.net. {1}.other.cdn.com.', [rewrite, cdn]);
  for (const transport of ['udp', 'tcp'] as const) {
    const reply = await query({ port: server.port() }, 'my-app.com', 'A', { transport });
    assert.deepEqual(
      reply.answers?.map((rr) => [rr.name, ttlOf(rr), rr.type, dataOf(rr)]),
      [
        ['my-app.com', 200, 'CNAME', 'my-app.example'],
        ['my-app.example', 200, 'CNAME', 'my-app.com.other.cdn.com'],
        ['my-app.com.other.cdn.com', 100, 'A', '30.3.1.2'],
      ],
      transport,
    );
  }
});

test('several queries on one TCP connection are each rewritten and reverted', async (t) => {
  const server = await serve(t, testRewriteRules, plain);
  const wires = testRewriteRows.map(([name, type], i) => dnsPacket.encode({ type: 'query', id: i + 1, flags: Flags.RD, questions: [{ name, type, class: 'IN' }] }));
  const replies = (await tcpExchange({ port: server.port() }, wires)).map(decodeReply);
  assert.equal(replies.length, testRewriteRows.length);
  for (const reply of replies) {
    const [name, type, toName] = testRewriteRows[(reply.id ?? 0) - 1]!;
    assert.deepEqual(reply.questions, [{ name, type, class: 'IN' }]);
    assert.equal(seen(reply)[0], toName);
  }
});

test('TestValueResponseReverter: answer name and answer value map names and values of every record type back', async (t) => {
  let answers: Answer[] = [];
  let extra: Answer[] = [];
  const fixed = source((req) => ({ ...replyTo(req), answers, additionals: extra }), true);
  const rule = 'name regex (.*)\\.domain\\.uk {1}.cluster.local answer name (.*)\\.cluster\\.local {1}.domain.uk answer value (.*)\\.cluster\\.local {1}.domain.uk';
  const ns1 = (name: string): Answer => ({ name, type: 'A', ttl: 5, data: '10.0.0.1' });
  // CoreDNS's valueTests rows with reverting on: the record, the additional record, the value and the additional name the client sees.
  const rows: [RecordType, Answer, Answer, unknown, string][] = [
    ['SRV', { name: 'my.cluster.local', type: 'SRV', ttl: 5, data: { priority: 0, weight: 100, port: 100, target: 'srv1.my.cluster.local' } }, ns1('srv1.my.cluster.local'), { priority: 0, weight: 100, port: 100, target: 'srv1.my.domain.uk' }, 'srv1.my.domain.uk'],
    [ANY, { name: 'my.cluster.local', type: 'CNAME', ttl: 3600, data: 'cname.cluster.local' }, ns1('cname.cluster.local'), 'cname.domain.uk', 'cname.domain.uk'],
    [ANY, { name: 'my.cluster.local', type: 'DNAME', ttl: 3600, data: 'dname.cluster.local' }, ns1('dname.cluster.local'), 'dname.domain.uk', 'dname.domain.uk'],
    ['MX', { name: 'my.cluster.local', type: 'MX', ttl: 3600, data: { preference: 1, exchange: 'mx1.cluster.local' } }, ns1('mx1.cluster.local'), { preference: 1, exchange: 'mx1.domain.uk' }, 'mx1.domain.uk'],
    [ANY, { name: 'my.cluster.local', type: 'NS', ttl: 3600, data: 'ns1.cluster.local' }, ns1('ns1.cluster.local'), 'ns1.domain.uk', 'ns1.domain.uk'],
    [
      'SOA',
      { name: 'my.cluster.local', type: 'SOA', ttl: 1800, data: { mname: 'ns1.cluster.local', rname: 'admin.cluster.local', serial: 1502165581, refresh: 14400, retry: 3600, expire: 604800, minimum: 14400 } },
      ns1('ns1.cluster.local'),
      { mname: 'ns1.domain.uk', rname: 'admin.cluster.local', serial: 1502165581, refresh: 14400, retry: 3600, expire: 604800, minimum: 14400 },
      'ns1.domain.uk',
    ],
    [
      'NAPTR',
      { name: 'my.cluster.local', type: 'NAPTR', ttl: 100, data: { order: 100, preference: 10, flags: 'S', services: 'SIP+D2U', regexp: '!^.*$!sip:customer-service@example.com!', replacement: '_sip._udp.cluster.local' } },
      ns1('ns1.cluster.local'),
      { order: 100, preference: 10, flags: 'S', services: 'SIP+D2U', regexp: '!^.*$!sip:customer-service@example.com!', replacement: '_sip._udp.domain.uk' },
      'ns1.domain.uk',
    ],
  ];
  for (const mode of ['stop', 'continue']) {
    const server = await serve(t, `rewrite ${mode} ${rule}`, [rewrite, fixed]);
    for (const [type, answer, additional, value, additionalName] of rows) {
      answers = [answer];
      extra = [additional];
      const reply = await query({ port: server.port() }, 'my.domain.uk', type);
      assert.deepEqual(reply.questions, [{ name: 'my.domain.uk', type, class: 'IN' }]);
      assert.equal(reply.answers?.[0]?.name, 'my.domain.uk', `${mode} ${answer.type}`);
      assert.equal(reply.answers?.[0]?.type, answer.type);
      assert.deepEqual(dataOf(reply.answers![0]!), value, `${mode} ${answer.type} value`);
      assert.equal(reply.additionals?.[0]?.name, additionalName, `${mode} ${answer.type} additional`);
    }
  }
});

test('TestCNameTargetRewrite: exact, prefix, suffix, substring and regex targets, chains and truncated lookups', async (t) => {
  const rr = (lines: string[]): Answer[] => lines.map((line) => parseRR(line));
  /** What the plugin after rewrite answers: the original replies and CoreDNS's MockedUpstream lookups. */
  const zone = new Map<string, { answers: Answer[]; truncated?: boolean }>([
    ['abc.example.com.|A', { answers: rr(['abc.example.com. 5 IN CNAME def.example.com.', 'def.example.com. 5 IN A 1.2.3.4']) }],
    ['abc.example.com.|AAAA', { answers: rr(['abc.example.com. 5 IN CNAME def.example.com.', 'def.example.com. 5 IN AAAA 2a01:7e00::f03c:91ff:fe79:234c']) }],
    ['chat.openai.com.|A', { answers: rr(['chat.openai.com. 20 IN CNAME chat.openai.com.cdn.cloudflare.net.', 'chat.openai.com.cdn.cloudflare.net. 30 IN A 23.2.1.2', 'chat.openai.com.cdn.cloudflare.net. 30 IN A 24.6.0.8']) }],
    ['coredns.io.|A', { answers: rr(['coredns.io. 100 IN CNAME www.hosting.uvw.', 'www.hosting.uvw. 200 IN A 7.2.3.4']) }],
    ['core.dns.rocks.|A', { answers: rr(['core.dns.rocks. 200 IN CNAME abcd.efgh.pqrst.', 'abcd.efgh.pqrst. 100 IN A 200.30.45.67']) }],
    ['order.service.eu.|A', { answers: rr(['order.service.eu. 200 IN CNAME orders.web.eu.site.', 'orders.web.eu.site. 50 IN A 10.10.15.1']) }],
    ['music.spotify.com.|A', { answers: rr(['music.spotify.com. 200 IN CNAME music.truncated.spotify.com.']) }],
    [
      'cname-chain.org.|A',
      { answers: rr(['cname-chain.org. 200 IN CNAME intermediate-1.com', 'intermediate-1.com 200 IN CNAME intermediate-2.prod.', 'intermediate-2.prod. 200 IN CNAME final.prod.net.', 'final.prod.net. 120 IN A 1.2.3.4']) },
    ],
    // CoreDNS's MockedUpstream.
    ['xyz.example.com.|A', { answers: rr(['xyz.example.com. 3600 IN A 3.4.5.6']) }],
    ['xyz.example.com.|AAAA', { answers: rr(['xyz.example.com. 3600 IN AAAA 3a01:7e00::f03c:91ff:fe79:234c']) }],
    ['bard.google.com.cdn.cloudflare.net.|A', { answers: rr(['bard.google.com.cdn.cloudflare.net. 1800 IN A 9.7.2.1']) }],
    ['www.hosting.xyz.|A', { answers: rr(['www.hosting.xyz. 500 IN A 20.30.40.50']) }],
    ['abcd.zzzz.www.pqrst.|A', { answers: rr(['abcd.zzzz.www.pqrst. 120 IN A 101.20.5.1', 'abcd.zzzz.www.pqrst. 120 IN A 101.20.5.2']) }],
    ['orders.webapp.eu.org.|A', { answers: rr(['orders.webapp.eu.org. 120 IN A 20.0.0.9']) }],
    ['music.truncated.spotify.com.|A', { answers: rr(['music.truncated.spotify.com. 120 IN A 10.1.0.9']), truncated: true }],
    ['intermediate-2.staging.|A', { answers: rr(['intermediate-2.staging. 200 IN CNAME final.staging.net.', 'final.staging.net. 120 IN A 5.6.7.8']) }],
  ]);
  const mocked = source((req) => {
    const entry = zone.get(`${req.qname}|${req.type}`);
    const msg = replyTo(req);
    msg.flags |= Flags.AA | (entry?.truncated ? Flags.TC : 0);
    msg.answers = entry?.answers ?? [];
    return msg;
  }, true);
  const rules = [
    'rewrite continue cname exact def.example.com xyz.example.com',
    'rewrite continue cname prefix chat.openai.com bard.google.com',
    'rewrite continue cname suffix uvw. xyz.',
    'rewrite continue cname substring efgh zzzz.www',
    'rewrite continue cname regex (.*)\\.web\\.(.*)\\.site\\. {1}.webapp.{2}.org.',
    'rewrite continue cname exact music.truncated.spotify.com. music.truncated.spotify.com.',
    'rewrite continue cname suffix prod. staging.',
  ].join('\n ');
  const server = await serve(t, rules, [rewrite, mocked]);
  const rows: [string, RecordType, string[], boolean][] = [
    ['abc.example.com', 'A', ['abc.example.com. 5 IN CNAME xyz.example.com.', 'xyz.example.com. 3600 IN A 3.4.5.6'], false],
    ['abc.example.com', 'AAAA', ['abc.example.com. 5 IN CNAME xyz.example.com.', 'xyz.example.com. 3600 IN AAAA 3a01:7e00::f03c:91ff:fe79:234c'], false],
    ['chat.openai.com', 'A', ['chat.openai.com. 20 IN CNAME bard.google.com.cdn.cloudflare.net.', 'bard.google.com.cdn.cloudflare.net. 1800 IN A 9.7.2.1'], false],
    ['coredns.io', 'A', ['coredns.io. 100 IN CNAME www.hosting.xyz.', 'www.hosting.xyz. 500 IN A 20.30.40.50'], false],
    ['core.dns.rocks', 'A', ['core.dns.rocks. 200 IN CNAME abcd.zzzz.www.pqrst.', 'abcd.zzzz.www.pqrst. 120 IN A 101.20.5.1', 'abcd.zzzz.www.pqrst. 120 IN A 101.20.5.2'], false],
    ['order.service.eu', 'A', ['order.service.eu. 200 IN CNAME orders.webapp.eu.org.', 'orders.webapp.eu.org. 120 IN A 20.0.0.9'], false],
    ['music.spotify.com', 'A', ['music.spotify.com. 200 IN CNAME music.truncated.spotify.com.', 'music.truncated.spotify.com. 120 IN A 10.1.0.9'], true],
    [
      'cname-chain.org',
      'A',
      ['cname-chain.org. 200 IN CNAME intermediate-1.com', 'intermediate-1.com 200 IN CNAME intermediate-2.staging.', 'intermediate-2.staging. 200 IN CNAME final.staging.net.', 'final.staging.net. 120 IN A 5.6.7.8'],
      false,
    ],
  ];
  for (const [name, type, expected, truncated] of rows) {
    // Over TCP, so a truncated reply is not cut by the UDP size.
    const reply = await query({ port: server.port() }, name, type, { transport: 'tcp' });
    const shown = (reply.answers ?? []).map((a) => [a.name, a.type, dataOf(a), (a as { ttl?: number }).ttl]);
    const want = rr(expected).map((a) => [a.name, a.type, dataOf(a), (a as { ttl?: number }).ttl]);
    assert.deepEqual(shown, want, `${name} ${type}`);
    assert.equal(reply.flag_tc, truncated, `${name} ${type} truncated`);
  }
});

test('TestCNAMETargetRewrite_upstreamFailurePaths: a lookup that gets no reply keeps the CNAME as it was', async (t) => {
  // The lookup of good.target. gets SERVFAIL returned without a reply (CoreDNS's nil message).
  const server = await serve(t, 'rewrite cname exact bad.target. good.target.', [
    rewrite,
    source((req) => (req.qname === 'bad.test.' ? { ...replyTo(req), answers: [parseRR('bad.test. 60 IN CNAME bad.target.')] } : Rcode.SERVFAIL)),
  ]);
  const reply = await query({ port: server.port() }, 'bad.test', 'A');
  assert.equal(rcodeOf(reply), 'NOERROR');
  assert.deepEqual(reply.answers?.map((a) => [a.name, dataOf(a)]), [['bad.test', 'bad.target']]);
  assert.ok(server.lines.some((line) => line.includes('upstream lookup returned nil')), server.lines.join('\n'));
});

test('rewrite in front of template: the template answers the rewritten name, the client sees its own', async (t) => {
  const body = [
    'rewrite name exact foo.example.com foo.default.svc.cluster.local',
    ' rewrite name suffix .corp.example .default.svc.cluster.local answer auto',
    ' template IN A cluster.local {',
    '  answer "{{ .Name }} 60 IN A 10.1.2.3"',
    '  answer "{{ .Name }} 60 IN CNAME alias.{{ .Name }}"',
    ' }',
  ].join('\n');
  const server = await serve(t, body, [rewrite, template]);
  for (const [name, transport] of [['foo.example.com', 'udp'], ['bar.corp.example', 'tcp']] as const) {
    const reply = await query({ port: server.port() }, name, 'A', { transport });
    assert.deepEqual(reply.questions, [{ name, type: 'A', class: 'IN' }]);
    assert.deepEqual(
      reply.answers?.map((a) => [a.name, a.type, dataOf(a)]),
      [
        [name, 'A', '10.1.2.3'],
        // The CNAME's target is below the rewritten name, so it is mapped back too.
        [name, 'CNAME', `alias.${name}`],
      ],
      name,
    );
    assert.equal(reply.flag_aa, true);
  }
});

test('name_test.go: prefix, suffix, exact and regex rules with and without answer auto', async (t) => {
  // The rule, the question, the name the next plugin sees, and the owner name the client gets.
  const rows: [string, string, string, string][] = [
    // TestRewriteNamePrefixSuffix and TestRewriteNamePrefixSuffixNoAutoAnswer.
    ['prefix foo bar', 'foo.example.com', 'bar.example.com.', 'bar.example.com'],
    ['prefix foo. bar.', 'foo.example.com', 'bar.example.com.', 'bar.example.com'],
    ['suffix com org', 'foo.example.com', 'foo.example.org.', 'foo.example.org'],
    ['suffix .com .org', 'foo.example.com', 'foo.example.org.', 'foo.example.org'],
    ['suffix .ingress.coredns.rocks nginx.coredns.rocks', 'coredns.ingress.coredns.rocks', 'corednsnginx.coredns.rocks.', 'corednsnginx.coredns.rocks'],
    // TestRewriteNameNoRewrite.
    ['prefix foo bar', 'coredns.foo', 'coredns.foo.', 'coredns.foo'],
    ['prefix foo bar.', 'coredns.foo', 'coredns.foo.', 'coredns.foo'],
    ['suffix com org', 'com.coredns', 'com.coredns.', 'com.coredns'],
    ['substring service svc', 'com.coredns', 'com.coredns.', 'com.coredns'],
    // TestRewriteNamePrefixSuffixAutoAnswer.
    ['prefix foo bar answer auto', 'foo.example.com', 'bar.example.com.', 'foo.example.com'],
    ['prefix foo. bar. answer auto', 'foo.example.com', 'bar.example.com.', 'foo.example.com'],
    ['suffix com org answer auto', 'foo.example.com', 'foo.example.org.', 'foo.example.com'],
    ['suffix .com .org answer auto', 'foo.example.com', 'foo.example.org.', 'foo.example.com'],
    ['suffix .ingress.coredns.rocks nginx.coredns.rocks answer auto', 'coredns.ingress.coredns.rocks', 'corednsnginx.coredns.rocks.', 'coredns.ingress.coredns.rocks'],
    // TestRewriteNameExactAnswer.
    ['exact coredns.rocks service.consul answer auto', 'coredns.rocks', 'service.consul.', 'coredns.rocks'],
    ['exact coredns.rocks. service.consul. answer auto', 'coredns.rocks', 'service.consul.', 'coredns.rocks'],
    ['exact coredns.rocks service.consul', 'coredns.rocks', 'service.consul.', 'coredns.rocks'],
    ['exact coredns.org. service.consul.', 'coredns.rocks', 'coredns.rocks.', 'coredns.rocks'],
    // TestRewriteNameRegexAnswer.
    ['regex (.*).coredns.rocks {1}.coredns.maps answer auto', 'foo.coredns.rocks', 'foo.coredns.maps.', 'foo.coredns.rocks'],
    ['regex (.*).coredns.rocks {1}.coredns.maps', 'foo.coredns.rocks', 'foo.coredns.maps.', 'foo.coredns.maps'],
  ];
  await Promise.all(
    rows.map(async ([rule, question, next, owner]) => {
      const server = await serve(t, `rewrite stop name ${rule}`, plain);
      const reply = await query({ port: server.port() }, question, 'A');
      assert.equal(seen(reply)[0], next, `${rule}: the next plugin's question`);
      assert.equal(reply.answers?.[0]?.name, owner, `${rule}: the answer's owner`);
      assert.deepEqual(reply.questions, [{ name: question, type: 'A', class: 'IN' }]);
    }),
  );
});

test('TestRewriteIllegalName: an exact rule to example..org. answers SERVFAIL', async (t) => {
  const server = await serve(t, 'rewrite name example.org. example..org.', plain);
  const reply = await query({ port: server.port() }, 'example.org', 'A');
  assert.equal(rcodeOf(reply), 'SERVFAIL');
});
