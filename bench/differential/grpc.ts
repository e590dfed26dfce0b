/**
 * grpc: Foghorn's and CoreDNS's grpc plugins in front of the same real gRPC server, a third
 * CoreDNS serving a zone on a `grpc://` server block (CoreDNS's DnsService). Answers, NXDOMAIN,
 * NODATA, truncation to the client's size, EDNS, `except`, `fallthrough`, and an upstream that
 * is not there.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { freeTcpPort, makeTestPki } from '@foghorn/testkit';
import type { CaseContext, DifferentialCase, DifferentialQuery, Outside } from './case.js';

const zone = `$ORIGIN example.org.
@       3600 IN SOA ns.example.org. hostmaster.example.org. 1 7200 3600 1209600 3600
@       3600 IN NS  ns.example.org.
ns      3600 IN A   192.0.2.53
a       3600 IN A   192.0.2.1
a       3600 IN AAAA 2001:db8::1
mail    3600 IN MX  10 a.example.org.
txt     3600 IN TXT "hello" "world"
${Array.from({ length: 40 }, (_, i) => `big 3600 IN TXT "${'x'.repeat(40)}${i}"`).join('\n')}
`;

/**
 * Starts CoreDNS serving example.org over gRPC on a free port, with TLS when `tls` (a test CA's
 * server certificate for localhost and 127.0.0.1; `{ca}` in the Corefile is the CA), and waits
 * until it accepts connections.
 */
async function grpcUpstream(context: CaseContext, tls = false): Promise<Outside> {
  const port = await freeTcpPort();
  writeFileSync(join(context.dir, 'db.example.org'), zone);
  const pki = tls ? makeTestPki() : undefined;
  const corefile = join(context.dir, 'Corefile.upstream');
  const tlsLine = pki ? `  tls ${pki.server.certFile} ${pki.server.keyFile}\n` : '';
  writeFileSync(corefile, `grpc://example.org:${port} {\n  bind 127.0.0.1\n${tlsLine}  file ${join(context.dir, 'db.example.org')}\n}\n`);
  let output = '';
  const child: ChildProcess = spawn(context.coredns, ['-quiet', '-conf', corefile], { cwd: context.dir, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`gRPC upstream exited with ${child.exitCode}:\n${output}`);
    const up = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve(true)).on('error', () => resolve(false));
      socket.unref();
      setTimeout(() => socket.destroy(), 500);
    });
    if (up) break;
    if (Date.now() > deadline) throw new Error(`gRPC upstream did not listen on ${port}:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    vars: { upstream: `127.0.0.1:${port}`, ca: pki?.ca.certFile ?? '' },
    close: async () => {
      await new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      });
      pki?.remove();
    },
  };
}

const queries: DifferentialQuery[] = [
  { name: 'a.example.org.', type: 'A' },
  { name: 'a.example.org.', type: 'A', transport: 'tcp' },
  { name: 'A.Example.ORG.', type: 'AAAA' },
  { name: 'a.example.org.', type: 'TXT' },
  { name: 'mail.example.org.', type: 'MX' },
  { name: 'txt.example.org.', type: 'TXT', do: true },
  { name: 'nope.example.org.', type: 'A' },
  { name: 'example.org.', type: 'SOA', udpSize: 1232 },
  { name: 'example.org.', type: 'NS' },
  { name: 'big.example.org.', type: 'TXT' },
  { name: 'big.example.org.', type: 'TXT', udpSize: 4096 },
  { name: 'big.example.org.', type: 'TXT', transport: 'tcp' },
  { name: 'example.net.', type: 'A' },
];

const cases: DifferentialCase[] = [
  {
    plugin: 'grpc',
    name: 'grpc to a CoreDNS gRPC server',
    corefile: '.:{port} {\n  bind 127.0.0.1\n  grpc . {upstream} {\n    except skip.example.org\n  }\n  template IN A skip.example.org {\n    answer "{{ .Name }} 60 IN A 198.51.100.1"\n  }\n}\n',
    queries: [...queries, { name: 'x.skip.example.org.', type: 'A' }],
    setup: grpcUpstream,
  },
  {
    plugin: 'grpc',
    name: 'grpc fallthrough on NXDOMAIN',
    corefile: '.:{port} {\n  bind 127.0.0.1\n  grpc example.org {upstream} {\n    fallthrough\n    policy sequential\n  }\n  template IN A example.org {\n    answer "{{ .Name }} 60 IN A 198.51.100.2"\n  }\n}\n',
    queries: [
      { name: 'a.example.org.', type: 'A' },
      { name: 'nope.example.org.', type: 'A' },
      { name: 'nope.example.org.', type: 'AAAA' },
    ],
    setup: grpcUpstream,
  },
  {
    plugin: 'grpc',
    name: 'grpc over TLS to a CoreDNS gRPC server',
    corefile: '.:{port} {\n  bind 127.0.0.1\n  grpc . {upstream} {\n    tls {ca}\n    tls_servername localhost\n  }\n}\n',
    queries: queries.slice(0, 8),
    setup: (context) => grpcUpstream(context, true),
  },
  {
    plugin: 'grpc',
    name: 'grpc over TLS, the CA not trusted',
    // `tls` alone: the system's CAs, which never signed the test CA's certificate.
    corefile: '.:{port} {\n  bind 127.0.0.1\n  grpc . {upstream} {\n    tls\n  }\n}\n',
    queries: [{ name: 'a.example.org.', type: 'A' }],
    setup: (context) => grpcUpstream(context, true),
  },
  {
    plugin: 'grpc',
    name: 'grpc with its upstream down',
    // Port 9 (discard) on loopback: nothing listens, the connection is refused.
    corefile: '.:{port} {\n  bind 127.0.0.1\n  grpc . 127.0.0.1:9\n}\n',
    queries: [
      { name: 'a.example.org.', type: 'A' },
      { name: 'a.example.org.', type: 'A', transport: 'tcp' },
    ],
  },
];
export default cases;
