import { test } from 'node:test';
import assert from 'node:assert/strict';
import dnsPacket from 'dns-packet';
import type { Answer, Packet } from 'dns-packet';
import { Rcode, rcodeToString, replyTo } from '@foghorn/core';
import type { Request } from '@foghorn/core';
import bind from '@foghorn/plugin-bind';
import forward from '@foghorn/plugin-forward';
import { checkResponse, decodeReply, directivesOf, FakeBackend, query, rcodeOf, reply, rr, startServer, tcpExchange, testPlugin, udpExchange, upstreamFor } from '@foghorn/testkit';
import type { Case, Decoded } from '@foghorn/testkit';
import minimal from '../src/index.js';

// CoreDNS v1.14.7's plugin/minimal/minimal_test.go: the records of TestMinimizeResponse.
const baseAnswer = ['example.com. 293 IN A 142.250.76.46'];
const baseNs = ['example.com. 157127 IN NS ns2.example.com.', 'example.com. 157127 IN NS ns1.example.com.', 'example.com. 157127 IN NS ns3.example.com.', 'example.com. 157127 IN NS ns4.example.com.'];
const baseExtra = [
  'ns2.example.com. 316273 IN A 216.239.34.10',
  'ns2.example.com. 157127 IN AAAA 2001:4860:4802:34::a',
  'ns3.example.com. 316274 IN A 216.239.36.10',
  'ns3.example.com. 157127 IN AAAA 2001:4860:4802:36::a',
  'ns1.example.com. 165555 IN A 216.239.32.10',
  'ns1.example.com. 165555 IN AAAA 2001:4860:4802:32::a',
  'ns4.example.com. 190188 IN A 216.239.38.10',
  'ns4.example.com. 157127 IN AAAA 2001:4860:4802:38::a',
];
const soa = 'example.com. 300 IN SOA ns1.example.com. hostmaster.example.com. 1 7200 3600 1209600 300';

interface Row {
  readonly what: string;
  readonly qname: string;
  readonly rcode: number;
  readonly answer: readonly string[];
  readonly ns: readonly string[];
  readonly extra: readonly string[];
  /** What minimal lets through: true keeps every section, false only the answer. */
  readonly kept: boolean;
}

const rows: Row[] = [
  // CoreDNS's three cases.
  { what: 'NOERROR with answers loses its additional section', qname: 'answer.example.com.', rcode: 0, answer: baseAnswer, ns: [], extra: baseExtra, kept: false },
  { what: 'a delegation keeps everything', qname: 'delegation.example.com.', rcode: 0, answer: [], ns: baseNs, extra: baseExtra, kept: true },
  { what: 'an error reply keeps everything', qname: 'error.example.com.', rcode: Rcode.SERVFAIL, answer: baseAnswer, ns: baseNs, extra: baseExtra, kept: true },
  // The rest of response.Typify's kinds.
  { what: 'NOERROR with answers and NS in authority loses both sections', qname: 'full.example.com.', rcode: 0, answer: baseAnswer, ns: baseNs, extra: baseExtra, kept: false },
  { what: 'NODATA keeps its SOA', qname: 'nodata.example.com.', rcode: 0, answer: [], ns: [soa], extra: baseExtra, kept: true },
  { what: 'NXDOMAIN keeps its SOA', qname: 'nxdomain.example.com.', rcode: Rcode.NXDOMAIN, answer: [], ns: [soa], extra: baseExtra, kept: true },
  { what: 'NOERROR with neither answers, SOA nor NS loses its additional section', qname: 'empty.example.com.', rcode: 0, answer: [], ns: [], extra: baseExtra, kept: false },
  { what: 'REFUSED keeps everything', qname: 'refused.example.com.', rcode: Rcode.REFUSED, answer: [], ns: baseNs, extra: baseExtra, kept: true },
];

const rowFor = (qname: string): Row => {
  const row = rows.find((r) => r.qname === qname.toLowerCase());
  assert.ok(row, `no row for ${qname}`);
  return row;
};

const caseOf = (row: Row): Case => ({
  qname: row.qname,
  qtype: 'A',
  rcode: rcodeToString(row.rcode),
  answer: row.answer,
  ...(row.kept ? { ns: row.ns, extra: row.extra } : {}),
});

function messageFor(req: Request): Packet {
  const row = rowFor(req.qname);
  return { ...replyTo(req, row.rcode), answers: row.answer.map(rr), authorities: row.ns.map(rr), additionals: row.extra.map(rr) };
}

function upstreamReply(q: Decoded): Packet[] {
  const row = rowFor(q.questions[0]!.name + '.');
  const r = reply(q, { rcode: row.rcode, answers: row.answer.map(rr) });
  return [{ ...r, authorities: row.ns.map(rr), additionals: [...(r.additionals ?? []), ...row.extra.map(rr)] }];
}

test('minimal strips what CoreDNS strips from replies written as messages, over UDP and TCP, with and without EDNS (CoreDNS TestMinimizeResponse)', async (t) => {
  const backend = new FakeBackend();
  backend.table.set('* A', messageFor);
  const server = await startServer('example.com:0 {\n bind 127.0.0.1\n minimal\n backend\n}\n', { directives: directivesOf(bind, minimal, backend.plugin()) });
  t.after(() => server.close());
  for (const row of rows) {
    for (const transport of ['udp', 'tcp'] as const) {
      for (const udpSize of [undefined, 4096]) {
        const r = await query({ port: server.port() }, row.qname, 'A', { transport, ...(udpSize ? { udpSize } : {}) });
        checkResponse(r, caseOf(row));
        assert.deepEqual(r.additionals?.filter((a) => a.type === 'OPT').length, udpSize ? 1 : 0, `${row.what}: OPT for EDNS clients only`);
      }
    }
  }
});

test('minimal cuts pre-encoded replies (forward) the same way, and keeps the EDNS client its OPT', async (t) => {
  const upstream = await upstreamFor(t, upstreamReply);
  const server = await startServer(`example.com:0 {\n bind 127.0.0.1\n minimal\n forward . ${upstream.address}\n}\n`, { directives: directivesOf(bind, minimal, forward) });
  t.after(() => server.close());
  for (const row of rows) {
    for (const transport of ['udp', 'tcp'] as const) {
      for (const udpSize of [undefined, 4096]) {
        const r = await query({ port: server.port() }, row.qname, 'A', { transport, ...(udpSize ? { udpSize } : {}), dnssecOk: udpSize !== undefined });
        checkResponse(r, caseOf(row));
        const opt = r.additionals?.find((a) => a.type === 'OPT') as (Answer & { udpPayloadSize?: number; flag_do?: boolean }) | undefined;
        assert.equal(opt?.udpPayloadSize, udpSize, `${row.what} (${transport}): the OPT echoes the client's size`);
        if (udpSize) assert.equal(opt?.flag_do, true, `${row.what}: and its DO bit`);
      }
    }
  }
});

test('minimal echoes the client OPT options (a cookie) on a cut reply, as the scrub does', async (t) => {
  const upstream = await upstreamFor(t, upstreamReply);
  const server = await startServer(`example.com:0 {\n bind 127.0.0.1\n minimal\n forward . ${upstream.address}\n}\n`, { directives: directivesOf(bind, minimal, forward) });
  t.after(() => server.close());
  const cookie = Buffer.from('0123456789abcdef', 'hex');
  const wire = dnsPacket.encode({
    type: 'query',
    id: 7,
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ name: 'answer.example.com', type: 'A', class: 'IN' }],
    additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 1232, flags: 0, options: [{ code: 10, data: cookie }] } as never],
  });
  const r = decodeReply((await udpExchange({ port: server.port() }, wire))!);
  checkResponse(r, caseOf(rowFor('answer.example.com.')));
  const opt = r.additionals?.find((a) => a.type === 'OPT') as { options?: { code: number; data: Buffer }[] } | undefined;
  assert.deepEqual(opt?.options?.map((o) => [o.code, o.data.toString('hex')]), [[10, cookie.toString('hex')]]);
});

test('a signed reply is decided on its signatures: valid ones are cut like any NOERROR reply', async (t) => {
  const now = Math.floor(Date.now() / 1000);
  const rrsig: Answer = {
    name: 'signed.example.com.',
    type: 'RRSIG',
    ttl: 300,
    class: 'IN',
    data: { typeCovered: 'A', algorithm: 13, labels: 3, originalTTL: 300, expiration: now + 3600, inception: now - 3600, keyTag: 1, signersName: 'example.com.', signature: Buffer.alloc(64) },
  };
  const upstream = await upstreamFor(t, (q) => {
    const r = reply(q, { answers: [rr('signed.example.com. 300 IN A 192.0.2.1'), rrsig] });
    return [{ ...r, authorities: baseNs.map(rr), additionals: [...(r.additionals ?? []), ...baseExtra.map(rr)] }];
  });
  const server = await startServer(`example.com:0 {\n bind 127.0.0.1\n minimal\n forward . ${upstream.address}\n}\n`, { directives: directivesOf(bind, minimal, forward) });
  t.after(() => server.close());
  const r = await query({ port: server.port() }, 'signed.example.com', 'A', { dnssecOk: true });
  assert.deepEqual(r.answers?.map((a) => a.type).sort(), ['A', 'RRSIG']);
  assert.deepEqual(r.authorities, []);
  assert.deepEqual(r.additionals?.map((a) => a.type), ['OPT']);
});

test('a reply the plugins below leave to the server (SERVFAIL, nothing written) is the server\'s', async (t) => {
  const backend = new FakeBackend();
  backend.down = true;
  const server = await startServer('example.com:0 {\n bind 127.0.0.1\n minimal\n backend\n}\n', { directives: directivesOf(bind, minimal, backend.plugin()) });
  t.after(() => server.close());
  assert.equal(rcodeOf(await query({ port: server.port() }, 'answer.example.com', 'A')), 'SERVFAIL');
});

test('every message of a zone transfer goes through untouched', async (t) => {
  // Two envelopes, as a transfer streams them: neither is a plain answer.
  const transfer = testPlugin('xfr', () => ({
    name: 'xfr',
    async serveDNS(req, w) {
      const head = { ...replyTo(req), flags: replyTo(req).flags | 0x0400 };
      w.write({ ...head, answers: [rr(soa), rr('a.example.com. 300 IN A 192.0.2.1')], additionals: baseExtra.map(rr) });
      await w.drained?.();
      w.write({ ...head, answers: [rr('b.example.com. 300 IN A 192.0.2.2'), rr(soa)] });
      return 0;
    },
  }));
  const server = await startServer('example.com:0 {\n bind 127.0.0.1\n minimal\n xfr\n}\n', { directives: directivesOf(bind, minimal, transfer) });
  t.after(() => server.close());
  const wire = dnsPacket.encode({ type: 'query', id: 9, questions: [{ name: 'example.com', type: 'AXFR', class: 'IN' }] });
  const replies = (await tcpExchange({ port: server.port() }, wire, 2000, Buffer.alloc(0))).map(decodeReply);
  assert.equal(replies.length, 2);
  assert.equal(replies[0]!.additionals?.length, baseExtra.length);
  assert.equal(replies[1]!.answers?.length, 2);
});
