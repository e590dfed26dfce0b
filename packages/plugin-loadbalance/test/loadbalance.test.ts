/**
 * CoreDNS plugin/loadbalance/loadbalance_test.go, weighted_test.go and prefer_test.go over real
 * sockets: an answerer below loadbalance writes fixed records, as a message object or as wire
 * bytes (what cache hits are), and the client checks the order it receives.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import dnsPacket from 'dns-packet';
import type { Answer, RecordType } from 'dns-packet';
import { Flags, replyTo } from '@foghorn/core';
import type { Request, ResponseWriter } from '@foghorn/core';
import { decodeReply, directivesOf, makeQuery, query, rcodeOf, startServer, tcpExchange, testPlugin, udpExchange } from '@foghorn/testkit';
import type { Reply, TestServer } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import cache from '@foghorn/plugin-cache';
import loadbalance, { createLoadbalancePlugin } from '@foghorn/plugin-loadbalance';
import type { RandomInt } from '@foghorn/plugin-loadbalance';

const A = (name: string, data: string): Answer => ({ type: 'A', name, ttl: 300, class: 'IN', data });
const AAAA = (name: string, data: string): Answer => ({ type: 'AAAA', name, ttl: 300, class: 'IN', data });
const CNAME = (name: string, data: string): Answer => ({ type: 'CNAME', name, ttl: 300, class: 'IN', data });
const MX = (name: string, preference: number, exchange: string): Answer => ({ type: 'MX', name, ttl: 300, class: 'IN', data: { preference, exchange } });
const SOA = (name: string): Answer => ({
  type: 'SOA',
  name,
  ttl: 30,
  class: 'IN',
  data: { mname: 'ns.dns.skydns.test', rname: 'hostmaster.skydns.test', serial: 1542756695, refresh: 7200, retry: 1800, expire: 86400, minimum: 30 },
});

/** What the answerer writes. */
interface Canned {
  answers?: Answer[];
  authorities?: Answer[];
  additionals?: Answer[];
  rcode?: number;
  /** Write the reply as wire bytes (writeWire) instead of a message object. */
  wire?: boolean;
  /** Exact wire bytes to write, the query's ID patched in. */
  raw?: Buffer;
}

/** A server: loadbalance (with `random`, if given) in front of an answerer writing `canned`. */
async function serve(t: { after(fn: () => Promise<void>): void }, canned: () => Canned, options: { random?: RandomInt; body?: string; cache?: boolean } = {}): Promise<TestServer> {
  const answerer = testPlugin('answer', () => ({
    name: 'answer',
    serveDNS(req: Request, w: ResponseWriter): number {
      const c = canned();
      if (c.raw) {
        const raw = Buffer.from(c.raw);
        raw.writeUInt16BE(req.id, 0);
        w.writeWire(raw);
        return 0;
      }
      const reply = replyTo(req, c.rcode ?? 0);
      reply.flags |= Flags.AA;
      reply.answers = c.answers ?? [];
      reply.authorities = c.authorities ?? [];
      reply.additionals = c.additionals ?? [];
      if (c.wire) w.writeWire(dnsPacket.encode(reply));
      else w.write(reply);
      return c.rcode ?? 0;
    },
  }));
  const plugin = options.random ? createLoadbalancePlugin(options.random) : loadbalance;
  const body = options.body ?? 'loadbalance';
  const server = await startServer(`.:0 {\n bind 127.0.0.1\n ${body}\n${options.cache ? ' cache\n' : ''} answer\n}\n`, {
    directives: directivesOf(bind, plugin, cache, answerer),
  });
  t.after(() => server.close());
  return server;
}

/** CoreDNS's countRecords: counts, and whether CNAMEs come before addresses before MX. */
function countRecords(records: readonly Answer[] = []): { cname: number; address: number; mx: number; sorted: boolean } {
  const rank: Partial<Record<string, number>> = { CNAME: 1, A: 2, AAAA: 2, MX: 3 };
  let state = 0;
  let sorted = true;
  const counts = { cname: 0, address: 0, mx: 0 };
  for (const record of records) {
    const r = rank[record.type];
    if (r === undefined) {
      state = 4;
      continue;
    }
    sorted &&= state <= r;
    state = r;
    if (r === 1) counts.cname++;
    else if (r === 2) counts.address++;
    else counts.mx++;
  }
  return { ...counts, sorted };
}

const text = (records: readonly Answer[] = []): string[] =>
  records.map((r) => {
    const data = (r as { data?: unknown }).data;
    if (r.type === 'MX') return `MX ${(data as { exchange: string }).exchange}`;
    return `${r.type} ${typeof data === 'string' ? data : JSON.stringify(data, (_k, v: unknown) => (v instanceof Object && 'type' in v && v.type === 'Buffer' ? Buffer.from((v as unknown as { data: number[] }).data).toString() : v))}`;
  });

const randomTables: { answer: Answer[]; extra?: Answer[]; want: [number, number, number, number, number, number] }[] = [
  {
    answer: [
      CNAME('cname1.region2.skydns.test', 'cname2.region2.skydns.test'),
      CNAME('cname2.region2.skydns.test', 'cname3.region2.skydns.test'),
      CNAME('cname5.region2.skydns.test', 'cname6.region2.skydns.test'),
      CNAME('cname6.region2.skydns.test', 'endpoint.region2.skydns.test'),
      A('endpoint.region2.skydns.test', '10.240.0.1'),
      MX('mx.region2.skydns.test', 1, 'mx1.region2.skydns.test'),
      MX('mx.region2.skydns.test', 2, 'mx2.region2.skydns.test'),
      MX('mx.region2.skydns.test', 3, 'mx3.region2.skydns.test'),
    ],
    want: [4, 0, 1, 0, 3, 0],
  },
  {
    answer: [A('endpoint.region2.skydns.test', '10.240.0.1'), MX('mx.region2.skydns.test', 1, 'mx1.region2.skydns.test'), CNAME('cname.region2.skydns.test', 'endpoint.region2.skydns.test')],
    want: [1, 0, 1, 0, 1, 0],
  },
  {
    answer: [
      MX('mx.region2.skydns.test', 1, 'mx1.region2.skydns.test'),
      A('endpoint.region2.skydns.test', '10.240.0.1'),
      A('endpoint.region2.skydns.test', '10.240.0.2'),
      MX('mx.region2.skydns.test', 1, 'mx2.region2.skydns.test'),
      CNAME('cname2.region2.skydns.test', 'cname3.region2.skydns.test'),
      A('endpoint.region2.skydns.test', '10.240.0.3'),
      MX('mx.region2.skydns.test', 1, 'mx3.region2.skydns.test'),
    ],
    extra: [
      A('endpoint.region2.skydns.test', '10.240.0.1'),
      AAAA('endpoint.region2.skydns.test', '::1'),
      MX('mx.region2.skydns.test', 1, 'mx1.region2.skydns.test'),
      CNAME('cname2.region2.skydns.test', 'cname3.region2.skydns.test'),
      MX('mx.region2.skydns.test', 1, 'mx2.region2.skydns.test'),
      A('endpoint.region2.skydns.test', '10.240.0.3'),
      AAAA('endpoint.region2.skydns.test', '::2'),
      MX('mx.region2.skydns.test', 1, 'mx3.region2.skydns.test'),
    ],
    want: [1, 1, 3, 4, 3, 3],
  },
];

for (const wire of [false, true]) {
  test(`round_robin puts CNAMEs first, then addresses, then MX (TestLoadBalanceRandom, ${wire ? 'wire' : 'object'} replies)`, async (t) => {
    for (const [i, table] of randomTables.entries()) {
      const server = await serve(t, () => ({ answers: table.answer, additionals: table.extra ?? [], wire }));
      for (const transport of ['udp', 'tcp'] as const) {
        // dns-packet does not compress: these replies need more than 512 bytes.
        const reply = await query({ port: server.port() }, 'region2.skydns.test', 'SRV', { transport, udpSize: 4096 });
        const answer = countRecords(reply.answers);
        const extra = countRecords(reply.additionals);
        assert.ok(answer.sorted && extra.sorted, `table ${i}: ${text(reply.answers).join(', ')}`);
        assert.deepEqual([answer.cname, extra.cname, answer.address, extra.address, answer.mx, extra.mx], table.want, `table ${i}`);
      }
    }
  });
}

test('round_robin varies the order of addresses and of MX records, and never changes the records', async (t) => {
  const answers = [A('a.example.org', '10.0.0.1'), A('a.example.org', '10.0.0.2'), A('a.example.org', '10.0.0.3'), A('a.example.org', '10.0.0.4')];
  const before = [...answers];
  const server = await serve(t, () => ({ answers }), { cache: true });
  const orders = new Set<string>();
  for (let i = 0; i < 40; i++) {
    const reply = await query({ port: server.port() }, 'a.example.org', 'A');
    assert.deepEqual(text(reply.answers).sort(), text(before).sort());
    orders.add(text(reply.answers).join());
  }
  // The first query was a cache miss (object reply), the others cache hits (wire replies).
  assert.ok(orders.size > 4, `only ${orders.size} orders in 40 replies`);
  // TestRoundRobinDoesNotMutateInput: the answerer's own array is as it was.
  assert.deepEqual(answers, before);
});

test('replies other than NOERROR and zone transfers keep their order (TestLoadBalanceXFR)', async (t) => {
  const zone = [
    SOA('skydns.test'),
    MX('mx.region2.skydns.test', 1, 'mx1.region2.skydns.test'),
    A('endpoint.region2.skydns.test', '10.240.0.1'),
    A('endpoint.region2.skydns.test', '10.240.0.2'),
    MX('mx.region2.skydns.test', 1, 'mx2.region2.skydns.test'),
    CNAME('cname2.region2.skydns.test', 'cname3.region2.skydns.test'),
    A('endpoint.region2.skydns.test', '10.240.0.3'),
    MX('mx.region2.skydns.test', 1, 'mx3.region2.skydns.test'),
    SOA('skydns.test'),
  ];
  for (const wire of [false, true]) {
    const server = await serve(t, () => ({ answers: zone, wire }));
    for (const type of ['AXFR', 'IXFR'] as RecordType[]) {
      for (let i = 0; i < 5; i++) {
        const [bytes] = await tcpExchange({ port: server.port() }, makeQuery('skydns.test', type));
        assert.deepEqual(text(decodeReply(bytes!).answers), text(zone), type);
      }
    }
    const denied = await serve(t, () => ({ rcode: 3, answers: zone.slice(1, 8), wire }));
    for (let i = 0; i < 5; i++) {
      const reply = await query({ port: denied.port() }, 'skydns.test', 'A');
      assert.equal(rcodeOf(reply), 'NXDOMAIN');
      assert.deepEqual(text(reply.answers), text(zone.slice(1, 8)));
    }
  }
});

/** An encoded reply for `example.org. A` whose records use compression pointers. */
function compressedReply(records: Buffer[], counts: [number, number, number] = [records.length, 0, 0]): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(0x8180, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(counts[0], 6);
  header.writeUInt16BE(counts[1], 8);
  header.writeUInt16BE(counts[2], 10);
  const question = Buffer.from([7, ...Buffer.from('example'), 3, ...Buffer.from('org'), 0, 0, 1, 0, 1]);
  return Buffer.concat([header, question, ...records]);
}
const rr = (owner: number[], type: number, rdata: number[]): Buffer => Buffer.from([...owner, type >> 8, type & 0xff, 0, 1, 0, 0, 0, 60, rdata.length >> 8, rdata.length & 0xff, ...rdata]);
const toQuestion = [0xc0, 12];

test('wire replies are reordered on the wire, compression pointers and all', async (t) => {
  // Three A records whose owners point at the question name, which never moves.
  const wire = compressedReply([rr(toQuestion, 1, [10, 0, 0, 1]), rr(toQuestion, 1, [10, 0, 0, 2]), rr(toQuestion, 1, [10, 0, 0, 3])]);
  const server = await serve(t, () => ({ raw: wire }));
  const orders = new Set<string>();
  for (let i = 0; i < 30; i++) {
    const bytes = await udpExchange({ port: server.port() }, makeQuery('example.org', 'A'));
    assert.ok(bytes);
    assert.equal(bytes.length, wire.length, 'moved as they are, not re-encoded');
    const reply = decodeReply(bytes);
    assert.deepEqual(reply.answers?.map((a) => a.name), ['example.org', 'example.org', 'example.org']);
    orders.add(text(reply.answers).join());
  }
  assert.ok(orders.size > 3, `only ${orders.size} orders`);
});

test('a wire reply whose pointers target a moving record is decoded, reordered and re-encoded', async (t) => {
  // MX first: its exchange `mail.example.org` sits at offset 29 + 12 = 41 + 2; the A records'
  // owners point into it. round_robin moves the MX behind the addresses.
  const mxRdata = [0, 10, 4, ...Buffer.from('mail'), 0xc0, 12];
  const mxStart = 12 + 17;
  const exchangeAt = mxStart + 2 + 10 + 2;
  const wire = compressedReply([rr(toQuestion, 15, mxRdata), rr([0xc0, exchangeAt], 1, [10, 0, 0, 1]), rr([0xc0, exchangeAt], 1, [10, 0, 0, 2])]);
  // The hand-made message is what it claims to be.
  const sent = decodeReply(wire);
  assert.deepEqual(text(sent.answers), ['MX mail.example.org', 'A 10.0.0.1', 'A 10.0.0.2']);
  assert.deepEqual(sent.answers?.map((a) => a.name), ['example.org', 'mail.example.org', 'mail.example.org']);
  const server = await serve(t, () => ({ raw: wire }));
  for (let i = 0; i < 10; i++) {
    const reply = await query({ port: server.port() }, 'example.org', 'A', { transport: i % 2 ? 'tcp' : 'udp' });
    assert.deepEqual(reply.answers?.map((a) => `${a.name} ${a.type}`), ['mail.example.org A', 'mail.example.org A', 'example.org MX']);
    assert.deepEqual(text(reply.answers).slice(0, 2).sort(), ['A 10.0.0.1', 'A 10.0.0.2']);
  }
});

// TestLoadBalanceWRR: the draw is injected; each query names the value drawn and the top address.
const twoDomains = 'endpoint.region2.skydns.test\n10.240.0.2 5\n10.240.0.1 2\nendpoint.region1.skydns.test\n::2 4\n::1 3\n';
const oneDomain = 'endpoint.region2.skydns.test\n10.240.0.2 3\n10.240.0.1 2\n';
const wrrTables: { weights: string; answer: Answer[]; extra?: Answer[]; sum: number; queries: [number, string][]; counts: number[] }[] = [
  {
    weights: twoDomains,
    answer: [
      CNAME('cname1.region2.skydns.test', 'cname2.region2.skydns.test'),
      CNAME('cname2.region2.skydns.test', 'cname3.region2.skydns.test'),
      CNAME('cname5.region2.skydns.test', 'cname6.region2.skydns.test'),
      CNAME('cname6.region2.skydns.test', 'endpoint.region2.skydns.test'),
      A('endpoint.region2.skydns.test', '10.240.0.1'),
      A('endpoint.region2.skydns.test', '10.240.0.2'),
      A('endpoint.region2.skydns.test', '10.240.0.3'),
      AAAA('endpoint.region1.skydns.test', '::1'),
      AAAA('endpoint.region1.skydns.test', '::2'),
      MX('mx.region2.skydns.test', 1, 'mx1.region2.skydns.test'),
      MX('mx.region2.skydns.test', 2, 'mx2.region2.skydns.test'),
      MX('mx.region2.skydns.test', 3, 'mx3.region2.skydns.test'),
    ],
    extra: [
      CNAME('cname6.region2.skydns.test', 'endpoint.region2.skydns.test'),
      A('endpoint.region2.skydns.test', '10.240.0.1'),
      A('endpoint.region2.skydns.test', '10.240.0.2'),
      A('endpoint.region2.skydns.test', '10.240.0.3'),
      AAAA('endpoint.region1.skydns.test', '::1'),
      AAAA('endpoint.region1.skydns.test', '::2'),
      MX('mx.region2.skydns.test', 1, 'mx1.region2.skydns.test'),
    ],
    sum: 15,
    queries: [[0, '10.240.0.2'], [4, '10.240.0.2'], [5, '::2'], [8, '::2'], [9, '::1'], [11, '::1'], [12, '10.240.0.1'], [13, '10.240.0.1'], [14, '10.240.0.3']],
    counts: [4, 1, 5, 5, 3, 1],
  },
  {
    weights: oneDomain,
    answer: [
      A('endpoint.region2.skydns.test', '10.240.0.1'),
      MX('mx.region2.skydns.test', 1, 'mx1.region2.skydns.test'),
      CNAME('cname.region2.skydns.test', 'endpoint.region2.skydns.test'),
      A('endpoint.region2.skydns.test', '10.240.0.2'),
      A('endpoint.region1.skydns.test', '10.240.0.3'),
    ],
    sum: 6,
    queries: [[0, '10.240.0.2'], [2, '10.240.0.2'], [3, '10.240.0.1'], [4, '10.240.0.1'], [5, '10.240.0.3']],
    counts: [1, 0, 3, 0, 1, 0],
  },
  {
    weights: oneDomain,
    answer: [MX('mx.region2.skydns.test', 1, 'mx1.region2.skydns.test'), CNAME('cname.region2.skydns.test', 'endpoint.region2.skydns.test')],
    sum: 0,
    queries: [[0, '']],
    counts: [1, 0, 0, 0, 1, 0],
  },
];

function tempFile(t: { after(fn: () => void): void }, contents: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'foghorn-lb-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'weights');
  writeFileSync(path, contents);
  return path;
}

const topAddress = (records: readonly Answer[] = []): string => {
  const first = records.find((r) => r.type === 'A' || r.type === 'AAAA');
  return first ? String((first as { data: unknown }).data) : '';
};

for (const wire of [false, true]) {
  test(`weighted moves the drawn address to the top (TestLoadBalanceWRR, ${wire ? 'wire' : 'object'} replies)`, async (t) => {
    for (const [i, table] of wrrTables.entries()) {
      let draw = 0;
      const limits: number[] = [];
      const random: RandomInt = (limit) => {
        limits.push(limit);
        return draw;
      };
      const file = tempFile(t, table.weights);
      const server = await serve(t, () => ({ answers: table.answer, additionals: table.extra ?? [], wire }), { random, body: `loadbalance weighted ${file}` });
      for (const [j, [value, top]] of table.queries.entries()) {
        draw = value;
        const reply = await query({ port: server.port() }, 'endpoint.region2.skydns.test', 'SRV', { udpSize: 4096 });
        assert.equal(topAddress(reply.answers), top, `table ${i} query ${j}`);
        if (table.extra) assert.equal(topAddress(reply.additionals), top, `table ${i} query ${j} (extra)`);
        const answer = countRecords(reply.answers);
        const extra = countRecords(reply.additionals);
        if (top !== '') assert.ok(answer.sorted && extra.sorted, `table ${i} query ${j}: ${text(reply.answers).join(', ')}`);
        assert.deepEqual([answer.cname, extra.cname, answer.address, extra.address, answer.mx, extra.mx], table.counts);
      }
      // Every draw was below the sum of the weights of the addresses in the section.
      for (const limit of limits) assert.equal(limit, table.sum, `table ${i}`);
      assert.ok(server.lines.includes(`[INFO] plugin/loadbalance: Successfully reloaded weight file ${file}`));
    }
  });
}

test('weighted applies to A, AAAA and SRV queries only, and leaves the authority section alone', async (t) => {
  const file = tempFile(t, oneDomain);
  const answers = [A('endpoint.region2.skydns.test', '10.240.0.1'), A('endpoint.region2.skydns.test', '10.240.0.2')];
  const server = await serve(t, () => ({ answers, authorities: answers }), { random: () => 0, body: `loadbalance weighted ${file}` });
  const a = await query({ port: server.port() }, 'endpoint.region2.skydns.test', 'A');
  assert.equal(topAddress(a.answers), '10.240.0.2');
  assert.equal(topAddress(a.authorities), '10.240.0.1');
  const txt = await query({ port: server.port() }, 'endpoint.region2.skydns.test', 'TXT');
  assert.equal(topAddress(txt.answers), '10.240.0.1');
});

test('the weight file is re-read when it changes; a broken one is reported and the old weights stay (TestPeriodicWeightUpdate)', async (t) => {
  const file = tempFile(t, oneDomain);
  const answers = [A('endpoint.region2.skydns.test', '10.240.0.1'), A('endpoint.region2.skydns.test', '10.240.0.2')];
  // Draw 0: the heaviest address comes first.
  const server = await serve(t, () => ({ answers }), { random: () => 0, body: `loadbalance weighted ${file} {\n  reload 20ms\n }` });
  const top = async (): Promise<string> => topAddress((await query({ port: server.port() }, 'endpoint.region2.skydns.test', 'A')).answers);
  assert.equal(await top(), '10.240.0.2');
  const reloaded = (): number => server.lines.filter((l) => l === `[INFO] plugin/loadbalance: Successfully reloaded weight file ${file}`).length;
  writeFileSync(file, 'endpoint.region2.skydns.test\n10.240.0.1 9\n');
  await waitUntil(() => reloaded() === 2);
  assert.equal(await top(), '10.240.0.1');
  writeFileSync(file, 'endpoint.region2.skydns.test\n10.240.0.1 300\n');
  const error = `[ERROR] plugin/loadbalance: wrong weight value:"300" in weight file ${file}`;
  await waitUntil(() => server.lines.includes(error));
  assert.equal(await top(), '10.240.0.1');
  assert.equal(server.lines.filter((l) => l === error).length, 1, 'reported once while the file stays the same');
});

test('a missing weight file is a warning when it will be re-read, and a startup error when not', async (t) => {
  const dir = tempFile(t, '');
  const missing = `${dir}.missing`;
  const server = await serve(t, () => ({ answers: [A('a.example.org', '10.0.0.1')] }), { body: `loadbalance weighted ${missing} {\n  reload 1m30s\n }` });
  assert.ok(server.lines.includes('[WARNING] plugin/loadbalance: Failed to open weight file:weight file open error. Will try again in 1m30s'), server.lines.join('\n'));
  assert.equal(rcodeOf(await query({ port: server.port() }, 'a.example.org', 'A')), 'NOERROR');
  await assert.rejects(serve(t, () => ({}), { body: `loadbalance weighted ${missing} {\n  reload 0s\n }` }), /^StartupError: plugin\/loadbalance: Corefile:\d+:\d+ - weight file open error$/);
  const broken = tempFile(t, 'www.example.org\n10.0.0.1 3 extra\n');
  await assert.rejects(serve(t, () => ({}), { body: `loadbalance weighted ${broken}` }), (e: Error) => {
    assert.match(e.message, /^plugin\/loadbalance: Corefile:\d+:\d+ - /);
    assert.equal(e.message.replace(/Corefile:\d+:\d+ - /, ''), `plugin/loadbalance: could not parse weight line:"10.0.0.1 3 extra" in weight file ${broken}`);
    return true;
  });
});

test('prefer puts addresses in the preferred subnets first, in subnet order (TestSortPreferred)', async (t) => {
  const answers = [
    A('example.org', '10.9.30.1'),
    A('example.org', '10.9.20.5'),
    A('example.org', '192.168.1.2'),
    A('example.org', '10.10.0.1'),
    A('example.org', '10.9.20.3'),
    A('example.org', '172.16.0.1'),
    AAAA('example.org', '2001:db8::1'),
    AAAA('example.org', '2001:db8:abcd::1'),
    AAAA('example.org', 'fd00::1'),
    CNAME('example.org', 'alias.example.org'),
  ];
  const want = ['CNAME alias.example.org', 'AAAA 2001:db8::1', 'AAAA 2001:db8:abcd::1', 'A 10.9.20.5', 'A 10.9.20.3', 'A 10.9.30.1', 'A 192.168.1.2', 'A 10.10.0.1', 'A 172.16.0.1', 'AAAA fd00::1'];
  for (const wire of [false, true]) {
    // Draws of limit-1 make every Fisher–Yates step keep its element: the shuffle is the identity.
    const server = await serve(t, () => ({ answers, additionals: answers, wire }), {
      random: (limit) => limit - 1,
      body: 'loadbalance round_robin {\n  prefer 2001:db8::/32 10.9.20.0/24 10.9.30.0/24\n }',
    });
    const reply: Reply = await query({ port: server.port() }, 'example.org', 'A', { transport: 'tcp' });
    assert.deepEqual(text(reply.answers), want);
    assert.deepEqual(text(reply.additionals), want);
  }
});

test('prefer orders CNAME, addresses, MX, then the rest (CoreDNS prefer.go, unlike round_robin)', async (t) => {
  const answers = [{ type: 'TXT', name: 'example.org', ttl: 300, class: 'IN', data: 'x' } as Answer, MX('example.org', 1, 'mx.example.org'), A('example.org', '10.0.0.1'), CNAME('example.org', 'c.example.org')];
  const server = await serve(t, () => ({ answers }), { random: (limit) => limit - 1, body: 'loadbalance {\n  prefer 10.0.0.0/8\n }' });
  const reply = await query({ port: server.port() }, 'example.org', 'A');
  assert.deepEqual(text(reply.answers), ['CNAME c.example.org', 'A 10.0.0.1', 'MX mx.example.org', 'TXT ["x"]']);
});

/** Polls a condition every 10 ms (the file watcher runs on its own timer), for up to 10 s. */
async function waitUntil(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
