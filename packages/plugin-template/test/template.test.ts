/**
 * template over real sockets: CoreDNS's TestHandler, TestMultiSection, TestTruncatedCNAME and the
 * README examples (plugin/template/*_test.go, README.md), with the metrics.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Answer, OptAnswer, RecordType } from 'dns-packet';
import type { Counter, Registry } from 'prom-client';
import { Flags, Rcode, replyTo } from '@foghorn/core';
import type { PluginDefinition, Request } from '@foghorn/core';
import { directivesOf, query, rcodeOf, startServer, testPlugin } from '@foghorn/testkit';
import type { Reply, TestServer } from '@foghorn/testkit';
import template from '@foghorn/plugin-template';
import bind from '@foghorn/plugin-bind';
import errors from '@foghorn/plugin-errors';

/** The plugin after template in the tests: answers A queries with 192.0.2.1 and says which name it saw. */
let upstreamTruncates = false;
const upstream: PluginDefinition = testPlugin('upstream', () => ({
  name: 'upstream',
  serveDNS(req: Request, w) {
    const msg = replyTo(req);
    if (upstreamTruncates) msg.flags |= Flags.TC;
    msg.answers = [{ name: req.name, type: 'A', ttl: 600, data: req.qtype === 1 ? '192.0.2.1' : '0.0.0.0' }];
    if (req.qtype !== 1) msg.answers = [];
    w.write(msg);
    return Rcode.NOERROR;
  },
}));

/** A server for `.` with `body` in its block, errors (to see the logged errors), template and the upstream. */
async function serve(t: { after(fn: () => Promise<void>): void }, body: string, withUpstream = true): Promise<TestServer> {
  const server = await startServer(`.:0 {\n bind 127.0.0.1\n errors\n${body}\n${withUpstream ? ' upstream\n' : ''}}\n`, { directives: directivesOf(bind, errors, template, upstream) });
  t.after(() => server.close());
  return server;
}

const dataOf = (rr: Answer): unknown => (rr as { data?: unknown }).data;
const ANY = 'ANY' as RecordType;

async function counterValue(registry: Registry, name: string, labels: Record<string, string>): Promise<number> {
  const metric = registry.getSingleMetric(name) as Counter | undefined;
  if (!metric) return 0;
  const { values } = await metric.get();
  return values.filter((v) => Object.entries(labels).every(([k, want]) => v.labels[k] === want)).reduce((sum, v) => sum + v.value, 0);
}

/** CoreDNS's TestHandler templates, one server block each. */
const templates = {
  exampleDomainA: 'template ANY ANY {\n match "(^|[.])ip-10-(?P<b>[0-9]*)-(?P<c>[0-9]*)-(?P<d>[0-9]*)[.]example[.]$"\n answer "{{ .Name }} 60 IN A 10.{{ .Group.b }}.{{ .Group.c }}.{{ .Group.d }}"\n fallthrough\n }',
  exampleDomainAParseInt: 'template ANY ANY {\n match "^ip0a(?P<b>[a-f0-9]{2})(?P<c>[a-f0-9]{2})(?P<d>[a-f0-9]{2})[.]example[.]$"\n answer "{{ .Name }} 60 IN A 10.{{ parseInt .Group.b 16 8 }}.{{ parseInt .Group.c 16 8 }}.{{ parseInt .Group.d 16 8 }}"\n fallthrough\n }',
  exampleDomainIPA: 'template IN A {\n match .*\n answer "{{ .Name }} 60 IN A {{ .Remote }}"\n fallthrough\n }',
  exampleDomainANS: 'template ANY ANY {\n match "(^|[.])ip-10-(?P<b>[0-9]*)-(?P<c>[0-9]*)-(?P<d>[0-9]*)[.]example[.]$"\n answer "{{ .Name }} 60 IN A 10.{{ .Group.b }}.{{ .Group.c }}.{{ .Group.d }}"\n additional "ns0.example. IN A 203.0.113.8"\n authority "example. IN NS ns0.example.com."\n fallthrough\n }',
  exampleDomainMX: 'template ANY ANY {\n match "(^|[.])ip-10-(?P<b>[0-9]*)-(?P<c>[0-9]*)-(?P<d>[0-9]*)[.]example[.]$"\n answer "{{ .Name }} 60 MX 10 {{ .Name }}"\n additional "{{ .Name }} 60 IN A 10.{{ .Group.b }}.{{ .Group.c }}.{{ .Group.d }}"\n fallthrough\n }',
  invalidDomain: 'template ANY ANY {\n match "[.]invalid[.]$"\n rcode NXDOMAIN\n answer "invalid. 60 {{ .Class }} SOA a.invalid. b.invalid. (1 60 60 60 60)"\n fallthrough\n }',
  rcodeServfail: 'template ANY ANY {\n rcode SERVFAIL\n fallthrough\n }',
  broken: 'template ANY ANY {\n match "[.]example[.]$"\n answer "{{ .Name }} 60 IN TXT \\"{{ index .Match 2 }}\\""\n fallthrough\n }',
  brokenParseInt: 'template ANY ANY {\n match "[.]example[.]$"\n answer "{{ .Name }} 60 IN TXT \\"{{ parseInt \\"gg\\" 16 8 }}\\""\n fallthrough\n }',
  nonRR: 'template ANY ANY {\n match "[.]example[.]$"\n answer "{{ .Name }}"\n fallthrough\n }',
  nonRRAdditional: 'template ANY ANY {\n match "[.]example[.]$"\n additional "{{ .Name }}"\n fallthrough\n }',
  nonRRAuthority: 'template ANY ANY {\n match "[.]example[.]$"\n authority "{{ .Name }}"\n fallthrough\n }',
  cname: 'template ANY ANY {\n match "example[.]net[.]"\n answer "example.net 60 IN CNAME target.example.com"\n fallthrough\n }',
  md: 'template ANY ANY {\n match "(^|[.])ip-10-(?P<b>[0-9]*)-(?P<c>[0-9]*)-(?P<d>[0-9]*)[.]example[.]$"\n answer "{{ .Meta \\"foo\\" }}-{{ .Name }} 60 IN A 10.{{ .Group.b }}.{{ .Group.c }}.{{ .Group.d }}"\n fallthrough\n }',
  ede: 'template ANY ANY {\n rcode NXDOMAIN\n authority "invalid. 60 {{ .Class }} SOA ns.invalid. hostmaster.invalid. (1 60 60 60 60)"\n ederror 21 "Blocked due to RFC2606"\n }',
};

interface Row {
  readonly name: string;
  readonly tmpl: keyof typeof templates;
  readonly qname: string;
  readonly qtype: RecordType;
  readonly rcode: string;
  /** An error *errors* must log. */
  readonly error?: string;
  readonly check?: (reply: Reply) => void;
}

const answerTypes = (reply: Reply): string[] => (reply.answers ?? []).map((rr) => rr.type);

/** CoreDNS's TestHandler rows. "Fallthrough" is the upstream's answer here. */
const rows: Row[] = [
  { name: 'RcodeServFail', tmpl: 'rcodeServfail', qname: 'test.invalid', qtype: 'A', rcode: 'SERVFAIL' },
  { name: 'ExampleDomainNameMismatch', tmpl: 'exampleDomainA', qname: 'test.invalid', qtype: 'A', rcode: 'NOERROR', check: (r) => assert.deepEqual(r.answers?.map(dataOf), ['192.0.2.1']) },
  {
    name: 'BrokenTemplate',
    tmpl: 'broken',
    qname: 'test.example',
    qtype: ANY,
    rcode: 'SERVFAIL',
    error: 'template: answer:1:26: executing "answer" at <index .Match 2>: error calling index: index out of range: 2',
  },
  { name: 'NonRRTemplate', tmpl: 'nonRR', qname: 'test.example', qtype: ANY, rcode: 'SERVFAIL', error: 'dns: not a TTL: "test.example." at line: 1:13' },
  { name: 'NonRRAdditionalTemplate', tmpl: 'nonRRAdditional', qname: 'test.example', qtype: ANY, rcode: 'SERVFAIL', error: 'dns: not a TTL: "test.example." at line: 1:13' },
  { name: 'NonRRAuthorityTemplate', tmpl: 'nonRRAuthority', qname: 'test.example', qtype: ANY, rcode: 'SERVFAIL', error: 'dns: not a TTL: "test.example." at line: 1:13' },
  { name: 'ExampleIPMatch', tmpl: 'exampleDomainIPA', qname: 'test.example', qtype: 'A', rcode: 'NOERROR', check: (r) => assert.deepEqual(r.answers?.map(dataOf), ['127.0.0.1']) },
  { name: 'ExampleDomainMatch', tmpl: 'exampleDomainA', qname: 'ip-10-95-12-8.example', qtype: 'A', rcode: 'NOERROR', check: (r) => assert.deepEqual(r.answers?.map(dataOf), ['10.95.12.8']) },
  { name: 'ExampleDomainMatchHexIp', tmpl: 'exampleDomainAParseInt', qname: 'ip0a5f0c09.example', qtype: 'A', rcode: 'NOERROR', check: (r) => assert.deepEqual(r.answers?.map(dataOf), ['10.95.12.9']) },
  {
    name: 'BrokenParseIntTemplate',
    tmpl: 'brokenParseInt',
    qname: 'test.example',
    qtype: ANY,
    rcode: 'SERVFAIL',
    error: 'template: answer:1:26: executing "answer" at <parseInt "gg" 16 8>: error calling parseInt: strconv.ParseUint: parsing "gg": invalid syntax',
  },
  {
    name: 'ExampleDomainMXMatch',
    tmpl: 'exampleDomainMX',
    qname: 'ip-10-95-12-8.example',
    qtype: 'MX',
    rcode: 'NOERROR',
    check: (r) => {
      assert.deepEqual(answerTypes(r), ['MX']);
      assert.deepEqual(r.additionals?.map((rr) => rr.type), ['A']);
    },
  },
  {
    name: 'ExampleDomainANSMatch',
    tmpl: 'exampleDomainANS',
    qname: 'ip-10-95-12-8.example',
    qtype: 'A',
    rcode: 'NOERROR',
    check: (r) => {
      assert.deepEqual(answerTypes(r), ['A']);
      assert.deepEqual(r.additionals?.map((rr) => [rr.name, rr.type, dataOf(rr)]), [['ns0.example', 'A', '203.0.113.8']]);
      assert.deepEqual(r.authorities?.map((rr) => [rr.name, rr.type, dataOf(rr)]), [['example', 'NS', 'ns0.example.com']]);
    },
  },
  { name: 'ExampleInvalidNXDOMAIN', tmpl: 'invalidDomain', qname: 'test.invalid', qtype: 'MX', rcode: 'NXDOMAIN', check: (r) => assert.deepEqual(answerTypes(r), ['SOA']) },
  {
    // The upstream answers for the target, so the CNAME is followed (CoreDNS's test has no upstream).
    name: 'CNAMEWithUpstream',
    tmpl: 'cname',
    qname: 'example.net',
    qtype: 'A',
    rcode: 'NOERROR',
    check: (r) => assert.deepEqual(r.answers?.map((rr) => [rr.name, rr.type, dataOf(rr)]), [['example.net', 'CNAME', 'target.example.com'], ['target.example.com', 'A', '192.0.2.1']]),
  },
  {
    // No metadata plugin: `.Meta "foo"` is empty (CoreDNS's mdMissing case).
    name: 'mdMissing',
    tmpl: 'md',
    qname: 'ip-10-95-12-8.example',
    qtype: 'A',
    rcode: 'NOERROR',
    check: (r) => assert.equal(r.answers?.[0]?.name, '-ip-10-95-12-8.example'),
  },
];

test('TestHandler: each template answers, falls through or fails as CoreDNS\'s does', async (t) => {
  // One server per row, all at once.
  await Promise.all(
    rows.map(async (row) => {
      const server = await serve(t, ` ${templates[row.tmpl]}`);
      for (const transport of ['udp', 'tcp'] as const) {
        const reply = await query({ port: server.port() }, row.qname, row.qtype, { transport });
        assert.equal(rcodeOf(reply), row.rcode, `${row.name} over ${transport}`);
        assert.deepEqual(reply.questions, [{ name: row.qname, type: row.qtype, class: 'IN' }]);
        if (rcodeOf(reply) !== 'SERVFAIL') assert.equal(reply.flag_aa, row.name !== 'ExampleDomainNameMismatch', `${row.name} AA`);
        row.check?.(reply);
      }
      if (row.error !== undefined) assert.ok(server.lines.some((line) => line.includes(row.error!)), `${row.name}: ${server.lines.join('\n')}`);
    }),
  );
});

test('without fallthrough a query in the zone that no regex matches gets SERVFAIL; one outside the zone goes on', async (t) => {
  const server = await serve(t, ' template IN A example {\n  match ^ip-(?P<a>[0-9]+)[.]example[.]$\n  answer "{{ .Name }} 60 IN A 10.0.0.{{ .Group.a }}"\n }');
  assert.deepEqual((await query({ port: server.port() }, 'ip-7.example', 'A')).answers?.map(dataOf), ['10.0.0.7']);
  assert.equal(rcodeOf(await query({ port: server.port() }, 'other.example', 'A')), 'SERVFAIL');
  // Another type is no match for the template at all: it goes on.
  assert.equal(rcodeOf(await query({ port: server.port() }, 'other.example', 'AAAA')), 'NOERROR');
  assert.deepEqual((await query({ port: server.port() }, 'www.example.org', 'A')).answers?.map(dataOf), ['192.0.2.1']);
});

test('fallthrough zones limit the fallthrough; the next template is tried first', async (t) => {
  const body = [
    ' template IN PTR in-addr.arpa {',
    '  match ^(?P<d>[0-9]*)[.](?P<c>[0-9]*)[.](?P<b>[0-9]*)[.](?P<a>[0-9]*)[.]in-addr[.]arpa[.]$',
    '  answer "{{ .Name }} 60 IN PTR ip-{{ .Group.a }}-{{ .Group.b }}-{{ .Group.c }}-{{ .Group.d }}.example."',
    '  fallthrough 10.in-addr.arpa',
    ' }',
    ' template IN PTR 10.in-addr.arpa {',
    '  answer "{{ .Name }} 60 IN PTR second.example."',
    ' }',
  ].join('\n');
  const server = await serve(t, body);
  const first = await query({ port: server.port() }, '8.12.95.10.in-addr.arpa', 'PTR');
  assert.deepEqual(first.answers?.map(dataOf), ['ip-10-95-12-8.example']);
  // Not four numbers: in 10.in-addr.arpa it falls through to the second template, elsewhere SERVFAIL.
  assert.deepEqual((await query({ port: server.port() }, 'x.10.in-addr.arpa', 'PTR')).answers?.map(dataOf), ['second.example']);
  assert.equal(rcodeOf(await query({ port: server.port() }, 'x.11.in-addr.arpa', 'PTR')), 'SERVFAIL');
});

test('the README .invalid example: NXDOMAIN with the SOA in authority and the extended error for EDNS clients', async (t) => {
  const body = ' template ANY ANY invalid {\n  rcode NXDOMAIN\n  authority "invalid. 60 {{ .Class }} SOA ns.invalid. hostmaster.invalid. (1 60 60 60 60)"\n  ederror 21 "Blocked according to RFC2606"\n }';
  const server = await serve(t, body);
  const plain = await query({ port: server.port() }, 'foo.invalid', 'A');
  assert.equal(rcodeOf(plain), 'NXDOMAIN');
  assert.deepEqual(plain.authorities?.map((rr) => [rr.name, rr.type, (rr as { ttl?: number }).ttl]), [['invalid', 'SOA', 60]]);
  assert.equal(plain.additionals?.length, 0, 'no OPT to a client without EDNS');
  const edns = await query({ port: server.port() }, 'foo.invalid', 'A', { udpSize: 1232, transport: 'tcp' });
  const opt = edns.additionals?.find((rr): rr is OptAnswer => rr.type === 'OPT');
  const ede = (opt?.options as unknown as { code: number; data: Buffer }[]).find((o) => o.code === 15);
  assert.ok(ede, 'an extended DNS error option');
  assert.equal(ede.data.readUInt16BE(0), 21);
  assert.equal(ede.data.subarray(2).toString(), 'Blocked according to RFC2606');
});

test('the README multiple-pattern example: the first matching regex of a template renders', async (t) => {
  const body = [
    ' template IN A example {',
    '  match "^ip-(?P<a>10)-(?P<b>[0-9]*)-(?P<c>[0-9]*)-(?P<d>[0-9]*)[.]dc[.]example[.]$"',
    '  match "^(?P<a>[0-9]*)[.](?P<b>[0-9]*)[.](?P<c>[0-9]*)[.](?P<d>[0-9]*)[.]ext[.]example[.]$"',
    '  answer "{{ .Name }} 60 IN A {{ .Group.a}}.{{ .Group.b }}.{{ .Group.c }}.{{ .Group.d }}"',
    '  fallthrough',
    ' }',
  ].join('\n');
  const server = await serve(t, body);
  assert.deepEqual((await query({ port: server.port() }, 'ip-10-1-2-3.dc.example', 'A')).answers?.map(dataOf), ['10.1.2.3']);
  assert.deepEqual((await query({ port: server.port() }, '192.168.1.2.EXT.example', 'A')).answers?.map(dataOf), ['192.168.1.2']);
});

test('the README CNAME example: the target is looked up and a truncated lookup truncates the reply (TestTruncatedCNAME)', async (t) => {
  const server = await serve(t, ' template IN ANY foogle.com {\n  match "^foogle\\.com\\.$"\n  answer "foogle.com 60 IN CNAME google.com"\n }');
  const a = await query({ port: server.port() }, 'foogle.com', 'A', { transport: 'tcp' });
  assert.deepEqual(a.answers?.map((rr) => [rr.name, rr.type, dataOf(rr)]), [['foogle.com', 'CNAME', 'google.com'], ['google.com', 'A', '192.0.2.1']]);
  assert.equal(a.flag_tc, false);
  // Other types get the CNAME alone.
  assert.deepEqual(answerTypes(await query({ port: server.port() }, 'foogle.com', 'TXT')), ['CNAME']);
  upstreamTruncates = true;
  t.after(() => {
    upstreamTruncates = false;
  });
  const truncated = await query({ port: server.port() }, 'foogle.com', 'A', { transport: 'tcp' });
  assert.equal(truncated.flag_tc, true);
});

test('a CNAME template that is last in the chain answers the CNAME alone (CNAMEWithoutUpstream)', async (t) => {
  const server = await serve(t, ` ${templates.cname}`, false);
  const reply = await query({ port: server.port() }, 'example.net', 'A');
  assert.deepEqual(answerTypes(reply), ['CNAME']);
});

test('templates read the question, the message and the client (TestMultiSection-style data)', async (t) => {
  const body = ' template IN TXT example {\n  answer "{{ .Name }} 60 IN TXT \\"{{ .Zone }}\\" \\"{{ .Class }}\\" \\"{{ .Type }}\\" \\"{{ .Question.Name }}\\" \\"{{ .Question.Qtype }}\\" \\"{{ index .Match 0 }}\\" \\"{{ len .Match }}\\" \\"{{ .Message.Id }}\\" \\"{{ .Remote }}\\" \\"{{- /* trimmed */ -}}\\""\n }';
  const server = await serve(t, body);
  const reply = await query({ port: server.port() }, 'Mixed.Example', 'TXT', { id: 777 });
  const strings = (dataOf(reply.answers![0]!) as Buffer[]).map(String);
  assert.deepEqual(strings, ['example.', 'IN', 'TXT', 'Mixed.Example.', '16', 'mixed.example.', '1', '777', '127.0.0.1', '']);
});

test('the template metrics count matches and both kinds of failure with CoreDNS\'s labels', async (t) => {
  const server = await serve(t, [
    ' template IN A ok.example {',
    '  answer "{{ .Name }} 60 IN A 10.0.0.1"',
    ' }',
    ' template IN A bad-template.example {',
    '  answer "{{ index .Match 3 }}"',
    ' }',
    ' template IN A bad-rr.example {',
    '  answer "{{ .Name }} 60 IN A not-an-address"',
    ' }',
  ].join('\n'));
  await query({ port: server.port() }, 'ok.example', 'A');
  await query({ port: server.port() }, 'ok.example', 'A', { transport: 'tcp' });
  assert.equal(rcodeOf(await query({ port: server.port() }, 'bad-template.example', 'A')), 'SERVFAIL');
  assert.equal(rcodeOf(await query({ port: server.port() }, 'bad-rr.example', 'A')), 'SERVFAIL');
  const registry = server.server.registry;
  const serverLabel = server.server.addresses[0]!.server;
  assert.equal(await counterValue(registry, 'coredns_template_matches_total', { server: serverLabel, zone: 'ok.example.', view: '', class: 'IN', type: 'A' }), 2);
  assert.equal(
    await counterValue(registry, 'coredns_template_template_failures_total', { zone: 'bad-template.example.', section: 'answer', template: '{{index .Match 3}}' }),
    1,
  );
  assert.equal(await counterValue(registry, 'coredns_template_rr_failures_total', { zone: 'bad-rr.example.', section: 'answer', template: '{{.Name}} 60 IN A not-an-address' }), 1);
  const text = await registry.metrics();
  assert.match(text, /^# HELP coredns_template_matches_total Counter of template regex matches\.$/m);
});
