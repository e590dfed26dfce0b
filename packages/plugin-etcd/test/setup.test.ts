import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeTestPki, setupTable } from '@foghorn/testkit';
import etcd, { parseEtcd, parseTtl } from '@foghorn/plugin-etcd';
import type { EtcdOptions } from '@foghorn/plugin-etcd';

const pki = makeTestPki();
process.on('exit', () => pki.remove());

// CoreDNS plugin/etcd/setup_test.go: TestSetupEtcd, and the option errors of setup.go.
setupTable<EtcdOptions>('etcd', parseEtcd, {
  plugin: etcd,
  key: '.',
  partial: true,
  good: [
    { input: 'etcd', want: { pathPrefix: 'skydns', endpoints: ['http://localhost:2379'], zones: ['.'], fallthrough: null, minLeaseTtl: 30, maxLeaseTtl: 86400 } },
    { input: 'etcd {\n\tendpoint http://localhost:2379 http://localhost:3379 http://localhost:4379\n\n}', want: { endpoints: ['http://localhost:2379', 'http://localhost:3379', 'http://localhost:4379'] } },
    { input: 'etcd skydns.local {\n\tendpoint localhost:300\n}', want: { pathPrefix: 'skydns', endpoints: ['localhost:300'], zones: ['skydns.local.'] } },
    { input: 'etcd {\n endpoint http://localhost:2379\n credentials username password\n}', want: { username: 'username', password: 'password' } },
    { input: 'etcd {\n min-lease-ttl 60\n}', want: { minLeaseTtl: 60, maxLeaseTtl: 86400 } },
    { input: 'etcd {\n max-lease-ttl 1h\n}', want: { maxLeaseTtl: 3600 } },
    { input: 'etcd {\n min-lease-ttl 120\n max-lease-ttl 7200\n}', want: { minLeaseTtl: 120, maxLeaseTtl: 7200 } },
    { input: 'etcd Skydns.LOCAL 10.0.0.0/24 {\n path /other\n fallthrough in-addr.arpa\n}', want: { zones: ['skydns.local.', '0.0.10.in-addr.arpa.'], pathPrefix: '/other', fallthrough: ['in-addr.arpa.'] } },
    { input: 'etcd {\n fallthrough\n stubzones\n debug\n upstream 8.8.8.8\n}', want: { fallthrough: ['.'] } },
    { input: `etcd {\n tls ${pki.client.certFile} ${pki.client.keyFile} ${pki.ca.certFile}\n}`, want: { tls: { cert: Buffer.from(pki.client.cert), key: Buffer.from(pki.client.key), ca: Buffer.from(pki.ca.cert) } } },
    { input: `etcd {\n tls ${pki.ca.certFile}\n}`, want: { tls: { ca: Buffer.from(pki.ca.cert) } } },
    { input: 'etcd {\n tls\n}', want: { tls: {} } },
  ],
  bad: [
    { input: 'etcd {\n\tendpoints localhost:300\n}', error: "Corefile:3:2 - Error during parsing: unknown property 'endpoints'" },
    { input: 'etcd {\n endpoint http://localhost:2379\n credentials username\n}', error: 'Corefile:4:14 - Error during parsing: credentials requires 2 arguments, username and password' },
    { input: 'etcd {\n endpoint http://localhost:2379\n credentials\n}', error: "Corefile:4:2 - Error during parsing: Wrong argument count or unexpected line ending after 'credentials'" },
    { input: 'etcd {\n path\n}', error: "Corefile:3:2 - Error during parsing: Wrong argument count or unexpected line ending after 'path'" },
    { input: 'etcd {\n endpoint\n}', error: "Corefile:3:2 - Error during parsing: Wrong argument count or unexpected line ending after 'endpoint'" },
    { input: 'etcd {\n endpoint unix:///run/etcd.sock\n}', error: 'Corefile:3:11 - Error during parsing: endpoint unix:///run/etcd.sock: only http and https endpoints are supported' },
    { input: 'etcd {\n min-lease-ttl\n}', error: "Corefile:3:2 - Error during parsing: Wrong argument count or unexpected line ending after 'min-lease-ttl'" },
    { input: 'etcd {\n min-lease-ttl abc\n}', error: "Corefile:3:16 - Error during parsing: invalid min-lease-ttl value: invalid TTL format, use format like '30', '30s', '5m', '1h', or '2h30m'" },
    { input: 'etcd {\n max-lease-ttl -30s\n}', error: 'Corefile:3:16 - Error during parsing: invalid max-lease-ttl value: TTL must be non-negative' },
    { input: 'etcd {\n tls a b c d\n}', error: 'Corefile:3:12 - Error during parsing: maximum of three arguments allowed for TLS config, found 4' },
    { input: 'etcd {\n tls /nonexistent/cert.pem /nonexistent/key.pem\n}', error: 'Error during parsing: could not load TLS cert: ENOENT: no such file or directory' },
    { input: 'etcd {\n tls /nonexistent/ca.pem\n}', error: 'Error during parsing: error reading /nonexistent/ca.pem' },
    { input: 'etcd\netcd', error: 'Corefile:3:1 - Error during parsing: this plugin can only be used once per Server Block' },
  ],
});

// CoreDNS plugin/etcd/setup_test.go: TestParseTTL.
const ttls: [string, number | string][] = [
  ['30', 30], ['300', 300], ['30s', 30], ['90s', 90], ['5m', 300], ['1m', 60], ['1h', 3600], ['2h', 7200],
  ['2h30m', 9000], ['1h30m45s', 5445], ['0', 0], ['0s', 0], ['', 0],
  ['-30s', 'TTL must be non-negative'], ['abc', 'invalid TTL format'], ['1y', 'invalid TTL format'],
];

test('parseTtl reads seconds and Go durations (TestParseTTL)', () => {
  for (const [input, want] of ttls) {
    if (typeof want === 'number') assert.equal(parseTtl(input), want, input);
    else assert.throws(() => parseTtl(input), { message: new RegExp(want) }, input);
  }
});
