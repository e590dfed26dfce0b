import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatIp } from '@foghorn/core/wire';
import { directivesOf, parseDirective, setupTable, startServer } from '@foghorn/testkit';
import dns64, { parseDns64 } from '../src/index.js';
import type { Dns64Options } from '../src/index.js';

/** Options as CoreDNS's test reads them: the prefix as text, the two switches. */
const shown = (options: Dns64Options) => ({ prefix: `${formatIp(options.prefix.network)}/${options.prefix.bits}`, translateAll: options.translateAll, allowIpv4: options.allowIpv4 });
const parse = async (body: string) => shown(await parseDirective('dns64', parseDns64, body));
const want = (prefix: string, translateAll = false, allowIpv4 = false) => ({ prefix, translateAll, allowIpv4 });

// CoreDNS v1.14.7's plugin/dns64/setup_test.go TestSetupDns64, the accepted rows.
for (const [body, expected] of [
  ['dns64', want('64:ff9b::/96')],
  ['dns64 64:dead::/96', want('64:dead::/96')],
  ['dns64 {\n    translate_all\n}', want('64:ff9b::/96', true)],
  ['dns64 {\n    prefix 64:ff9b::/96\n}', want('64:ff9b::/96')],
  ['dns64 {\n    prefix 64:ff9b::/32\n}', want('64:ff9b::/32')],
  ['dns64 {\n    prefix 2002:ac12:b083::/96\n}', want('2002:ac12:b083::/96')],
  ['dns64 {\n    prefix 2002:c0a8:a88a::/48\n}', want('2002:c0a8:a88a::/48')],
  ['dns64 {\n    allow_ipv4\n}', want('64:ff9b::/96', false, true)],
  // Go's ParseCIDR masks the address.
  ['dns64 64:ff9b::1:2/96', want('64:ff9b::/96')],
  // CoreDNS's quirk: after a PREFIX argument the block's options are not read; a `prefix`
  // line in it still counts, read as another PREFIX argument.
  ['dns64 64:dead::/96 {\n    translate_all\n    allow_ipv4\n}', want('64:dead::/96')],
  ['dns64 64:dead::/96 {\n    prefix 64:beef::/64\n}', want('64:beef::/64')],
] as const) {
  test(`dns64 reads ${JSON.stringify(body.replace(/\s+/g, ' '))}`, async () => {
    assert.deepEqual(await parse(body), expected);
  });
}

// The refused rows, with the positions Foghorn adds and CoreDNS's texts.
setupTable('dns64', parseDns64, {
  plugin: dns64,
  bad: [
    { input: 'dns64 {\n    prefix 64:ff9b::/52\n}', error: 'Corefile:3:12 - Error during parsing: invalid prefix length "64:ff9b::/52"' },
    { input: 'dns64 {\n    prefix 64:ff9b::/104\n}', error: 'Corefile:3:12 - Error during parsing: invalid prefix length "64:ff9b::/104"' },
    { input: 'dns64 {\n    prefix 8.8.8.8/24\n}', error: 'Corefile:3:12 - Error during parsing: invalid netmask 32 IPv6 address: "8.8.8.0/24"' },
    { input: 'dns64 foobar {\n    prefix 64:ff9b::/96\n}', error: 'Corefile:2:7 - Error during parsing: invalid CIDR address: foobar' },
    { input: 'dns64 foobar', error: 'Corefile:2:7 - Error during parsing: invalid CIDR address: foobar' },
    { input: 'dns64 {\n    foobar\n}', error: "Corefile:3:5 - Error during parsing: unknown property 'foobar'" },
    { input: 'dns64 64:ff9b::/96 64:dead::/96', error: "Corefile:2:20 - Error during parsing: Wrong argument count or unexpected line ending after '64:dead::/96'" },
    { input: 'dns64 {\n    prefix\n}', error: "Corefile:3:5 - Error during parsing: Wrong argument count or unexpected line ending after 'prefix'" },
    { input: 'dns64 {\n    translate_all yes\n}', error: "Corefile:3:19 - Error during parsing: unknown property 'yes'" },
  ],
});

test('a block after a PREFIX argument gets a warning that CoreDNS does not read it', async (t) => {
  const server = await startServer('example.org:0 {\n    dns64 64:dead::/96 {\n        translate_all\n    }\n}\n', { directives: directivesOf(dns64) });
  t.after(() => server.close());
  assert.ok(
    server.lines.includes("[WARNING] plugin/dns64: Corefile:2: the block after 'dns64 64:dead::/96' is not read, as in CoreDNS (only a 'prefix' line in it counts): put the prefix in the block as 'prefix 64:dead::/96'"),
    server.lines.join('\n'),
  );
});
