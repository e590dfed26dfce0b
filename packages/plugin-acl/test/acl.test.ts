import { test } from 'node:test';
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import type { Counter, Registry } from 'prom-client';
import type { OptAnswer } from 'dns-packet';
import acl from '@foghorn/plugin-acl';
import bind from '@foghorn/plugin-bind';
import whoami from '@foghorn/plugin-whoami';
import { decodeReply, directivesOf, makeQuery, query, rcodeOf, startServer, tcpExchange, udpExchange } from '@foghorn/testkit';
import type { Reply, Target, TestServer } from '@foghorn/testkit';

const directives = directivesOf(bind, acl, whoami);
/** How long a test waits before it takes silence as a dropped query. */
const silenceMs = 250;

async function serve(t: { after(fn: () => Promise<void>): void }, corefile: string): Promise<TestServer> {
  const server = await startServer(corefile, { directives });
  t.after(() => server.close());
  return server;
}

/** The whoami answer, showing the query went down the chain. */
function whoamiAddress(reply: Reply): string | undefined {
  const rr = reply.additionals?.find((r) => r.type === 'A' || r.type === 'AAAA');
  return rr && 'data' in rr ? String(rr.data) : undefined;
}

function optOf(reply: Reply): OptAnswer | undefined {
  return reply.additionals?.find((r): r is OptAnswer => r.type === 'OPT');
}

/** The extended error codes in a reply's OPT record. */
function edeCodes(reply: Reply): number[] {
  const options = (optOf(reply)?.options ?? []) as unknown as { code: number; data?: Buffer }[];
  return options.filter((o) => o.code === 15 && o.data).map((o) => o.data!.readUInt16BE(0));
}

async function counterValue(registry: Registry, name: string, labels: Record<string, string>): Promise<number> {
  const metric = registry.getSingleMetric(name) as Counter | undefined;
  if (!metric) return 0;
  const { values } = await metric.get();
  const hit = values.find((v) => Object.entries(labels).every(([k, want]) => v.labels[k] === want));
  return hit?.value ?? 0;
}

const target = (server: TestServer): Target => ({ port: server.port() });
/** The server, asked from another loopback address. */
const from = (source: string, server: TestServer): Target => ({ port: server.port(), source });

test('a query no rule matches goes on to the next plugin', async (t) => {
  const server = await serve(t, 'example.org:0 {\n bind 127.0.0.1\n acl {\n  block net 10.0.0.0/8\n }\n whoami\n}');
  for (const transport of ['udp', 'tcp'] as const) {
    const reply = await query(target(server), 'www.example.org', 'A', { transport });
    assert.equal(rcodeOf(reply), 'NOERROR');
    assert.equal(whoamiAddress(reply), '127.0.0.1');
  }
});

test('a blocked query gets REFUSED with no answer, over UDP and TCP', async (t) => {
  const server = await serve(t, 'example.org:0 {\n bind 127.0.0.1\n acl {\n  block net 127.0.0.0/8\n }\n whoami\n}');
  for (const transport of ['udp', 'tcp'] as const) {
    const reply = await query(target(server), 'www.example.org', 'A', { transport, id: 4242 });
    assert.equal(rcodeOf(reply), 'REFUSED');
    assert.equal(reply.id, 4242);
    assert.deepEqual(reply.questions, [{ name: 'www.example.org', type: 'A', class: 'IN' }]);
    assert.equal(reply.answers?.length, 0);
    assert.equal(reply.flag_rd, true);
    // No OPT to a client that sent none (RFC 6891 §7).
    assert.equal(optOf(reply), undefined);
  }
});

test('a blocked EDNS query carries the extended error Blocked (15)', async (t) => {
  const server = await serve(t, 'example.org:0 {\n bind 127.0.0.1\n acl {\n  block\n }\n whoami\n}');
  const reply = await query(target(server), 'example.org', 'A', { udpSize: 1232, dnssecOk: true });
  assert.equal(rcodeOf(reply), 'REFUSED');
  assert.deepEqual(edeCodes(reply), [15]);
  const opt = optOf(reply)!;
  assert.equal(opt.udpPayloadSize, 1232);
  assert.equal(opt.flag_do, true);
});

test('a filtered query gets an empty NOERROR, with Filtered (17) for EDNS clients', async (t) => {
  const server = await serve(t, 'example.org:0 {\n bind 127.0.0.1\n acl {\n  filter type A net 127.0.0.1\n }\n whoami\n}');
  const plain = await query(target(server), 'example.org', 'A');
  assert.equal(rcodeOf(plain), 'NOERROR');
  assert.equal(plain.answers?.length, 0);
  assert.equal(plain.additionals?.length, 0);
  assert.equal(plain.flag_aa, false);
  const edns = await query(target(server), 'example.org', 'A', { udpSize: 4096, transport: 'tcp' });
  assert.equal(rcodeOf(edns), 'NOERROR');
  assert.equal(edns.answers?.length, 0);
  assert.deepEqual(edeCodes(edns), [17]);
  // Another type is not filtered.
  const aaaa = await query(target(server), 'example.org', 'AAAA');
  assert.equal(whoamiAddress(aaaa), '127.0.0.1');
});

test('a dropped query gets no reply at all and the next allowed query is answered', async (t) => {
  const server = await serve(t, 'example.org:0 {\n bind 127.0.0.1\n acl {\n  drop type TXT\n }\n whoami\n}');
  assert.equal(await udpExchange(target(server), makeQuery('example.org', 'TXT'), silenceMs), null);
  const answer = await query(target(server), 'example.org', 'A');
  assert.equal(whoamiAddress(answer), '127.0.0.1');
  // Over TCP the dropped query gets no frame back; the connection serves the next query.
  const replies = await tcpExchange(target(server), [makeQuery('example.org', 'TXT', { id: 1 }), makeQuery('example.org', 'A', { id: 2 })], silenceMs);
  assert.deepEqual(
    replies.map((r) => decodeReply(r).id),
    [2],
  );
});

test('policies match on query type; a policy without type matches every type', async (t) => {
  const server = await serve(t, 'example.org:0 {\n bind 127.0.0.1\n acl {\n  block type AAAA MX\n  filter type *\n }\n whoami\n}');
  assert.equal(rcodeOf(await query(target(server), 'example.org', 'AAAA')), 'REFUSED');
  assert.equal(rcodeOf(await query(target(server), 'example.org', 'MX')), 'REFUSED');
  const a = await query(target(server), 'example.org', 'A');
  assert.equal(rcodeOf(a), 'NOERROR');
  assert.equal(whoamiAddress(a), undefined, 'filtered, not answered by whoami');
});

test('policies match on source network, first matching policy wins', async (t) => {
  const corefile = 'example.org:0 {\n bind 127.0.0.1\n acl {\n  allow net 127.0.0.2\n  block net 127.0.0.0/8\n }\n whoami\n}';
  const server = await serve(t, corefile);
  assert.equal(rcodeOf(await query(from('127.0.0.1', server), 'example.org', 'A')), 'REFUSED');
  const allowed = await query(from('127.0.0.2', server), 'example.org', 'A');
  assert.equal(whoamiAddress(allowed), '127.0.0.2');
  assert.equal(rcodeOf(await query(from('127.0.0.3', server), 'example.org', 'A')), 'REFUSED');
});

test('rules apply to their zones only, and an allow ends the checks of later rules', async (t) => {
  const corefile = [
    'example.org:0 {',
    ' bind 127.0.0.1',
    ' acl sub.example.org {',
    '  allow net 127.0.0.2',
    ' }',
    ' acl {',
    '  block type A',
    ' }',
    ' acl sub.example.org {',
    '  drop',
    ' }',
    ' whoami',
    '}',
  ].join('\n');
  const server = await serve(t, corefile);
  // example.org is guarded only by the second rule.
  assert.equal(rcodeOf(await query(from('127.0.0.1', server), 'example.org', 'A')), 'REFUSED');
  assert.equal(whoamiAddress(await query(from('127.0.0.1', server), 'example.org', 'AAAA')), '127.0.0.1');
  // 127.0.0.2 is allowed by the first rule for sub.example.org, so the later ones are not tried.
  assert.equal(whoamiAddress(await query(from('127.0.0.2', server), 'www.sub.example.org', 'A')), '127.0.0.2');
  // Anyone else: rule 1 has no match, rule 2 blocks A, and rule 3 drops the rest.
  assert.equal(rcodeOf(await query(from('127.0.0.1', server), 'www.sub.example.org', 'A')), 'REFUSED');
  assert.equal(await udpExchange(from('127.0.0.1', server), makeQuery('www.sub.example.org', 'AAAA'), silenceMs), null);
});

test('the acl metrics count each outcome with the server, zone and view labels', async (t) => {
  const corefile = [
    'example.org:0 {',
    ' bind 127.0.0.1',
    ' acl {',
    '  block type AAAA',
    '  filter type MX',
    '  drop type TXT',
    ' }',
    ' acl sub.example.org {',
    '  block type SRV',
    ' }',
    ' whoami',
    '}',
  ].join('\n');
  const server = await serve(t, corefile);
  const registry = server.server.registry;
  const serverLabel = server.server.addresses[0]!.server;
  await query(target(server), 'example.org', 'A');
  await query(target(server), 'example.org', 'A', { transport: 'tcp' });
  await query(target(server), 'example.org', 'AAAA');
  await query(target(server), 'www.sub.example.org', 'SRV');
  await query(target(server), 'example.org', 'MX');
  await udpExchange(target(server), makeQuery('example.org', 'TXT'), silenceMs);
  // The drop's counter moves before the test's timeout ends, so it is readable now.
  const zoned = (zone: string) => ({ server: serverLabel, zone, view: '' });
  assert.equal(await counterValue(registry, 'coredns_acl_allowed_requests_total', { server: serverLabel, view: '' }), 2);
  assert.equal(await counterValue(registry, 'coredns_acl_blocked_requests_total', zoned('example.org.')), 1);
  assert.equal(await counterValue(registry, 'coredns_acl_blocked_requests_total', zoned('sub.example.org.')), 1);
  assert.equal(await counterValue(registry, 'coredns_acl_filtered_requests_total', zoned('example.org.')), 1);
  assert.equal(await counterValue(registry, 'coredns_acl_dropped_requests_total', zoned('example.org.')), 1);
  const text = await registry.metrics();
  assert.match(text, /^coredns_acl_allowed_requests_total\{server="[^"]+",view=""\} 2$/m);
  assert.match(text, /^# HELP coredns_acl_blocked_requests_total Counter of DNS requests being blocked\.$/m);
});

test('IPv6 sources match IPv6 networks only', async (t) => {
  const ipv6 = await new Promise<boolean>((resolve) => {
    const probe = dgram.createSocket('udp6');
    probe.once('error', () => resolve(false));
    probe.bind(0, '::1', () => probe.close(() => resolve(true)));
  });
  if (!ipv6) {
    t.skip('::1 is not available on this machine');
    return;
  }
  const corefile = 'example.org:0 {\n bind 127.0.0.1 ::1\n acl {\n  block net ::1\n  filter net 0.0.0.0/0\n }\n whoami\n}';
  const server = await serve(t, corefile);
  // With port 0 each bound address gets its own port.
  const portOf = (host: string): number => server.server.addresses.find((a) => a.host === host)!.port;
  assert.equal(rcodeOf(await query({ port: portOf('::1'), host: '::1' }, 'example.org', 'A')), 'REFUSED');
  const v4 = await query({ port: portOf('127.0.0.1') }, 'example.org', 'A');
  assert.equal(rcodeOf(v4), 'NOERROR');
  assert.equal(v4.answers?.length, 0);
  assert.equal(whoamiAddress(v4), undefined);
});
