/**
 * CoreDNS plugin/hosts/hosts_test.go, hostsfile_test.go and wildcard_test.go over real sockets:
 * a hosts file on disk, a server with the real plugin, queries over UDP and TCP.
 */
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import type { RecordType } from 'dns-packet';
import { eventually, query, rcodeOf, tempFile } from '@foghorn/testkit';
import type { Reply } from '@foghorn/testkit';
import { passedOn, reverseName, serveHosts } from './helpers.js';

const hostsExample = `
127.0.0.1 localhost localhost.domain
::1 localhost localhost.domain
10.0.0.1 example.org
::FFFF:10.0.0.2 example.com
10.0.0.3 fallthrough-example.org
1.2.3.4 aa.example.com
5.6.7.8 *.apps.example.com
reload 5s
timeout 3600
`;

/** The reply as `rcode AA? [records]`. */
function show(reply: Reply): string {
  const records = (reply.answers ?? []).map((r) => `${r.name} ${(r as { ttl?: number }).ttl} ${r.type} ${String((r as { data?: unknown }).data)}`);
  return `${rcodeOf(reply)}${reply.flag_aa ? ' aa' : ''} [${records.join(', ')}]${reply.authorities?.length ? ' +authority' : ''}`;
}

// TestLookupA. CoreDNS's `apps.example.com.` case never checks its reply (hosts returns SERVFAIL
// without writing, and the test only compares written replies): a wildcard covers one label
// below `apps.example.com`, never the name itself.
const lookupA: [string, RecordType, string][] = [
  ['example.org', 'A', 'NOERROR aa [example.org 3600 A 10.0.0.1]'],
  ['example.com', 'A', 'NOERROR aa [example.com 3600 A 10.0.0.2]'],
  ['localhost', 'AAAA', 'NOERROR aa [localhost 3600 AAAA ::1]'],
  ['1.0.0.10.in-addr.arpa', 'PTR', 'NOERROR aa [1.0.0.10.in-addr.arpa 3600 PTR example.org]'],
  ['2.0.0.10.in-addr.arpa', 'PTR', 'NOERROR aa [2.0.0.10.in-addr.arpa 3600 PTR example.com]'],
  ['1.0.0.127.in-addr.arpa', 'PTR', 'NOERROR aa [1.0.0.127.in-addr.arpa 3600 PTR localhost, 1.0.0.127.in-addr.arpa 3600 PTR localhost.domain]'],
  ['1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.ip6.arpa', 'PTR', 'NOERROR aa [1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.ip6.arpa 3600 PTR localhost, 1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.ip6.arpa 3600 PTR localhost.domain]'],
  // NODATA: the name has the other family, or only addresses: NOERROR, AA, empty, no SOA.
  ['example.org', 'AAAA', 'NOERROR aa []'],
  ['example.org', 'MX', 'NOERROR aa []'],
  ['fallthrough-example.org', 'AAAA', 'NOERROR aa []'],
  ['x.apps.example.com', 'A', 'NOERROR aa [x.apps.example.com 3600 A 5.6.7.8]'],
  ['aa.example.com', 'A', 'NOERROR aa [aa.example.com 3600 A 1.2.3.4]'],
  // Unknown names: no SOA to say NXDOMAIN with, so SERVFAIL.
  ['apps.example.com', 'A', 'SERVFAIL []'],
  ['missing.example.org', 'A', 'SERVFAIL []'],
  ['missing.example.org', 'TXT', 'SERVFAIL []'],
  // The owner is the lower-cased query name.
  ['Example.ORG', 'A', 'NOERROR aa [example.org 3600 A 10.0.0.1]'],
];

test('hosts answers A, AAAA and PTR from the file, NODATA for known names, SERVFAIL for unknown ones (TestLookupA)', async (t) => {
  const file = tempFile(t, hostsExample, 'hosts');
  const server = await serveHosts(t, `hosts ${file}`);
  for (const [name, type, want] of lookupA) {
    for (const transport of ['udp', 'tcp'] as const) {
      assert.equal(show(await query({ port: server.port() }, name, type, { transport })), want, `${name} ${type} over ${transport}`);
    }
  }
});

test('fallthrough passes unknown names on, never known ones; PTRs without names always go on', async (t) => {
  const file = tempFile(t, hostsExample, 'hosts');
  const server = await serveHosts(t, `hosts ${file} {\n  fallthrough\n }`);
  const target = { port: server.port() };
  assert.ok(passedOn(await query(target, 'missing.example.org', 'A')));
  assert.equal(show(await query(target, 'fallthrough-example.org', 'AAAA')), 'NOERROR aa []');
  assert.equal(show(await query(target, 'example.org', 'TXT')), 'NOERROR aa []');
  const plain = await serveHosts(t, `hosts ${file}`);
  assert.ok(passedOn(await query({ port: plain.port() }, '9.9.9.10.in-addr.arpa', 'PTR')), 'PTR without names is passed on without fallthrough');
  assert.ok(passedOn(await query({ port: plain.port() }, '0.10.in-addr.arpa', 'PTR')), 'a partial reverse name is not an address');
});

// TestFallthroughUnsupportedType: TXT for a name with an address.
const unsupported: [string, string, string, boolean][] = [
  ['existing name returns NODATA by default', 'example.org', 'fallthrough', false],
  ['existing name falls through with opt-in', 'example.org', 'fallthrough\n  fallthrough_unsupported', true],
  ['opt-in respects fallthrough zones', 'example.org', 'fallthrough example.net\n  fallthrough_unsupported', false],
  ['missing name still falls through', 'missing.example.org', 'fallthrough', true],
];

for (const [title, name, options, passes] of unsupported) {
  test(`fallthrough_unsupported: ${title}`, async (t) => {
    const server = await serveHosts(t, `hosts ${tempFile(t, hostsExample, 'hosts')} {\n  ${options}\n }`);
    const reply = await query({ port: server.port() }, name, 'TXT');
    if (passes) assert.ok(passedOn(reply), show(reply));
    else assert.equal(show(reply), 'NOERROR aa []');
  });
}

const goHosts = `255.255.255.255	broadcasthost
	127.0.0.2	odin
	127.0.0.3	odin  # inline comment
	::2             odin
	127.1.1.1	thor
	# aliases
	127.1.1.2	ullr ullrhost
	fe80::1%lo0	localhost
	# Bogus entries that must be ignored.
	123.123.123	loki
	321.321.321.321`;
const ipv4hosts = `# internet address and host name
	127.0.0.1	localhost	# inline comment separated by tab
	127.0.0.2	localhost       # inline comment separated by space
	# internet address, host name and aliases
	127.0.0.3	localhost	localhost.localdomain`;
const ipv6hosts = `# internet address and host name
	::1						localhost	# inline comment separated by tab
	fe80:0000:0000:0000:0000:0000:0000:0001		localhost       # inline comment separated by space
	# internet address with zone identifier and host name
	fe80:0000:0000:0000:0000:0000:0000:0002%lo0	localhost
	# internet address, host name and aliases
	fe80::3%lo0					localhost	localhost.localdomain`;
const casehosts = `127.0.0.1	PreserveMe	PreserveMe.local
		::1		PreserveMe	PreserveMe.local`;
const wildcards = `
127.0.0.53 *.example.org
127.0.1.52 *.intern.example.org
127.0.0.54 foo.example.org
192.168.33.10 *.example.com
192.168.33.11 a.example.com
192.168.33.12 b.example.com
`;

// TestLookupStaticHost and TestLookupWildcardHost: [name, IPv4 addresses, IPv6 addresses].
const staticHosts: [string, [string, string[], string[]][]][] = [
  [
    goHosts,
    [
      ['odin', ['127.0.0.2', '127.0.0.3'], ['::2']],
      ['thor', ['127.1.1.1'], []],
      ['ullr', ['127.1.1.2'], []],
      ['ullrhost', ['127.1.1.2'], []],
      ['localhost', [], ['fe80::1']],
      ['loki', [], []],
    ],
  ],
  ['127.0.0.2  odin', [['odin', ['127.0.0.2'], []]]],
  [
    ipv4hosts,
    [
      ['localhost', ['127.0.0.1', '127.0.0.2', '127.0.0.3'], []],
      ['localhost.localdomain', ['127.0.0.3'], []],
    ],
  ],
  [
    ipv6hosts,
    [
      ['localhost', [], ['::1', 'fe80::1', 'fe80::2', 'fe80::3']],
      ['localhost.localdomain', [], ['fe80::3']],
    ],
  ],
  [
    casehosts,
    [
      ['PreserveMe', ['127.0.0.1'], ['::1']],
      ['PreserveMe.local', ['127.0.0.1'], ['::1']],
    ],
  ],
  [
    wildcards,
    [
      ['foo.example.org', ['127.0.0.54'], []],
      ['bar.example.org', ['127.0.0.53'], []],
      ['bar.intern.example.org', ['127.0.1.52'], []],
      ['a.example.com', ['192.168.33.11'], []],
      ['b.example.com', ['192.168.33.12'], []],
      ['c.example.com', ['192.168.33.10'], []],
      ['example.com', [], []],
      ['deep.foo.example.org', [], []],
    ],
  ],
];

const addresses = (reply: Reply, type: string): string[] => (reply.answers ?? []).filter((r) => r.type === type).map((r) => String((r as { data: unknown }).data));

test('names resolve to every address of their family, in file order, in any case (TestLookupStaticHost, TestLookupWildcardHost)', async (t) => {
  for (const [text, entries] of staticHosts) {
    const server = await serveHosts(t, `hosts ${tempFile(t, text, 'hosts')} {\n  fallthrough\n }`);
    for (const [name, v4, v6] of entries) {
      for (const asked of [name, `${name}.`, name.toLowerCase(), name.toUpperCase()]) {
        assert.deepEqual(addresses(await query({ port: server.port() }, asked, 'A'), 'A'), v4, `${asked} A`);
        assert.deepEqual(addresses(await query({ port: server.port() }, asked, 'AAAA'), 'AAAA'), v6, `${asked} AAAA`);
      }
    }
  }
});

// TestLookupStaticAddr: the PTR names of an address, lower-cased, in file order; wildcards get none.
const staticAddrs: [string, [string, string[]][]][] = [
  [
    goHosts,
    [
      ['255.255.255.255', ['broadcasthost']],
      ['127.0.0.2', ['odin']],
      ['127.0.0.3', ['odin']],
      ['::2', ['odin']],
      ['127.1.1.1', ['thor']],
      ['127.1.1.2', ['ullr', 'ullrhost']],
      ['fe80::1', ['localhost']],
    ],
  ],
  [
    ipv4hosts,
    [
      ['127.0.0.1', ['localhost']],
      ['127.0.0.2', ['localhost']],
      ['127.0.0.3', ['localhost', 'localhost.localdomain']],
    ],
  ],
  [
    ipv6hosts,
    [
      ['::1', ['localhost']],
      ['fe80::1', ['localhost']],
      ['fe80::2', ['localhost']],
      ['fe80::3', ['localhost', 'localhost.localdomain']],
    ],
  ],
  [
    casehosts,
    [
      ['127.0.0.1', ['preserveme', 'preserveme.local']],
      ['::1', ['preserveme', 'preserveme.local']],
    ],
  ],
  [wildcards, [['127.0.0.54', ['foo.example.org']], ['127.0.0.53', []]]],
];

test('PTRs are generated for every name of an address (TestLookupStaticAddr)', async (t) => {
  for (const [text, entries] of staticAddrs) {
    const server = await serveHosts(t, `hosts ${tempFile(t, text, 'hosts')}`);
    for (const [address, names] of entries) {
      const reply = await query({ port: server.port() }, reverseName(address), 'PTR');
      if (names.length === 0) assert.ok(passedOn(reply), `${address}: ${show(reply)}`);
      else assert.deepEqual(addresses(reply, 'PTR'), names, address);
    }
  }
});

test('inline entries are served with the file: file addresses first, then inline ones', async (t) => {
  const file = tempFile(t, '10.0.0.1 example.org\n', 'hosts');
  const server = await serveHosts(t, `hosts ${file} {\n  10.0.0.2 example.org www.example.org\n  ttl 60\n  fallthrough\n }`);
  const target = { port: server.port() };
  assert.equal(show(await query(target, 'example.org', 'A')), 'NOERROR aa [example.org 60 A 10.0.0.1, example.org 60 A 10.0.0.2]');
  assert.equal(show(await query(target, 'www.example.org', 'A')), 'NOERROR aa [www.example.org 60 A 10.0.0.2]');
  assert.equal(show(await query(target, '2.0.0.10.in-addr.arpa', 'PTR')), 'NOERROR aa [2.0.0.10.in-addr.arpa 60 PTR example.org, 2.0.0.10.in-addr.arpa 60 PTR www.example.org]');
});

test('zones limit the names kept; PTRs are answered outside them; no_reverse drops PTR data', async (t) => {
  const file = tempFile(t, '10.0.0.1 a.example.org\n10.0.0.2 b.example.net\n', 'hosts');
  const server = await serveHosts(t, `hosts ${file} example.org`);
  const target = { port: server.port() };
  assert.equal(show(await query(target, 'a.example.org', 'A')), 'NOERROR aa [a.example.org 3600 A 10.0.0.1]');
  // Outside the plugin's zones: passed on without looking.
  assert.ok(passedOn(await query(target, 'b.example.net', 'A')));
  assert.equal(show(await query(target, '1.0.0.10.in-addr.arpa', 'PTR')), 'NOERROR aa [1.0.0.10.in-addr.arpa 3600 PTR a.example.org]');
  assert.ok(passedOn(await query(target, '2.0.0.10.in-addr.arpa', 'PTR')), 'names outside the zones are dropped, with their PTRs');
  const noReverse = await serveHosts(t, `hosts ${file} {\n  no_reverse\n }`);
  assert.ok(passedOn(await query({ port: noReverse.port() }, '1.0.0.10.in-addr.arpa', 'PTR')));
  assert.equal(show(await query({ port: noReverse.port() }, 'a.example.org', 'A')), 'NOERROR aa [a.example.org 3600 A 10.0.0.1]');
});

test('the block zones are the default zones', async (t) => {
  const file = tempFile(t, '10.0.0.1 a.example.org\n10.0.0.2 b.example.net\n', 'hosts');
  const server = await serveHosts(t, `hosts ${file}`, 'example.net 10.0.0.0/24');
  const target = { port: server.port() };
  assert.equal(show(await query(target, 'b.example.net', 'A')), 'NOERROR aa [b.example.net 3600 A 10.0.0.2]');
  assert.equal(show(await query(target, '2.0.0.10.in-addr.arpa', 'PTR')), 'NOERROR aa [2.0.0.10.in-addr.arpa 3600 PTR b.example.net]');
  assert.ok(passedOn(await query(target, '1.0.0.10.in-addr.arpa', 'PTR')), 'a.example.org is outside the block zones');
});

test('hosts with no FILE serves /etc/hosts', async (t) => {
  const server = await serveHosts(t, 'hosts {\n  fallthrough\n }');
  const reply = await query({ port: server.port() }, 'localhost', 'A');
  assert.ok(addresses(reply, 'A').includes('127.0.0.1'), show(reply));
});

test('the file is re-read when its mtime or size change; a vanished file keeps its data', async (t) => {
  const file = tempFile(t, '10.0.0.1 example.org\n', 'hosts');
  const server = await serveHosts(t, `hosts ${file} {\n  reload 20ms\n  10.9.9.9 inline.example.org\n  fallthrough\n }`);
  const target = { port: server.port() };
  const a = async (name: string): Promise<string[]> => addresses(await query(target, name, 'A'), 'A');
  assert.deepEqual(await a('example.org'), ['10.0.0.1']);
  writeFileSync(file, '10.0.0.2 example.org\n10.0.0.3 new.example.org\n');
  await eventually(async () => (await a('new.example.org')).length > 0, 10_000);
  assert.deepEqual(await a('example.org'), ['10.0.0.2']);
  rmSync(file);
  // Two reload periods at least pass while the file is gone.
  await new Promise((resolve) => setTimeout(resolve, 60));
  assert.deepEqual(await a('example.org'), ['10.0.0.2']);
  assert.deepEqual(await a('inline.example.org'), ['10.9.9.9']);
  writeFileSync(file, '10.0.0.4 example.org\n');
  await eventually(async () => (await a('example.org'))[0] === '10.0.0.4', 10_000);
});

test('coredns_hosts_entries counts file and inline entries, per file', async (t) => {
  const file = tempFile(t, '10.0.0.1 a.example.org b.example.org\n::1 a.example.org\n', 'hosts');
  const server = await serveHosts(t, `hosts ${file} {\n  10.0.0.2 c.example.org\n }`);
  const metrics = await server.server.registry.getSingleMetricAsString('coredns_hosts_entries');
  // File: 2 names × 1 address + 1 AAAA, and 3 PTR names; inline: 1 address + 1 PTR name.
  assert.match(metrics, new RegExp(`^coredns_hosts_entries\\{hostsfile="${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"\\} 8$`, 'm'));
  const stamp = await server.server.registry.getSingleMetricAsString('coredns_hosts_reload_timestamp_seconds');
  assert.match(stamp, /^coredns_hosts_reload_timestamp_seconds \d+(\.\d+)?$/m);
});
