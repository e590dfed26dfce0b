import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { validateCorefile } from '@foghorn/core/server';
import { directivesOf, makeTestPki, setupTable } from '@foghorn/testkit';
import grpc, { parseGrpc } from '@foghorn/plugin-grpc';
import type { GrpcOptions } from '@foghorn/plugin-grpc';

const dir = mkdtempSync(join(tmpdir(), 'foghorn-grpc-setup-'));
const pki = makeTestPki();
after(() => {
  rmSync(dir, { recursive: true, force: true });
  pki.remove();
});
const resolv = join(dir, 'resolv.conf');
writeFileSync(resolv, 'nameserver 10.10.255.252\nnameserver 10.10.255.253\n');
const empty = join(dir, 'empty.conf');
writeFileSync(empty, '# no nameserver here\n');
const notPem = join(dir, 'not.pem');
writeFileSync(notPem, 'not a certificate\n');

const ip = (address: string): { address: string; target: string } => ({ address, target: `${address.startsWith('[') ? 'ipv6' : 'ipv4'}:${address}` });
const sixteen = Array.from({ length: 16 }, (_, i) => `127.0.0.${i + 1}`).join(' ');

// CoreDNS plugin/grpc: setup_test.go (TestSetup, TestSetupTLS, TestSetupResolvconf,
// TestSetupFallthrough), setup_policy_test.go, and the other errors of setup.go.
setupTable<GrpcOptions>('grpc', parseGrpc, {
  plugin: grpc,
  key: '.',
  partial: true,
  good: [
    { input: 'grpc . 127.0.0.1', want: { from: '.', upstreams: [ip('127.0.0.1:53')], except: [], tls: null, policy: 'random', fallthrough: null } },
    { input: 'grpc . 127.0.0.1 {\nexcept miek.nl\n}', want: { from: '.', except: ['miek.nl.'] } },
    { input: 'grpc . 127.0.0.1:53', want: { upstreams: [ip('127.0.0.1:53')] } },
    { input: 'grpc . 127.0.0.1:8080', want: { upstreams: [ip('127.0.0.1:8080')] } },
    { input: 'grpc . [::1]:53', want: { upstreams: [ip('[::1]:53')] } },
    { input: 'grpc . [2003::1]:53', want: { upstreams: [ip('[2003::1]:53')] } },
    { input: 'grpc . ::1', want: { upstreams: [ip('[::1]:53')] } },
    { input: 'grpc . dns://127.0.0.1 dns://127.0.0.1:5353', want: { upstreams: [ip('127.0.0.1:53'), ip('127.0.0.1:5353')] } },
    { input: 'grpc . unix:///var/run/g.sock', want: { upstreams: [{ address: 'unix:///var/run/g.sock', target: 'unix:///var/run/g.sock' }] } },
    { input: 'grpc Example.ORG 127.0.0.1 127.0.0.1', want: { from: 'example.org.', upstreams: [ip('127.0.0.1:53'), ip('127.0.0.1:53')] } },
    { input: 'grpc 10.0.0.0/24 127.0.0.1', want: { from: '0.0.10.in-addr.arpa.' } },
    { input: 'grpc . 127.0.0.1 {\nexcept Example.org miek.nl.\n}', want: { except: ['example.org.', 'miek.nl.'] } },
    { input: 'grpc . 127.0.0.1 {\ntls_servername dns\n}', want: { tls: {}, tlsServerName: 'dns' } },
    { input: 'grpc . 127.0.0.1 {\ntls\n}', want: { tls: {}, tlsServerName: undefined } },
    { input: `grpc . ${resolv}`, want: { upstreams: [ip('10.10.255.252:53'), ip('10.10.255.253:53')] } },
    { input: 'grpc . 127.0.0.1 {\n\tfallthrough\n}', want: { fallthrough: ['.'] } },
    { input: 'grpc . 127.0.0.1 {\n\tfallthrough example.org\n}', want: { fallthrough: ['example.org.'] } },
    { input: 'grpc . 127.0.0.1 {\n\tfallthrough example.org example.com\n}', want: { fallthrough: ['example.org.', 'example.com.'] } },
    { input: 'grpc . 127.0.0.1 {\npolicy random\n}', want: { policy: 'random' } },
    { input: 'grpc . 127.0.0.1 {\npolicy round_robin\n}', want: { policy: 'round_robin' } },
    { input: 'grpc . 127.0.0.1 {\npolicy sequential\n}', want: { policy: 'sequential' } },
    { input: `grpc . ${Array.from({ length: 15 }, () => '127.0.0.1').join(' ')}`, want: { from: '.' } },
  ],
  bad: [
    { input: 'grpc . a27.0.0.1', error: 'Corefile:2:8 - Error during parsing: not an IP address or file "a27.0.0.1": failed to open file "a27.0.0.1": "open a27.0.0.1: no such file or directory"' },
    { input: 'grpc . 127.0.0.1 {\nblaatl\n}', error: "Corefile:3:1 - Error during parsing: unknown property 'blaatl'" },
    { input: 'grpc . ::1\ngrpc com ::2', error: 'Corefile:3:1 - Error during parsing: this plugin can only be used once per Server Block' },
    { input: `grpc ${'x'.repeat(64)} 127.0.0.1`, error: `Corefile:2:6 - Error during parsing: unable to normalize '${'x'.repeat(64)}'` },
    { input: 'grpc . 127.0.0.1 {\npolicy random2\n}', error: "Corefile:3:8 - Error during parsing: unknown policy 'random2'" },
    { input: 'grpc', error: "Corefile:2:1 - Error during parsing: Wrong argument count or unexpected line ending after 'grpc'" },
    { input: 'grpc .', error: "Corefile:2:6 - Error during parsing: Wrong argument count or unexpected line ending after '.'" },
    { input: 'grpc . 127.0.0.1 {\nexcept\n}', error: "Corefile:3:1 - Error during parsing: Wrong argument count or unexpected line ending after 'except'" },
    { input: 'grpc . 127.0.0.1 {\ntls_servername\n}', error: "Corefile:3:1 - Error during parsing: Wrong argument count or unexpected line ending after 'tls_servername'" },
    { input: 'grpc . 127.0.0.1 {\npolicy\n}', error: "Corefile:3:1 - Error during parsing: Wrong argument count or unexpected line ending after 'policy'" },
    { input: 'grpc . 127.0.0.1 {\ntls a b c d\n}', error: "Corefile:3:11 - Error during parsing: Wrong argument count or unexpected line ending after 'd'" },
    { input: 'grpc . 127.0.0.1 {\ntls /nonexistent/ca.pem\n}', error: 'Corefile:3:5 - Error during parsing: error reading /nonexistent/ca.pem: open /nonexistent/ca.pem: no such file or directory' },
    { input: `grpc . 127.0.0.1 {\ntls ${notPem}\n}`, error: `could not read root certs: no certificate in ${notPem}` },
    { input: 'grpc . 127.0.0.1 {\ntls /nonexistent/cert.pem /nonexistent/key.pem\n}', error: 'Corefile:3:5 - Error during parsing: could not load TLS cert: open /nonexistent/cert.pem: no such file or directory' },
    { input: `grpc . 127.0.0.1 {\ntls ${pki.client.certFile} ${pki.server.keyFile}\n}`, error: 'could not load TLS cert: ' },
    { input: 'grpc . 127.0.0.1 unix://', error: 'Corefile:2:18 - Error during parsing: invalid address: "unix://"' },
    { input: 'grpc . tls://127.0.0.1', error: "Corefile:2:8 - Error during parsing: 'tls' is not supported as a destination protocol in grpc: tls://127.0.0.1" },
    { input: 'grpc . grpc://127.0.0.1:443', error: "'grpc' is not supported as a destination protocol in grpc" },
    { input: 'grpc . 127.0.0.1:99999', error: 'Corefile:2:8 - Error during parsing: invalid port in address: "127.0.0.1:99999"' },
    { input: `grpc . ${empty}`, error: 'Corefile:2:8 - Error during parsing: no nameservers found' },
    { input: `grpc . ${sixteen}`, error: 'Corefile:2:8 - Error during parsing: more than 15 TOs configured: 16' },
  ],
});

test('grpc reads TLS files: CA only, CERT KEY, CERT KEY CA', async () => {
  const parse = async (line: string): Promise<GrpcOptions> => {
    let got: GrpcOptions | undefined;
    const probe = { ...grpc, setup: (c: Parameters<typeof parseGrpc>[0]) => void (got = parseGrpc(c)) };
    await validateCorefile({ path: 'Corefile', contents: `. {\n grpc . 127.0.0.1 {\n  ${line}\n }\n}\n` }, { directives: directivesOf(probe) });
    return got as GrpcOptions;
  };
  const caOnly = await parse(`tls ${pki.ca.certFile}`);
  assert.deepEqual(Object.keys(caOnly.tls ?? {}), ['ca']);
  const pair = await parse(`tls ${pki.client.certFile} ${pki.client.keyFile}`);
  assert.deepEqual(Object.keys(pair.tls ?? {}).sort(), ['cert', 'key']);
  const all = await parse(`tls ${pki.client.certFile} ${pki.client.keyFile} ${pki.ca.certFile}`);
  assert.deepEqual(Object.keys(all.tls ?? {}).sort(), ['ca', 'cert', 'key']);
  assert.equal(all.tls?.ca?.toString(), pki.ca.cert);
});

test('-validate runs grpc setup without loading gRPC', async () => {
  await validateCorefile({ path: 'Corefile', contents: '. {\n grpc . 127.0.0.1:9\n}\n' }, { directives: directivesOf(grpc) });
  // The plugin module imports @grpc/grpc-js only when a server starts.
  const loaded = Object.keys((await import('node:module')).createRequire(import.meta.url).cache);
  assert.equal(loaded.some((path) => path.includes('@grpc')), false);
});
