import { test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import bind from '@foghorn/plugin-bind';
import hosts from '@foghorn/plugin-hosts';
import { createLogPlugin } from '@foghorn/plugin-log';
import metadata from '@foghorn/plugin-metadata';
import prometheus from '@foghorn/plugin-prometheus';
import template from '@foghorn/plugin-template';
import whoami from '@foghorn/plugin-whoami';
import { checkCases, directivesOf, formatRr, query, rcodeOf, startServer } from '@foghorn/testkit';
import type { Case, TestServer } from '@foghorn/testkit';
import view from '../src/index.js';

const logged: string[] = [];
// In the standard directive order (packages/foghorn/src/directives.ts).
const directives = directivesOf(metadata, bind, prometheus, createLogPlugin({ sink: (line) => logged.push(line) }), template, hosts, whoami, view);

/** Every block on 127.0.0.1 and one port 0: the blocks of a zone share one listener. */
function corefile(blocks: readonly (readonly [key: string, body: string])[]): string {
  return blocks.map(([key, body]) => `${key}:0 {\n    bind 127.0.0.1\n${body.replace(/^/gm, '    ')}\n}\n`).join('');
}

async function serve(t: TestContext, blocks: readonly (readonly [string, string])[]): Promise<TestServer> {
  const server = await startServer(corefile(blocks), { directives });
  t.after(() => server.close());
  return server;
}

const hostsOf = (...lines: string[]): string => `hosts {\n${lines.map((line) => `    ${line}`).join('\n')}\n}`;
const viewOf = (name: string, ...exprs: string[]): string => `view ${name} {\n${exprs.map((e) => `    expr ${e}`).join('\n')}\n}`;

// CoreDNS's test/view_test.go TestView: split by type, by name, and by metadata.
test('view splits a zone by query type, name and metadata, as CoreDNS TestView', async (t) => {
  const server = await serve(t, [
    ['split-type', `${viewOf('test-view-a', "type() == 'A'")}\n${hostsOf('1.2.3.4 test.split-type')}`],
    ['split-type', `${viewOf('test-view-aaaa', "type() == 'AAAA'")}\n${hostsOf('1:2:3::4 test.split-type')}`],
    ['split-name', `${viewOf('test-view-1', "name() matches '^one\\\\..*\\\\.split-name\\\\.$'")}\n${hostsOf('1.1.1.1 one.test.split-name one.test.test.test.split-name')}`],
    ['split-name', `${viewOf('test-view-2', "name() matches '^two\\\\..*\\\\.split-name\\\\.$'")}\n${hostsOf('2.2.2.2 two.test.split-name two.test.test.test.split-name')}`],
    ['split-name', hostsOf('3.3.3.3 default.test.split-name')],
    // Never true.
    ['metadata', `metadata\n${viewOf('test-view-meta1', "metadata('view/name') == 'not-the-view-name'")}\n${hostsOf('1.1.1.1 test.metadata')}`],
    // Never true: no metadata plugin in this block, so metadata() is ''.
    ['metadata', `${viewOf('test-view-meta2', "metadata('view/name') == 'test-view-meta2'")}\n${hostsOf('2.2.2.2 test.metadata')}`],
    // Always true.
    ['metadata', `metadata\n${viewOf('test-view-meta3', "metadata('view/name') == 'test-view-meta3'")}\n${hostsOf('2.2.2.2 test.metadata')}`],
    // Never reached.
    ['metadata', hostsOf('3.3.3.3 test.metadata')],
  ]);
  const cases: Case[] = [
    { qname: 'test.split-type.', qtype: 'A', answer: ['test.split-type. 3600 IN A 1.2.3.4'] },
    { qname: 'test.split-type.', qtype: 'AAAA', answer: ['test.split-type. 3600 IN AAAA 1:2:3::4'] },
    { qname: 'one.test.test.test.split-name.', qtype: 'A', answer: ['one.test.test.test.split-name. 3600 IN A 1.1.1.1'] },
    { qname: 'one.test.split-name.', qtype: 'A', answer: ['one.test.split-name. 3600 IN A 1.1.1.1'] },
    { qname: 'two.test.test.test.split-name.', qtype: 'A', answer: ['two.test.test.test.split-name. 3600 IN A 2.2.2.2'] },
    { qname: 'two.test.split-name.', qtype: 'A', answer: ['two.test.split-name. 3600 IN A 2.2.2.2'] },
    { qname: 'default.test.split-name.', qtype: 'A', answer: ['default.test.split-name. 3600 IN A 3.3.3.3'] },
    { qname: 'test.metadata.', qtype: 'A', answer: ['test.metadata. 3600 IN A 2.2.2.2'] },
  ];
  await checkCases({ port: server.port() }, cases, { transports: ['udp', 'tcp'] });
});

// CoreDNS's test/view_test.go TestViewServerBlockOrdering (coredns/coredns#7733).
test('blocks of a zone are tried top to bottom: a block without a view shadows the views after it', async (t) => {
  const server = await serve(t, [
    ['order-test', `${viewOf('v-a', "type() == 'A'")}\n${hostsOf('1.2.3.4 test.order-test')}`],
    ['order-test', `${viewOf('v-aaaa', "type() == 'AAAA'")}\n${hostsOf('1:2:3::4 test.order-test')}`],
    ['order-test', hostsOf('5.6.7.8 test.order-test')],
    ['order-test2', hostsOf('5.6.7.8 test.order-test2')],
    ['order-test2', `${viewOf('v-a', "type() == 'A'")}\n${hostsOf('1.2.3.4 test.order-test2')}`],
    ['order-test3', `${viewOf('v-a', "type() == 'A'")}\n${hostsOf('1.2.3.4 test.order-test3')}`],
    ['order-test3', hostsOf('5.6.7.8 test.order-test3')],
    ['order-test3', `${viewOf('v-aaaa', "type() == 'AAAA'")}\n${hostsOf('1:2:3::4 test.order-test3')}`],
    ['order-test4', `${viewOf('v-a', "type() == 'A'")}\n${hostsOf('1.2.3.4 test.order-test4')}`],
    ['order-test4', `${viewOf('v-aaaa', "type() == 'AAAA'")}\n${hostsOf('1:2:3::4 test.order-test4')}`],
  ]);
  const cases: Case[] = [
    { qname: 'test.order-test.', qtype: 'A', answer: ['test.order-test. 3600 IN A 1.2.3.4'] },
    { qname: 'test.order-test.', qtype: 'AAAA', answer: ['test.order-test. 3600 IN AAAA 1:2:3::4'] },
    { qname: 'test.order-test.', qtype: 'MX', answer: [] },
    { qname: 'test.order-test2.', qtype: 'A', answer: ['test.order-test2. 3600 IN A 5.6.7.8'] },
    { qname: 'test.order-test3.', qtype: 'A', answer: ['test.order-test3. 3600 IN A 1.2.3.4'] },
    { qname: 'test.order-test3.', qtype: 'AAAA', answer: [] },
    { qname: 'test.order-test4.', qtype: 'A', answer: ['test.order-test4. 3600 IN A 1.2.3.4'] },
    { qname: 'test.order-test4.', qtype: 'MX', rcode: 'REFUSED' },
  ];
  await checkCases({ port: server.port() }, cases);
});

test('a query no view of its zone passes goes on to the less specific zones', async (t) => {
  const server = await serve(t, [
    ['sub.example.org', `${viewOf('tcp-only', "proto() == 'tcp'")}\n${hostsOf('192.0.2.1 a.sub.example.org')}`],
    ['example.org', hostsOf('192.0.2.2 a.sub.example.org')],
  ]);
  const port = server.port();
  assert.deepEqual((await query({ port }, 'a.sub.example.org', 'A', { transport: 'tcp' })).answers?.map(formatRr), ['a.sub.example.org. 3600 IN A 192.0.2.1']);
  assert.deepEqual((await query({ port }, 'a.sub.example.org', 'A')).answers?.map(formatRr), ['a.sub.example.org. 3600 IN A 192.0.2.2']);
});

test('the client, transport and listener functions read the query as CoreDNS does', async (t) => {
  const server = await serve(t, [
    ['.', `${viewOf('loopback-tcp', "incidr(client_ip(), '127.0.0.0/8') && proto() == 'tcp' && port() != '0' && server_ip() == '127.0.0.1'")}\n${hostsOf('192.0.2.1 a.example.org')}`],
    ['.', `${viewOf('other-net', "incidr(client_ip(), '10.0.0.0/8')")}\n${hostsOf('192.0.2.2 a.example.org')}`],
    // bufsize() is at least 512 and 65535 over TCP; size() is the query's length; do() its DO bit.
    ['.', `${viewOf('big', 'bufsize() >= 4096 && do() && size() > 40')}\n${hostsOf('192.0.2.3 a.example.org')}`],
    // A failure while evaluating (no IP address) is false.
    ['.', `${viewOf('broken', "incidr('not-an-ip', '0.0.0.0/0')")}\n${hostsOf('192.0.2.4 a.example.org')}`],
    ['.', hostsOf('192.0.2.5 a.example.org')],
  ]);
  const port = server.port();
  const answer = async (options: Parameters<typeof query>[3]): Promise<unknown> => (await query({ port }, 'a.example.org', 'A', options)).answers?.map(formatRr);
  assert.deepEqual(await answer({ transport: 'tcp' }), ['a.example.org. 3600 IN A 192.0.2.1']);
  assert.deepEqual(await answer({ udpSize: 4096, dnssecOk: true }), ['a.example.org. 3600 IN A 192.0.2.3']);
  assert.deepEqual(await answer({ udpSize: 1232, dnssecOk: true }), ['a.example.org. 3600 IN A 192.0.2.5']);
  assert.deepEqual(await answer({}), ['a.example.org. 3600 IN A 192.0.2.5']);
});

test('the view name is the view label of the dns metrics and coredns_plugin_enabled', async (t) => {
  const server = await serve(t, [
    ['example.org', `prometheus 127.0.0.1:0\n${viewOf('tcp', "proto() == 'tcp'")}\nwhoami`],
    ['example.org', 'prometheus 127.0.0.1:0\nwhoami'],
  ]);
  const port = server.port();
  await query({ port }, 'example.org', 'A', { transport: 'tcp' });
  await query({ port }, 'example.org', 'A');
  const metrics = await server.server.registry.getSingleMetric('coredns_dns_requests_total')!.get();
  const byView = Object.fromEntries(metrics.values.map((v) => [`${v.labels['view']}/${v.labels['proto']}`, v.value]));
  assert.deepEqual(byView, { 'tcp/tcp': 1, '/udp': 1 });
  const enabled = await server.server.registry.getSingleMetric('coredns_plugin_enabled')!.get();
  const rows = enabled.values.map((v) => `${v.labels['view']}:${v.labels['name']}`).sort();
  assert.deepEqual(rows, [':prometheus', ':whoami', 'tcp:prometheus', 'tcp:view', 'tcp:whoami']);
});

test('metadata of the block serving the query: view/name in log and template, metadata() in the expression', async (t) => {
  const server = await serve(t, [
    [
      'example.org',
      [
        'metadata',
        'log . "{name} {/view/name} {/log/class}"',
        viewOf('internal', "metadata('view/name') == 'internal' && type() == 'TXT'"),
        'template IN TXT {\n    answer "{{ .Name }} 60 IN TXT \\"{{ .Meta \\"view/name\\" }}\\""\n}',
      ].join('\n'),
    ],
    ['example.org', 'metadata\nlog . "{name} {/view/name}"\nwhoami'],
  ]);
  logged.length = 0;
  const port = server.port();
  assert.deepEqual((await query({ port }, 'example.org', 'TXT')).answers?.map(formatRr), ['example.org. 60 IN TXT "internal"']);
  assert.equal(rcodeOf(await query({ port }, 'example.org', 'A')), 'NOERROR');
  assert.deepEqual(logged, ['[INFO] example.org. internal success', '[INFO] example.org. -']);
});

test('blocks without a view still may not share a zone and port', async () => {
  await assert.rejects(
    startServer(corefile([['example.org', 'whoami'], ['example.org', `${viewOf('v', 'true')}\nwhoami`], ['example.org', 'whoami']]), { directives }),
    /Corefile:12:1 - Error during parsing: cannot serve dns:\/\/example\.org\.:0 on 127\.0\.0\.1 - it is already defined at Corefile:1:1/,
  );
});
