import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Packet } from 'dns-packet';
import { Flags, Rcode, replyTo } from '@foghorn/core';
import type { Request } from '@foghorn/core';
import { formatIp, parseCidr, parseIp } from '@foghorn/core/wire';
import bind from '@foghorn/plugin-bind';
import forward from '@foghorn/plugin-forward';
import { answerWith, checkResponse, directivesOf, FakeBackend, metric, query, rcodeOf, reply, rr, startServer, upstreamFor } from '@foghorn/testkit';
import type { Case, Decoded, Target, TestServer } from '@foghorn/testkit';
import dns64, { to6 } from '../src/index.js';

// CoreDNS v1.14.7's plugin/dns64/dns64_test.go TestDNS64: the AAAA reply of the chain, the A
// reply of the lookup, and what the client gets (prefix 64:ff9b::/96).
interface Part {
  readonly rcode?: number;
  readonly tc?: boolean;
  readonly answer?: string[];
  readonly ns?: string[];
}

interface Flow {
  readonly name: string;
  readonly aaaa: Part;
  readonly a?: Part;
  readonly want: Omit<Case, 'qname' | 'qtype'>;
}

const flows: Flow[] = [
  {
    name: 'standard.example.com.',
    aaaa: { ns: ['example.com. 70 IN SOA foo. bar. 1 1 1 1 1'] },
    a: { answer: ['standard.example.com. 60 IN A 192.0.2.42', 'standard.example.com. 5000 IN A 192.0.2.43'] },
    // The second TTL is the SOA's, which is lower (RFC 6147 §5.1.7).
    want: { answer: ['standard.example.com. 60 IN AAAA 64:ff9b::c000:22a', 'standard.example.com. 70 IN AAAA 64:ff9b::c000:22b'], flags: { aa: false, ra: false, tc: false } },
  },
  {
    name: 'empty.example.com.',
    aaaa: { ns: ['example.com. 3600 IN SOA foo. bar. 1 7200 900 1209600 86400'] },
    a: { ns: ['example.com. 3600 IN SOA foo. bar. 1 7200 900 1209600 86400'] },
    want: { ns: ['example.com. 3600 IN SOA foo. bar. 1 7200 900 1209600 86400'] },
  },
  {
    name: 'refused.example.com.',
    aaaa: { rcode: Rcode.REFUSED },
    a: { answer: ['refused.example.com. 60 IN A 192.0.2.42', 'refused.example.com. 5000 IN A 192.0.2.43'] },
    // No SOA: at most 600.
    want: { answer: ['refused.example.com. 60 IN AAAA 64:ff9b::c000:22a', 'refused.example.com. 600 IN AAAA 64:ff9b::c000:22b'] },
  },
  {
    name: 'nxdomain.example.com.',
    aaaa: { rcode: Rcode.NXDOMAIN, ns: ['example.com. 3600 IN SOA foo. bar. 1 7200 900 1209600 86400'] },
    want: { rcode: 'NXDOMAIN', ns: ['example.com. 3600 IN SOA foo. bar. 1 7200 900 1209600 86400'] },
  },
  {
    name: 'aaaa.example.com.',
    aaaa: { answer: ['aaaa.example.com. 60 IN AAAA ::1', 'aaaa.example.com. 5000 IN AAAA ::2'] },
    want: { answer: ['aaaa.example.com. 60 IN AAAA ::1', 'aaaa.example.com. 5000 IN AAAA ::2'] },
  },
  {
    name: 'truncated.example.com.',
    aaaa: { ns: ['example.com. 70 IN SOA foo. bar. 1 1 1 1 1'] },
    a: { tc: true, answer: ['truncated.example.com. 60 IN A 192.0.2.42', 'truncated.example.com. 5000 IN A 192.0.2.43'] },
    want: { answer: ['truncated.example.com. 60 IN AAAA 64:ff9b::c000:22a', 'truncated.example.com. 70 IN AAAA 64:ff9b::c000:22b'], flags: { tc: true } },
  },
];

const flowFor = (name: string): Flow => {
  const flow = flows.find((f) => f.name === name.toLowerCase());
  assert.ok(flow, `no flow for ${name}`);
  return flow;
};

/** The chain's replies as messages (a backend after dns64). */
function backendFor(): FakeBackend {
  const backend = new FakeBackend();
  const message = (req: Request, part: Part): Packet => {
    const head = replyTo(req, part.rcode ?? 0);
    return { ...head, flags: head.flags | (part.tc ? Flags.TC : 0), answers: (part.answer ?? []).map(rr), authorities: (part.ns ?? []).map(rr) };
  };
  backend.table.set('* AAAA', (req) => message(req, flowFor(req.qname).aaaa));
  backend.table.set('* A', (req) => {
    const a = flowFor(req.qname).a;
    assert.ok(a, `unexpected A lookup for ${req.qname}`);
    return message(req, a);
  });
  return backend;
}

/** The same replies from an upstream *forward* asks: written as wire bytes. */
function upstreamBehaviour(q: Decoded): Packet[] {
  const question = q.questions[0]!;
  const flow = flowFor(`${question.name}.`);
  const part = question.type === 'AAAA' ? flow.aaaa : flow.a;
  assert.ok(part, `unexpected ${question.type} lookup for ${question.name}`);
  return [{ ...reply(q, { rcode: part.rcode ?? 0, tc: part.tc === true, answers: (part.answer ?? []).map(rr) }), authorities: (part.ns ?? []).map(rr) }];
}

async function serveOnBoth(t: { after(fn: () => unknown): void }, corefile: string, directives: ReturnType<typeof directivesOf>): Promise<{ server: TestServer; v4: Target; v6: Target }> {
  const server = await startServer(corefile, { directives });
  t.after(() => server.close());
  // With port 0 each bound address gets its own port.
  const portOf = (host: string): number => server.server.addresses.find((a) => a.host === host)!.port;
  return { server, v4: { port: portOf('127.0.0.1') }, v6: { port: portOf('::1'), host: '::1' } };
}

test('dns64 synthesises AAAA from A for IPv6 clients, from replies written as messages, over UDP and TCP (CoreDNS TestDNS64)', async (t) => {
  const backend = backendFor();
  const { v6 } = await serveOnBoth(t, 'example.com:0 {\n bind 127.0.0.1 ::1\n dns64\n backend\n}\n', directivesOf(bind, dns64, backend.plugin()));
  for (const flow of flows) {
    for (const transport of ['udp', 'tcp'] as const) {
      const r = await query(v6, flow.name, 'AAAA', { transport });
      checkResponse(r, { qname: flow.name, qtype: 'AAAA', ...flow.want });
      assert.equal(r.flag_rd, true, `${flow.name}: RD copied from the query`);
    }
  }
});

test('dns64 synthesises from pre-encoded replies (forward) the same way, and passes the others on byte for byte', async (t) => {
  const upstream = await upstreamFor(t, upstreamBehaviour);
  const { v6 } = await serveOnBoth(t, `example.com:0 {\n bind 127.0.0.1 ::1\n dns64\n forward . ${upstream.address}\n}\n`, directivesOf(bind, dns64, forward));
  for (const flow of flows) {
    for (const transport of ['udp', 'tcp'] as const) {
      for (const udpSize of [undefined, 1232]) {
        const r = await query(v6, flow.name, 'AAAA', { transport, ...(udpSize ? { udpSize } : {}) });
        checkResponse(r, { qname: flow.name, qtype: 'AAAA', ...flow.want });
        assert.equal(r.additionals?.filter((a) => a.type === 'OPT').length, udpSize ? 1 : 0, `${flow.name}: OPT for EDNS clients only`);
      }
    }
  }
  // The pass-through replies keep the upstream's RA; the synthesised ones have the query's header.
  assert.equal((await query(v6, 'aaaa.example.com', 'AAAA')).flag_ra, true);
  assert.equal((await query(v6, 'standard.example.com', 'AAAA')).flag_ra, false);
});

test('dns64 leaves IPv4 clients, other types and other classes alone unless allow_ipv4 (CoreDNS TestRequestShouldIntercept)', async (t) => {
  const backend = backendFor();
  backend.table.set('* TXT', answerWith('standard.example.com. 60 IN TXT "hi"'));
  const plain = await serveOnBoth(t, 'example.com:0 {\n bind 127.0.0.1 ::1\n dns64\n backend\n}\n', directivesOf(bind, dns64, backend.plugin()));
  const v4 = await query(plain.v4, 'standard.example.com', 'AAAA');
  checkResponse(v4, { qname: 'standard.example.com.', qtype: 'AAAA', ns: ['example.com. 70 IN SOA foo. bar. 1 1 1 1 1'] });
  const a = await query(plain.v6, 'standard.example.com', 'A');
  checkResponse(a, { qname: 'standard.example.com.', qtype: 'A', answer: ['standard.example.com. 60 IN A 192.0.2.42', 'standard.example.com. 5000 IN A 192.0.2.43'] });
  assert.equal(rcodeOf(await query(plain.v6, 'standard.example.com', 'TXT')), 'NOERROR');
  // CH is refused before the chain; dns64 never sees it.
  assert.equal(rcodeOf(await query(plain.v6, 'standard.example.com', 'AAAA', { class: 'CH' })), 'REFUSED');

  const allowed = await serveOnBoth(t, 'example.com:0 {\n bind 127.0.0.1 ::1\n dns64 {\n  allow_ipv4\n }\n backend\n}\n', directivesOf(bind, dns64, backend.plugin()));
  checkResponse(await query(allowed.v4, 'standard.example.com', 'AAAA'), { qname: 'standard.example.com.', qtype: 'AAAA', ...flowFor('standard.example.com.').want });
});

test('translate_all synthesises even when AAAA records exist, but never for a name error', async (t) => {
  const backend = backendFor();
  backend.table.set('aaaa.example.com. A', answerWith('aaaa.example.com. 30 IN A 198.51.100.1'));
  const { v6 } = await serveOnBoth(t, 'example.com:0 {\n bind 127.0.0.1 ::1\n dns64 {\n  translate_all\n  prefix 2001:db8:100::/40\n }\n backend\n}\n', directivesOf(bind, dns64, backend.plugin()));
  checkResponse(await query(v6, 'aaaa.example.com', 'AAAA'), { qname: 'aaaa.example.com.', qtype: 'AAAA', answer: ['aaaa.example.com. 30 IN AAAA 2001:db8:1c6:3364:1::'] });
  checkResponse(await query(v6, 'nxdomain.example.com', 'AAAA'), { qname: 'nxdomain.example.com.', qtype: 'AAAA', ...flowFor('nxdomain.example.com.').want });
});

test('a failed A lookup gives an empty NOERROR, as CoreDNS answers it, and is still counted', async (t) => {
  const backend = backendFor();
  backend.table.set('standard.example.com. A', () => 'down');
  const { server, v6 } = await serveOnBoth(t, 'example.com:0 {\n bind 127.0.0.1 ::1\n dns64\n backend\n}\n', directivesOf(bind, dns64, backend.plugin()));
  const before = await metric(server, 'coredns_dns64_requests_translated_total');
  const r = await query(v6, 'standard.example.com', 'AAAA');
  checkResponse(r, { qname: 'standard.example.com.', qtype: 'AAAA' });
  assert.equal((await metric(server, 'coredns_dns64_requests_translated_total')) - before, 1);
});

test('coredns_dns64_requests_translated_total counts translations per server, not the replies passed on', async (t) => {
  const backend = backendFor();
  const { server, v6 } = await serveOnBoth(t, 'example.com:0 {\n bind 127.0.0.1 ::1\n dns64\n backend\n}\n', directivesOf(bind, dns64, backend.plugin()));
  for (const name of ['standard.example.com', 'aaaa.example.com', 'nxdomain.example.com', 'refused.example.com']) await query(v6, name, 'AAAA');
  // The `server` label is the listener's as configured (CoreDNS's), port 0 here.
  assert.equal(await metric(server, 'coredns_dns64_requests_translated_total', { server: server.server.addresses.find((a) => a.host === '::1')!.server }), 2);
  assert.equal(await metric(server, 'coredns_dns64_requests_translated_total'), 2);
});

test('to6 embeds the IPv4 address after the prefix, skipping bits 64-71 (CoreDNS TestTo6, RFC 6052 §2.2)', () => {
  const v4 = parseIp('64.64.64.64')!;
  for (const [prefix, want] of [
    ['64:ff9b::/96', '64:ff9b::4040:4040'],
    ['64:ff9b::/64', '64:ff9b::40:4040:4000:0'],
    ['64:ff9b::/56', '64:ff9b:0:40:40:4040::'],
    ['64::/32', '64:0:4040:4040::'],
  ] as const) {
    assert.equal(formatIp(to6(parseCidr(prefix), v4)), want, prefix);
  }
});
