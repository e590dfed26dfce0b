import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Controller } from '@foghorn/core';
import { validateCorefile } from '@foghorn/core/server';
import { parseDirective, setupTable } from '@foghorn/testkit';
import type { BadCase, GoodCase } from '@foghorn/testkit';
import forward, { parseForward } from '@foghorn/plugin-forward';
import { readResolvConf } from '../src/upstream.js';
import type { ForwardOptions } from '@foghorn/plugin-forward';

/** The options of the block's first `forward` line. */
function first(c: Controller): ForwardOptions {
  const [options] = parseForward(c);
  assert.ok(options);
  return options;
}

/** Every `forward` line of a `.` block. */
const parse = (body: string): Promise<ForwardOptions[]> => parseDirective('forward', parseForward, body, '.');

const dir = mkdtempSync(join(tmpdir(), 'forward-setup-'));
const resolvConf = join(dir, 'resolv.conf');
writeFileSync(resolvConf, '# comment\nsearch example.org\nnameserver 10.0.0.1\nnameserver 2001:db8::1\nnameserver 10.0.0.1\noptions ndots:5\n');
const emptyResolvConf = join(dir, 'empty.conf');
writeFileSync(emptyResolvConf, '# nothing\n');
test.after(() => rmSync(dir, { recursive: true, force: true }));

/** Each case lists only the fields it checks. */
const good: GoodCase<Partial<ForwardOptions>>[] = [
  {
    input: 'forward . 127.0.0.1',
    want: {
      from: '.',
      upstreams: [{ transport: 'dns', host: '127.0.0.1', port: 53, address: '127.0.0.1:53' }],
      expireMs: 10_000,
      maxFails: 2,
      healthCheckIntervalMs: 500,
      healthCheckRecursionDesired: true,
      healthCheckDomain: '.',
      policy: 'random',
      maxConcurrent: 0,
      readTimeoutMs: 2000,
      maxConnectAttempts: 2,
      forceTcp: false,
      preferUdp: false,
      failfastAllUnhealthyUpstreams: false,
    },
  },
  { input: 'forward Example.ORG 127.0.0.1:5353', want: { from: 'example.org.', upstreams: [{ transport: 'dns', host: '127.0.0.1', port: 5353, address: '127.0.0.1:5353' }] } },
  { input: 'forward . dns://10.0.0.1:1053 [::1]:5353 ::1', want: { upstreams: [
    { transport: 'dns', host: '10.0.0.1', port: 1053, address: '10.0.0.1:1053' },
    { transport: 'dns', host: '::1', port: 5353, address: '[::1]:5353' },
    { transport: 'dns', host: '::1', port: 53, address: '[::1]:53' },
  ], maxConnectAttempts: 6 } },
  { input: 'forward . tls://9.9.9.9 tls://1.1.1.1:8853', want: { upstreams: [
    { transport: 'tls', host: '9.9.9.9', port: 853, address: '9.9.9.9:853' },
    { transport: 'tls', host: '1.1.1.1', port: 8853, address: '1.1.1.1:8853' },
  ] } },
  { input: 'forward . tls://9.9.9.9%dns.quad9.net:8853', want: { upstreams: [{ transport: 'tls', host: '9.9.9.9', port: 8853, address: '9.9.9.9:8853', serverName: 'dns.quad9.net' }] } },
  { input: 'forward . https://9.9.9.9', want: { upstreams: [{ transport: 'https', host: '9.9.9.9', port: 443, address: '9.9.9.9:443' }] } },
  // Duplicates are removed, the first kept.
  { input: 'forward . 10.0.0.1 10.0.0.1:53 dns://10.0.0.1', want: { upstreams: [{ transport: 'dns', host: '10.0.0.1', port: 53, address: '10.0.0.1:53' }] } },
  { input: `forward . ${resolvConf}`, want: { upstreams: [
    { transport: 'dns', host: '10.0.0.1', port: 53, address: '10.0.0.1:53' },
    { transport: 'dns', host: '2001:db8::1', port: 53, address: '[2001:db8::1]:53' },
  ] } },
  // An empty resolv.conf is skipped when another TO is usable.
  { input: `forward . ${emptyResolvConf} 10.0.0.2`, want: { upstreams: [{ transport: 'dns', host: '10.0.0.2', port: 53, address: '10.0.0.2:53' }] } },
  { input: 'forward 10.0.0.0/8 127.0.0.1', want: { from: '10.in-addr.arpa.' } },
  { input: 'forward 10.0.0.0/15 127.0.0.1', want: { from: '0.10.in-addr.arpa.' } },
  {
    input: `forward . 127.0.0.1 {
      except Example.org sub.example.net.
      force_tcp
      prefer_udp
      expire 30s
      max_age 1m
      max_idle_conns 4
      read_timeout 300ms
      max_fails 5
      max_connect_attempts 7
      health_check 1.5s no_rec domain Probe.Test
      policy round_robin
      max_concurrent 1000
      next NXDOMAIN servfail
      next_on_nodata
      failover SERVFAIL refused
      failfast_all_unhealthy_upstreams
      doh_method get
      source_address 127.0.0.1
    }`,
    want: {
      except: ['example.org.', 'sub.example.net.'],
      forceTcp: true,
      preferUdp: true,
      expireMs: 30_000,
      maxAgeMs: 60_000,
      maxIdleConns: 4,
      readTimeoutMs: 300,
      maxFails: 5,
      maxConnectAttempts: 7,
      healthCheckIntervalMs: 1500,
      healthCheckRecursionDesired: false,
      healthCheckDomain: 'probe.test.',
      policy: 'round_robin',
      maxConcurrent: 1000,
      next: [3, 2],
      nextOnNodata: true,
      failover: [2, 5],
      failfastAllUnhealthyUpstreams: true,
      dohMethod: 'GET',
      sourceAddress: '127.0.0.1',
    },
  },
  { input: 'forward . 127.0.0.1 {\n policy sequential\n max_fails 0\n health_check 0s\n}', want: { policy: 'sequential', maxFails: 0, healthCheckIntervalMs: 0 } },
  { input: 'forward . tls://127.0.0.1 {\n tls\n tls_servername dns.example\n}', want: { tls: {}, tlsServerName: 'dns.example' } },
];

test('several forward lines in one block are parsed in file order', async () => {
  const all = await parse('forward lab.example.local 10.20.0.1\nforward example.local 10.0.0.1\nforward . 10.0.0.2');
  assert.deepEqual(
    all.map((o) => o.from),
    ['lab.example.local.', 'example.local.', '.'],
  );
});

test('forward . /etc/resolv.conf uses the nameservers of this machine', async () => {
  const servers = readResolvConf('/etc/resolv.conf') ?? [];
  if (servers.length === 0) return;
  const [options] = await parse('forward . /etc/resolv.conf');
  assert.equal(options?.upstreams.length, new Set(servers).size);
});

const sixteen = Array.from({ length: 16 }, (_, i) => `10.0.0.${i + 1}`).join(' ');
const bad: BadCase[] = [
  { input: 'forward', error: "Corefile:2:1 - Error during parsing: Wrong argument count or unexpected line ending after 'forward'" },
  { input: 'forward .', error: "Corefile:2:9 - Error during parsing: Wrong argument count or unexpected line ending after '.'" },
  { input: `forward . ${sixteen}`, error: 'Corefile:2:152 - Error during parsing: more than 15 TOs configured: 16' },
  { input: 'forward . grpc://10.0.0.1', error: "Corefile:2:11 - Error during parsing: 'grpc' is not supported as a destination protocol in forward: grpc://10.0.0.1" },
  { input: 'forward . not-a-host.invalid', error: 'Corefile:2:11 - Error during parsing: not an IP address or file: "not-a-host.invalid"' },
  { input: `forward . ${emptyResolvConf}`, error: 'Corefile:2:11 - Error during parsing: no valid upstream addresses found' },
  { input: 'forward . https://9.9.9.9/other', error: 'Corefile:2:11 - Error during parsing: https upstream must not have a path' },
  { input: 'forward . 127.0.0.1 {\n bogus\n}', error: "Corefile:3:2 - Error during parsing: unknown property 'bogus'" },
  { input: 'forward . 127.0.0.1 {\n except\n}', error: "Corefile:3:2 - Error during parsing: Wrong argument count or unexpected line ending after 'except'" },
  { input: 'forward . 127.0.0.1 {\n force_tcp yes\n}', error: "Corefile:3:12 - Error during parsing: Wrong argument count or unexpected line ending after 'yes'" },
  { input: 'forward . 127.0.0.1 {\n prefer_udp yes\n}', error: "Corefile:3:13 - Error during parsing: Wrong argument count or unexpected line ending after 'yes'" },
  { input: 'forward . 127.0.0.1 {\n failfast_all_unhealthy_upstreams yes\n}', error: "Corefile:3:35 - Error during parsing: Wrong argument count or unexpected line ending after 'yes'" },
  { input: 'forward . 127.0.0.1 {\n expire\n}', error: "Corefile:3:2 - Error during parsing: Wrong argument count or unexpected line ending after 'expire'" },
  { input: 'forward . 127.0.0.1 {\n expire -1s\n}', error: "Corefile:3:9 - Error during parsing: expire can't be negative: -1s" },
  { input: 'forward . 127.0.0.1 {\n expire soon\n}', error: 'Corefile:3:9 - Error during parsing: time: invalid duration "soon"' },
  { input: 'forward . 127.0.0.1 {\n expire 10s\n max_age 5s\n}', error: 'Corefile:4:10 - Error during parsing: max_age must be greater than or equal to expire' },
  { input: 'forward . 127.0.0.1 {\n max_fails -1\n}', error: "Corefile:3:12 - Error during parsing: max_fails can't be negative: -1" },
  { input: 'forward . 127.0.0.1 {\n max_fails two\n}', error: 'Corefile:3:12 - Error during parsing: strconv.Atoi: parsing "two": invalid syntax' },
  { input: 'forward . 127.0.0.1 {\n max_concurrent -5\n}', error: "Corefile:3:17 - Error during parsing: max_concurrent can't be negative: -5" },
  { input: 'forward . 127.0.0.1 {\n max_idle_conns -1\n}', error: "Corefile:3:17 - Error during parsing: max_idle_conns can't be negative: -1" },
  { input: 'forward . 127.0.0.1 {\n read_timeout 0s\n}', error: 'Corefile:3:15 - Error during parsing: read_timeout must be greater than 0' },
  { input: 'forward . 127.0.0.1 {\n health_check\n}', error: "Corefile:3:2 - Error during parsing: Wrong argument count or unexpected line ending after 'health_check'" },
  { input: 'forward . 127.0.0.1 {\n health_check -1s\n}', error: "Corefile:3:15 - Error during parsing: health_check can't be negative" },
  { input: 'forward . 127.0.0.1 {\n health_check 1s loud\n}', error: 'Corefile:3:18 - Error during parsing: health_check: unknown option loud' },
  { input: 'forward . 127.0.0.1 {\n health_check 1s domain\n}', error: "Corefile:3:18 - Error during parsing: Wrong argument count or unexpected line ending after 'domain'" },
  { input: 'forward . 127.0.0.1 {\n policy fastest\n}', error: "Corefile:3:9 - Error during parsing: unknown policy 'fastest'" },
  { input: 'forward . 127.0.0.1 {\n policy\n}', error: "Corefile:3:2 - Error during parsing: Wrong argument count or unexpected line ending after 'policy'" },
  { input: 'forward . 127.0.0.1 {\n next\n}', error: "Corefile:3:2 - Error during parsing: Wrong argument count or unexpected line ending after 'next'" },
  { input: 'forward . 127.0.0.1 {\n next NXDOMAIN NOPE\n}', error: 'Corefile:3:16 - Error during parsing: NOPE is not a valid rcode' },
  { input: 'forward . 127.0.0.1 {\n failover NOERROR\n}', error: 'Corefile:3:11 - Error during parsing: NoError cannot be used in failover' },
  { input: 'forward . 127.0.0.1 {\n doh_method PUT\n}', error: 'Corefile:3:13 - Error during parsing: doh_method must be either POST or GET' },
  { input: 'forward . 127.0.0.1 {\n tls a b c d\n}', error: "Corefile:3:12 - Error during parsing: Wrong argument count or unexpected line ending after 'd'" },
  { input: 'forward . 127.0.0.1 {\n tls /nonexistent/ca.pem\n}', error: 'Corefile:3:6 - Error during parsing: could not load TLS CA' },
  { input: 'forward . 127.0.0.1 {\n tls_servername\n}', error: "Corefile:3:2 - Error during parsing: Wrong argument count or unexpected line ending after 'tls_servername'" },
  { input: 'forward . tls://127.0.0.1%a.example {\n tls_servername b.example\n}', error: 'Corefile:4:1 - Error during parsing: tls_servername conflicts' },
  { input: 'forward . 127.0.0.1 {\n source_address nowhere\n}', error: "Corefile:3:17 - Error during parsing: source_address: invalid IP address 'nowhere'" },
];

setupTable('forward', first, { good, bad, key: '.', partial: true, plugin: forward });

test('validating a Corefile with forward opens no sockets and starts no timers', async () => {
  const before = process.getActiveResourcesInfo().length;
  await validateCorefile(
    { path: 'Corefile', contents: '. {\n forward . 127.0.0.1:1 tls://127.0.0.1 https://127.0.0.1 {\n health_check 10ms\n }\n}\n' },
    { directives: [{ name: 'forward', load: () => forward }] },
  );
  assert.equal(process.getActiveResourcesInfo().length, before);
});
