/**
 * view: blocks sharing a zone and port chosen by expressions, the same in both servers. The
 * queries come from 127.0.0.1 over UDP or TCP, so the client and transport functions have
 * something to tell apart.
 */
import type { DifferentialCase } from './case.js';

/** A server block on 127.0.0.1 at the case's port. */
const block = (zone: string, body: string): string => `${zone}:{port} {\n  bind 127.0.0.1\n${body.replace(/^/gm, '  ')}\n}\n`;
const view = (name: string, ...exprs: string[]): string => `view ${name} {\n${exprs.map((e) => `  expr ${e}`).join('\n')}\n}`;
const hosts = (...lines: string[]): string => `hosts {\n${lines.map((l) => `  ${l}`).join('\n')}\n}`;

const cases: DifferentialCase[] = [
  {
    plugin: 'view',
    name: 'view splits by type and name (CoreDNS TestView)',
    corefile: [
      block('split-type', `${view('test-view-a', "type() == 'A'")}\n${hosts('1.2.3.4 test.split-type')}`),
      block('split-type', `${view('test-view-aaaa', "type() == 'AAAA'")}\n${hosts('1:2:3::4 test.split-type')}`),
      block('split-name', `${view('test-view-1', "name() matches '^one\\\\..*\\\\.split-name\\\\.$'")}\n${hosts('1.1.1.1 one.test.split-name one.test.test.test.split-name')}`),
      block('split-name', `${view('test-view-2', "name() matches '^two\\\\..*\\\\.split-name\\\\.$'")}\n${hosts('2.2.2.2 two.test.split-name two.test.test.test.split-name')}`),
      block('split-name', hosts('3.3.3.3 default.test.split-name')),
    ].join(''),
    queries: [
      { name: 'test.split-type.', type: 'A' },
      { name: 'test.split-type.', type: 'AAAA' },
      { name: 'test.split-type.', type: 'MX' },
      { name: 'one.test.test.test.split-name.', type: 'A' },
      { name: 'one.test.split-name.', type: 'A' },
      { name: 'two.test.split-name.', type: 'A' },
      { name: 'default.test.split-name.', type: 'A' },
      { name: 'nowhere.split-name.', type: 'A' },
    ],
  },
  {
    plugin: 'view',
    // CoreDNS 1.12.3 refuses a view block after a block without one (`it is already defined`);
    // v1.14 accepts it (coredns/coredns#7733), as Foghorn does: that part of the test is left out.
    name: 'view block ordering (CoreDNS TestViewServerBlockOrdering)',
    corefile: [
      block('order-test', `${view('v-a', "type() == 'A'")}\n${hosts('1.2.3.4 test.order-test')}`),
      block('order-test', `${view('v-aaaa', "type() == 'AAAA'")}\n${hosts('1:2:3::4 test.order-test')}`),
      block('order-test', hosts('5.6.7.8 test.order-test')),
      block('order-test4', `${view('v-a', "type() == 'A'")}\n${hosts('1.2.3.4 test.order-test4')}`),
      block('order-test4', `${view('v-aaaa', "type() == 'AAAA'")}\n${hosts('1:2:3::4 test.order-test4')}`),
    ].join(''),
    queries: [
      { name: 'test.order-test.', type: 'A' },
      { name: 'test.order-test.', type: 'AAAA' },
      { name: 'test.order-test.', type: 'MX' },
      { name: 'test.order-test4.', type: 'A' },
      { name: 'test.order-test4.', type: 'MX' },
    ],
  },
  {
    plugin: 'view',
    name: 'view query functions, operators and the fall back to the parent zone',
    corefile: [
      block('sub.example.org', `${view('tcp', "proto() == 'tcp' && incidr(client_ip(), '127.0.0.0/8') && port() != '0'")}\n${hosts('192.0.2.1 a.sub.example.org')}`),
      block('example.org', `${view('do', 'do() && bufsize() >= 4096 && size() > 30 && opcode() == 0 && id() >= 0')}\n${hosts('192.0.2.2 a.sub.example.org')}`),
      block('example.org', `${view('v6', "incidr(client_ip(), '::1/128') || class() != 'IN'")}\n${hosts('192.0.2.3 a.sub.example.org')}`),
      block('example.org', `${view('arith', "(size() % 2 == 0 ? 'even' : 'odd') in ['even', 'odd'] && 1 < 2 && 'ab' + 'c' == 'abc' && name() endsWith '.example.org.' && name() not contains 'nope' && type() not in ['MX']")}\n${hosts('192.0.2.4 a.sub.example.org')}`),
      block('example.org', `${view('broken', "incidr('not-an-ip', '0.0.0.0/0')")}\n${hosts('192.0.2.5 a.sub.example.org')}`),
      block('example.org', hosts('192.0.2.6 a.sub.example.org')),
    ].join(''),
    queries: [
      { name: 'a.sub.example.org.', type: 'A', transport: 'tcp' },
      { name: 'a.sub.example.org.', type: 'A' },
      { name: 'a.sub.example.org.', type: 'A', udpSize: 4096, do: true },
      { name: 'a.sub.example.org.', type: 'A', udpSize: 1232, do: true },
      { name: 'a.sub.example.org.', type: 'MX' },
    ],
  },
  {
    plugin: 'view',
    name: 'view and metadata: the view name in expressions and templates',
    corefile: [
      block('metadata', `metadata\n${view('test-view-meta1', "metadata('view/name') == 'not-the-view-name'")}\n${hosts('1.1.1.1 test.metadata')}`),
      block('metadata', `${view('test-view-meta2', "metadata('view/name') == 'test-view-meta2'")}\n${hosts('2.2.2.2 test.metadata')}`),
      block('metadata', `metadata\n${view('test-view-meta3', "metadata('view/name') == 'test-view-meta3'")}\ntemplate IN TXT {\n  answer "{{ .Name }} 60 IN TXT \\"{{ .Meta \\"view/name\\" }}\\""\n}\n${hosts('2.2.2.2 test.metadata')}`),
      block('metadata', hosts('3.3.3.3 test.metadata')),
    ].join(''),
    queries: [
      { name: 'test.metadata.', type: 'A' },
      { name: 'test.metadata.', type: 'TXT' },
    ],
  },
];
export default cases;
