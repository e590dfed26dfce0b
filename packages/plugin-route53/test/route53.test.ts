/**
 * CoreDNS plugin/route53/route53_test.go (TestRoute53, TestMaybeUnescape) over real sockets: the
 * record sets served by testkit's Route 53 stand-in (the API is signed and paged as AWS's), a
 * server with the real plugin reading them at startup, queries over UDP and TCP. Then what the
 * Go test cannot show: refreshes pick up changes, and an endpoint that goes away leaves the last
 * zones served.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { answerWith, checkCases, directivesOf, eventually, FakeBackend, query, startRoute53, startServer, tempFile } from '@foghorn/testkit';
import type { Case, FakeRecordSet, FakeRoute53, TestServer } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import errors from '@foghorn/plugin-errors';
import route53, { maybeUnescape } from '@foghorn/plugin-route53';

const KEY = 'AKIDFOGHORNTEST';

/** The plugin after route53 (CoreDNS's test handler): example.gov A 2.4.6.8, SERVFAIL for the rest. */
const backend = new FakeBackend();
backend.table.set('example.gov. A', answerWith('example.gov. 300 IN A 2.4.6.8'));
backend.table.set('outside.example. A', answerWith('outside.example. 300 IN A 192.0.2.53'));

const directives = directivesOf(bind, errors, route53, backend.plugin('next'));

function set(type: string, name: string, value: string): FakeRecordSet {
  return { type, name, ttl: 300, values: [value] };
}

// The record sets of CoreDNS's fakeRoute53, by hosted zone ID.
const zone1234567890 = [
  set('A', 'example.org.', '1.2.3.4'),
  set('A', 'www.example.org', '1.2.3.4'),
  set('CNAME', '\\052.www.example.org', 'www.example.org'),
  set('AAAA', 'example.org.', '2001:db8:85a3::8a2e:370:7334'),
  set('CNAME', 'sample.example.org.', 'example.org'),
  set('PTR', 'example.org.', 'ptr.example.org.'),
  set('SOA', 'org.', 'ns-1536.awsdns-00.co.uk. awsdns-hostmaster.amazon.com. 1 7200 900 1209600 86400'),
  set('NS', 'com.', 'ns-1536.awsdns-00.co.uk.'),
  set('A', 'split-example.gov.', '1.2.3.4'),
  // An unsupported type is skipped with a warning.
  set('YOLO', 'swag.', 'foobar'),
];
const zone1357986420 = [
  set('A', 'other-example.org.', '3.5.7.9'),
  set('A', 'split-example.org.', '1.2.3.4'),
  set('SOA', 'org.', 'ns-15.awsdns-00.co.uk. awsdns-hostmaster.amazon.com. 1 7200 900 1209600 86400'),
];

async function fakeAws(t: { after(fn: () => unknown): void }, pageSize?: number): Promise<FakeRoute53> {
  const aws = await startRoute53({ accessKeyId: KEY, ...(pageSize !== undefined ? { pageSize } : {}) });
  t.after(() => aws.close());
  aws.setZone('1234567890', 'org.', zone1234567890);
  aws.setZone('1357986420', 'org.', zone1357986420);
  aws.setZone('Z098765432', 'gov.', []);
  return aws;
}

async function serve(t: { after(fn: () => unknown): void }, line: string, block: string): Promise<TestServer> {
  const server = await startServer(`.:0 {\n bind 127.0.0.1\n errors\n ${line} {\n${block}\n }\n next\n}\n`, { directives });
  t.after(() => server.close());
  return server;
}

const soa1536 = 'org. 300 IN SOA ns-1536.awsdns-00.co.uk. awsdns-hostmaster.amazon.com. 1 7200 900 1209600 86400';
const soa15 = 'org. 300 IN SOA ns-15.awsdns-00.co.uk. awsdns-hostmaster.amazon.com. 1 7200 900 1209600 86400';

// TestRoute53's table, numbered as there.
const cases: Case[] = [
  /* 0 */ { qname: 'example.org.', qtype: 'A', answer: ['example.org. 300 IN A 1.2.3.4'], flags: { aa: true } },
  /* 1 */ { qname: 'example.org.', qtype: 'AAAA', answer: ['example.org. 300 IN AAAA 2001:db8:85a3::8a2e:370:7334'] },
  /* 2 */ { qname: 'example.org.', qtype: 'PTR', answer: ['example.org. 300 IN PTR ptr.example.org.'] },
  /* 3 */ { qname: 'sample.example.org.', qtype: 'A', ordered: true, answer: ['sample.example.org. 300 IN CNAME example.org.', 'example.org. 300 IN A 1.2.3.4'] },
  /* 4 */ { qname: 'sample.example.org.', qtype: 'CNAME', answer: ['sample.example.org. 300 IN CNAME example.org.'] },
  /* 5 */ { qname: 'example.org.', qtype: 'NS', ns: [soa1536] },
  // 6: CoreDNS answers NODATA with the SOA of org. that hosted zone 1234567890 holds; a zone
  // without an SOA at its own apex is not served here (README, Differences): gov. falls through.
  /* 6 */ { qname: 'split-example.gov.', qtype: 'AAAA', rcode: 'SERVFAIL' },
  /* 7 */ { qname: 'badexample.com.', qtype: 'A', rcode: 'SERVFAIL' },
  /* 8 */ { qname: 'bad.org.', qtype: 'A', rcode: 'NXDOMAIN', ns: [soa1536], flags: { aa: true } },
  /* 9 */ { qname: 'example.gov.', qtype: 'A', answer: ['example.gov. 300 IN A 2.4.6.8'] },
  /* 10 */ { qname: 'other-example.org.', qtype: 'A', answer: ['other-example.org. 300 IN A 3.5.7.9'] },
  /* 11 */ { qname: 'split-example.org.', qtype: 'AAAA', ns: [soa15] },
  /* 12 */ { qname: 'a.www.example.org.', qtype: 'A', ordered: true, answer: ['a.www.example.org. 300 IN CNAME www.example.org.', 'www.example.org. 300 IN A 1.2.3.4'] },
];

const block = (aws: FakeRoute53, extra = ''): string => `  aws_endpoint ${aws.url}\n  aws_access_key ${KEY} SECRET\n  fallthrough gov.\n${extra}`;
const zones = 'route53 org.:1357986420 org.:1234567890 gov.:Z098765432 gov.:1234567890';

test('TestRoute53: the zones of two hosted zones per name, read page by page', async (t) => {
  // Two record sets a page: the zones are read over several signed requests.
  const aws = await fakeAws(t, 2);
  const server = await serve(t, zones, block(aws));
  assert.ok(aws.calls.rrset! >= 8, `rrset pages read: ${aws.calls.rrset}`);
  assert.ok(server.lines.some((line) => line.startsWith('[WARNING] plugin/route53: Failed to process resource record set: failed to parse resource record:')), server.lines.join('\n'));
  await checkCases({ port: server.port() }, cases, { transports: ['udp', 'tcp'] });
});

test('TestRoute53: a hosted zone the API does not know stops the start', async (t) => {
  const aws = await fakeAws(t);
  await assert.rejects(serve(t, 'route53 bad.:0987654321', block(aws)), {
    message: /^plugin\/route53: Corefile:4:2 - failed to create route53 plugin: NoSuchHostedZone: No hosted zone found with ID: 0987654321$/,
  });
  // Requests signed for another key are refused.
  await assert.rejects(serve(t, 'route53 org.:1234567890', `  aws_endpoint ${aws.url}\n  aws_access_key OTHERKEY SECRET`), { message: /InvalidClientTokenId/ });
});

test('credentials PROFILE FILENAME: the key of that profile signs', async (t) => {
  const aws = await fakeAws(t);
  const file = tempFile(t, `[default]\naws_access_key_id = WRONG\naws_secret_access_key = x\n\n[dns]\naws_access_key_id = ${KEY}\naws_secret_access_key = s3cret\n`, 'credentials');
  const server = await serve(t, 'route53 org.:1357986420', `  aws_endpoint ${aws.url}\n  credentials dns ${file}`);
  await checkCases({ port: server.port() }, [cases[10]!]);
});

test('refresh picks up changes; an endpoint that is down keeps the last zone served', async (t) => {
  const aws = await fakeAws(t);
  const server = await serve(t, 'route53 org.:1357986420', block(aws, '  refresh 1'));
  const target = { port: server.port() };
  await checkCases(target, [cases[10]!]);
  aws.setZone('1357986420', 'org.', [...zone1357986420, set('A', 'new.example.org.', '192.0.2.7'), set('CNAME', 'out.example.org.', 'outside.example.')]);
  await eventually(async () => (await query(target, 'new.example.org.', 'A')).answers?.length === 1, 5000, 'the new record after a refresh');
  // A CNAME out of the zone is completed by the plugins after route53.
  await checkCases(target, [{ qname: 'out.example.org.', qtype: 'A', ordered: true, answer: ['out.example.org. 300 IN CNAME outside.example.', 'outside.example. 300 IN A 192.0.2.53'] }]);

  await aws.stop();
  await eventually(() => server.lines.some((line) => line.startsWith('[ERROR] plugin/route53: Failed to update zones [org.]: errors updating zones: [failed to list resource records for org.:1357986420 from route53:')), 5000, 'a failed refresh logged');
  await checkCases(target, [cases[10]!, { qname: 'new.example.org.', qtype: 'A', answer: ['new.example.org. 300 IN A 192.0.2.7'] }]);

  await aws.start();
  aws.setZone('1357986420', 'org.', zone1357986420);
  await eventually(async () => (await query(target, 'new.example.org.', 'A')).rcode === 'NXDOMAIN', 5000, 'the record gone after the endpoint is back');
});

// TestMaybeUnescape.
const unescapes: [string, string | Error][] = [
  ['', ''],
  ['example.com.', 'example.com.'],
  ['\\052.example.com', '*.example.com'],
  ['weird\\055ex\\141mple\\056com\\056\\056', 'weird-example.com..'],
  ['e\\052ample.com', new Error("`*' only supported as wildcard (leftmost label)")],
  ['\\000.example.com', new Error('invalid character: \\000')],
  ['example\\0com', new Error("invalid escape sequence: '\\0co'")],
  ['example.com\\0', new Error("invalid escape sequence: '\\0'")],
];

test('maybeUnescape turns Route 53\'s octal escapes back into characters (TestMaybeUnescape)', () => {
  for (const [escaped, want] of unescapes) {
    if (want instanceof Error) assert.throws(() => maybeUnescape(escaped), { message: want.message }, escaped);
    else assert.equal(maybeUnescape(escaped), want, escaped);
  }
});

