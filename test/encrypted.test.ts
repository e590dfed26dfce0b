/**
 * One chain over UDP, TCP, DNS over TLS and DNS over HTTPS, with the standard directive list:
 * log's {proto} and the metrics' proto label say tcp for DoT and DoH as CoreDNS's do, the server
 * label carries the scheme, and the CLI prints the scheme in its zone lines.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogPlugin } from '@foghorn/plugin-log';
import { standardDirectives } from 'foghorn';
import { decodeReply, dohRequest, freeTcpPort, httpGet, makeQuery, makeTestPki, query, startServer, tcpExchange } from '@foghorn/testkit';
import { RunningCli } from './cli-helpers.js';

test('UDP, TCP, DoT and DoH reach the same chain; log and metrics say tcp for DoT and DoH', async (t) => {
  const pki = makeTestPki();
  t.after(() => pki.remove());
  const metricsPort = await freeTcpPort();
  const logged: string[] = [];
  const log = createLogPlugin({ sink: (line) => logged.push(line) });
  const directives = standardDirectives().map((entry) => (entry.name === 'log' ? { ...entry, load: () => log } : entry));
  const server = await startServer(
    `.:0 tls://.:0 https://.:0 {
  bind 127.0.0.1
  tls ${pki.server.certFile} ${pki.server.keyFile}
  prometheus 127.0.0.1:${metricsPort}
  log . "{proto} {name} {rcode}"
  whoami
}
`,
    { directives },
  );
  t.after(() => server.close());
  const port = (transport: string): number => server.server.addresses.find((l) => l.transport === transport)!.port;
  const trust = { ca: pki.ca.cert, servername: 'localhost' };

  assert.equal((await query({ port: port('dns') }, 'udp.example.org', 'A')).additionals!.length, 2);
  assert.equal((await query({ port: port('dns') }, 'tcp.example.org', 'A', { transport: 'tcp' })).additionals!.length, 2);
  const [dot] = await tcpExchange({ port: port('tls'), tls: trust }, makeQuery('dot.example.org', 'A'));
  assert.equal(decodeReply(dot!).additionals![0]!.name, 'dot.example.org');
  const doh = await dohRequest({ port: port('https'), ca: pki.ca.cert, path: `/dns-query?dns=${makeQuery('doh.example.org', 'A').toString('base64url')}` });
  assert.equal(decodeReply(doh.body).additionals![0]!.name, 'doh.example.org');

  for (const [proto, name] of [['udp', 'udp'], ['tcp', 'tcp'], ['tcp', 'dot'], ['tcp', 'doh']]) {
    assert.ok(logged.some((line) => line.endsWith(`${proto} ${name}.example.org. NOERROR`)), `${name}: ${logged.join('\n')}`);
  }

  const metrics = (await httpGet(metricsPort, '/metrics')).text;
  const requests = (server: string, proto: string): number => {
    const line = metrics.split('\n').find((l) => l.startsWith('coredns_dns_requests_total{') && l.includes(`server="${server}"`) && l.includes(`proto="${proto}"`));
    return line ? Number(line.split(' ').pop()) : 0;
  };
  // The label names the configured address, as CoreDNS's does (port 0 here).
  assert.equal(requests('dns://127.0.0.1:0', 'udp'), 1);
  assert.equal(requests('dns://127.0.0.1:0', 'tcp'), 1);
  assert.equal(requests('tls://127.0.0.1:0', 'tcp'), 1);
  assert.equal(requests('https://127.0.0.1:0', 'tcp'), 1);
  assert.match(metrics, /^coredns_dns_https_responses_total\{server="https:\/\/127\.0\.0\.1:0",status="200"\} 1$/m);
});

test('the CLI prints tls:// and https:// zone lines and serves them', async (t) => {
  const pki = makeTestPki();
  t.after(() => pki.remove());
  const corefile = join(pki.dir, 'Corefile');
  writeFileSync(corefile, `tls://example.org:0 https://example.org:0 {\n    bind 127.0.0.1\n    tls ${pki.server.certFile} ${pki.server.keyFile}\n    whoami\n}\n`);
  const cli = new RunningCli(['-conf', corefile]);
  t.after(() => cli.kill('SIGKILL'));
  const [, tlsPort] = await cli.waitFor(/^tls:\/\/example\.org\.:(\d+) on 127\.0\.0\.1$/m);
  await cli.waitFor(/^https:\/\/example\.org\.:\d+ on 127\.0\.0\.1$/m);
  const [reply] = await tcpExchange({ port: Number(tlsPort), tls: { ca: pki.ca.cert, servername: 'localhost' } }, makeQuery('example.org', 'A'));
  assert.equal(decodeReply(reply!).additionals![0]!.name, 'example.org');
});
