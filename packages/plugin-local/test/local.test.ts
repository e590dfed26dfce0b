import { test } from 'node:test';
import assert from 'node:assert/strict';
import bind from '@foghorn/plugin-bind';
import { answerWith, checkCases, directivesOf, FakeBackend, metric, query, rcodeOf, startServer } from '@foghorn/testkit';
import type { Case } from '@foghorn/testkit';
import local from '../src/index.js';

const SOA = (owner: string): string => `${owner} 604800 IN SOA localhost. root.localhost. 1 0 0 0 604800`;

// CoreDNS v1.14.7's plugin/local/local_test.go `testcases`, with whole records where it checks
// only type and owner; the "localhost." owner of its SOA texts is the SOA's MNAME.
const coreDnsCases: Case[] = [
  { qname: 'localhost.', qtype: 'A', answer: ['localhost. 604800 IN A 127.0.0.1'] },
  { qname: 'localHOst.', qtype: 'A', answer: ['localHOst. 604800 IN A 127.0.0.1'] },
  { qname: 'localhost.', qtype: 'AAAA', answer: ['localhost. 604800 IN AAAA ::1'] },
  { qname: 'localhost.', qtype: 'NS', answer: ['localhost. 604800 IN NS localhost.'] },
  { qname: 'localhost.', qtype: 'SOA', answer: [SOA('localhost.')] },
  { qname: '127.in-addr.arpa.', qtype: 'A', ns: [SOA('127.in-addr.arpa.')] },
  { qname: 'localhost.', qtype: 'MX', ns: [SOA('localhost.')] },
  { qname: 'a.localhost.', qtype: 'A', answer: ['a.localhost. 604800 IN A 127.0.0.1'] },
  { qname: 'a.localhost.', qtype: 'AAAA', answer: ['a.localhost. 604800 IN AAAA ::1'] },
  { qname: 'a.localhost.', qtype: 'MX', ns: [SOA('a.localhost.')] },
  { qname: '1.0.0.127.in-addr.arpa.', qtype: 'PTR', answer: ['1.0.0.127.in-addr.arpa. 604800 IN PTR localhost.'] },
  { qname: '1.0.0.127.in-addr.arpa.', qtype: 'MX', ns: [SOA('127.in-addr.arpa.')] },
  { qname: '2.0.0.127.in-addr.arpa.', qtype: 'PTR', rcode: 'NXDOMAIN', ns: [SOA('127.in-addr.arpa.')] },
];

// The rest of local.go's table: the other reverse zones, their apexes, the legacy prefix.
const moreCases: Case[] = [
  { qname: '0.in-addr.arpa.', qtype: 'NS', answer: ['0.in-addr.arpa. 604800 IN NS localhost.'] },
  { qname: '255.in-addr.arpa.', qtype: 'SOA', answer: [SOA('255.in-addr.arpa.')] },
  { qname: '255.in-addr.arpa.', qtype: 'AAAA', ns: [SOA('255.in-addr.arpa.')] },
  { qname: '0.0.0.0.in-addr.arpa.', qtype: 'PTR', rcode: 'NXDOMAIN', ns: [SOA('0.in-addr.arpa.')] },
  { qname: '255.255.255.255.IN-ADDR.arpa.', qtype: 'PTR', rcode: 'NXDOMAIN', ns: [SOA('255.IN-ADDR.arpa.')] },
  { qname: 'localhost.example.net.', qtype: 'A', answer: ['localhost.example.net. 604800 IN A 127.0.0.1'] },
  { qname: 'localhost.example.net.', qtype: 'AAAA', answer: ['localhost.example.net. 604800 IN AAAA ::1'] },
  { qname: 'localhost.example.net.', qtype: 'SOA', ns: [SOA('localhost.example.net.')] },
  { qname: 'localhost.localdomain.', qtype: 'A', answer: ['localhost.localdomain. 604800 IN A 127.0.0.1'] },
  { qname: 'A.B.Localhost.', qtype: 'TXT', ns: [SOA('A.B.Localhost.')] },
];

const directives = (backend: FakeBackend) => directivesOf(bind, local, backend.plugin());

test('local answers its table over UDP and TCP, unauthoritatively, without reaching the next plugin (CoreDNS TestLocal)', async (t) => {
  const backend = new FakeBackend();
  const server = await startServer('.:0 {\n bind 127.0.0.1\n local\n backend\n}\n', { directives: directives(backend) });
  t.after(() => server.close());
  await checkCases({ port: server.port() }, [...coreDnsCases, ...moreCases], { transports: ['udp', 'tcp'], flags: { aa: false, ra: false } });
  assert.equal(backend.count, 0);
});

test('local passes every other name on, the ip6.arpa loopback and 10.in-addr.arpa included', async (t) => {
  const backend = new FakeBackend();
  backend.table.set('* A', answerWith('example.org. 300 IN A 192.0.2.1'));
  backend.table.set('* PTR', answerWith('1.0.0.10.in-addr.arpa. 300 IN PTR host.example.'));
  const server = await startServer('.:0 {\n bind 127.0.0.1\n local\n backend\n}\n', { directives: directives(backend) });
  t.after(() => server.close());
  // CoreDNS's README, Bugs: "ip6.arpa. queries are not intercepted".
  const ip6Loopback = `1.${'0.'.repeat(31)}ip6.arpa.`;
  for (const [name, type] of [['example.org.', 'A'], ['notlocalhost.', 'A'], ['1.0.0.10.in-addr.arpa.', 'PTR'], ['100.in-addr.arpa.', 'PTR'], [ip6Loopback, 'PTR']] as const) {
    const reply = await query({ port: server.port() }, name, type);
    assert.equal(rcodeOf(reply), 'NOERROR', name);
    assert.equal(reply.answers?.length, 1, name);
  }
  assert.equal(backend.count, 5);
});

test('localhost_prefix off leaves localhost.<domain> to the next plugin (CoreDNS TestLocalDoesNotInterceptLocalhostPrefixWhenDisabled)', async (t) => {
  const backend = new FakeBackend();
  backend.table.set('localhost.example.net. A', answerWith('localhost.example.net. 300 IN A 192.0.2.1'));
  const server = await startServer('.:0 {\n bind 127.0.0.1\n local {\n  localhost_prefix off\n }\n backend\n}\n', { directives: directives(backend) });
  t.after(() => server.close());
  await checkCases({ port: server.port() }, [
    { qname: 'localhost.example.net.', qtype: 'A', answer: ['localhost.example.net. 300 IN A 192.0.2.1'] },
    { qname: 'a.localhost.', qtype: 'A', answer: ['a.localhost. 604800 IN A 127.0.0.1'] },
  ]);
  assert.equal(backend.count, 1);
});

test('coredns_local_localhost_requests_total counts the names under localhost. and localhost.<domain>, not localhost. itself', async (t) => {
  const backend = new FakeBackend();
  const server = await startServer('.:0 {\n bind 127.0.0.1\n local\n backend\n}\n', { directives: directives(backend) });
  t.after(() => server.close());
  const before = await metric(server, 'coredns_local_localhost_requests_total');
  for (const name of ['localhost.', 'a.localhost.', 'localhost.example.net.', '127.in-addr.arpa.']) await query({ port: server.port() }, name, 'A');
  assert.equal((await metric(server, 'coredns_local_localhost_requests_total')) - before, 2);
});

test('local keeps the query ID, opcode and RD bit, and answers names in any zone of its block', async (t) => {
  const backend = new FakeBackend();
  const server = await startServer('example.org:0 {\n bind 127.0.0.1\n local\n backend\n}\n', { directives: directives(backend) });
  t.after(() => server.close());
  const reply = await query({ port: server.port() }, 'localhost.example.org.', 'A', { id: 4242, flags: 0 });
  assert.equal(reply.id, 4242);
  assert.equal(reply.flag_rd, false);
  assert.deepEqual(reply.answers?.map((r) => (r.type === 'A' ? r.data : r.type)), ['127.0.0.1']);
});
