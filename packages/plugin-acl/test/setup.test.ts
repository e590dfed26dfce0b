import { test } from 'node:test';
import assert from 'node:assert/strict';
import { definePlugin, validateCorefile } from '@foghorn/core';
import acl, { parseAcl } from '@foghorn/plugin-acl';
import type { AclOptions } from '@foghorn/plugin-acl';

/** A policy written the way a reader would: type numbers or '*', network texts or '*'. */
interface PolicySummary {
  action: string;
  types: number[] | '*';
  nets: string[] | '*';
}
interface RuleSummary {
  zones: string[];
  policies: PolicySummary[];
}

function summarize(options: AclOptions): RuleSummary[] {
  return options.rules.map((rule) => ({
    zones: [...rule.zones],
    policies: rule.policies.map((p) => ({
      action: p.action,
      types: p.qtypes === null ? '*' : [...p.qtypes],
      nets: p.networks === null ? '*' : p.networks.map((n) => n.text),
    })),
  }));
}

/** Runs parseAcl on the `acl` lines of a one-block Corefile through the real parser. */
async function parse(body: string, key = 'example.org'): Promise<RuleSummary[] | undefined> {
  let options: AclOptions | undefined;
  const probe = definePlugin({
    name: 'acl',
    setup(c) {
      options = parseAcl(c);
    },
  });
  await validateCorefile({ path: 'Corefile', contents: `${key} {\n${body}\n}\n` }, { directives: [{ name: 'acl', load: () => probe }] });
  return options === undefined ? undefined : summarize(options);
}

const all = { types: '*', nets: '*' } as const;
const zone = ['example.org.'];

const good: { input: string; key?: string; want: RuleSummary[] }[] = [
  { input: 'acl', want: [{ zones: zone, policies: [] }] },
  { input: 'acl {\n}', want: [{ zones: zone, policies: [] }] },
  { input: 'acl {\n block\n}', want: [{ zones: zone, policies: [{ action: 'block', ...all }] }] },
  {
    input: 'acl {\n allow net 192.168.0.0/24 192.168.1.0/24\n block\n}',
    want: [{ zones: zone, policies: [{ action: 'allow', types: '*', nets: ['192.168.0.0/24', '192.168.1.0/24'] }, { action: 'block', ...all }] }],
  },
  {
    input: 'acl {\n block type A net 192.168.0.0/16\n filter type AAAA MX\n drop net 192.0.2.1 2001:db8::1 2001:db8::/32\n}',
    want: [
      {
        zones: zone,
        policies: [
          { action: 'block', types: [1], nets: ['192.168.0.0/16'] },
          { action: 'filter', types: [28, 15], nets: '*' },
          // A plain address becomes a single-host network, as CoreDNS's normalize does.
          { action: 'drop', types: '*', nets: ['192.0.2.1/32', '2001:db8::1/128', '2001:db8::/32'] },
        ],
      },
    ],
  },
  // The order of sections is free; sections may repeat and add up.
  {
    input: 'acl {\n block net 10.0.0.0/8 type A type TXT net 10.1.0.0/16\n}',
    want: [{ zones: zone, policies: [{ action: 'block', types: [1, 16], nets: ['10.0.0.0/8', '10.1.0.0/16'] }] }],
  },
  // `*` matches everything and ends its section; what follows in the section is not read.
  { input: 'acl {\n block type * net *\n}', want: [{ zones: zone, policies: [{ action: 'block', ...all }] }] },
  { input: 'acl {\n block type A * NOPE\n}', want: [{ zones: zone, policies: [{ action: 'block', ...all }] }] },
  { input: 'acl {\n block net 10.0.0.0/8 * junk\n}', want: [{ zones: zone, policies: [{ action: 'block', ...all }] }] },
  // miekg/dns's TypeNone (`None`) is the same number CoreDNS stores for `*`.
  { input: 'acl {\n block type None\n}', want: [{ zones: zone, policies: [{ action: 'block', ...all }] }] },
  // Actions and section keywords ignore case, as CoreDNS lower-cases them.
  {
    input: 'acl {\n BLOCK TYPE HTTPS NET ::/0\n}',
    want: [{ zones: zone, policies: [{ action: 'block', types: [65], nets: ['::/0'] }] }],
  },
  // Zones on the line replace the block's; they are normalised, CIDRs become reverse zones.
  {
    input: 'acl A.Example.org b.example.org. {\n block\n}',
    want: [{ zones: ['a.example.org.', 'b.example.org.'], policies: [{ action: 'block', ...all }] }],
  },
  {
    input: 'acl 10.0.0.0/8 {\n drop\n}',
    key: '.',
    want: [{ zones: ['10.in-addr.arpa.'], policies: [{ action: 'drop', ...all }] }],
  },
  { input: 'acl {\n allow\n}', key: 'example.org example.net:1053', want: [{ zones: ['example.org.', 'example.net.'], policies: [{ action: 'allow', ...all }] }] },
  // Several `acl` directives are several rules of one handler, in file order.
  {
    input: 'acl {\n allow type A AAAA net 10.0.0.0/8 2001:db8::/32\n block type * net *\n}\nacl sub.example.org {\n drop net 192.0.2.1\n}',
    want: [
      { zones: zone, policies: [{ action: 'allow', types: [1, 28], nets: ['10.0.0.0/8', '2001:db8::/32'] }, { action: 'block', ...all }] },
      { zones: ['sub.example.org.'], policies: [{ action: 'drop', types: '*', nets: ['192.0.2.1/32'] }] },
    ],
  },
];

for (const { input, key, want } of good) {
  test(`acl setup accepts ${JSON.stringify(input)}${key ? ` in block ${key}` : ''}`, async () => {
    assert.deepEqual(await parse(input, key), want);
  });
}

const bad: { input: string; error: string; at: string }[] = [
  { input: 'acl {\n permit net 10.0.0.0/8\n}', error: `unexpected token "permit"; expect 'allow', 'block', 'filter' or 'drop'`, at: 'Corefile:3:2' },
  { input: 'acl {\n block net 10.0.0.0/33\n}', error: 'illegal CIDR notation "10.0.0.0/33"', at: 'Corefile:3:12' },
  { input: 'acl {\n block net 10.0.0.256\n}', error: 'illegal CIDR notation "10.0.0.256/32"', at: 'Corefile:3:12' },
  { input: 'acl {\n block net 10.0.0.0/8 fe80::1%eth0\n}', error: 'illegal CIDR notation "fe80::1%eth0/128"', at: 'Corefile:3:23' },
  { input: 'acl {\n block net 2001:db8::/129\n}', error: 'illegal CIDR notation "2001:db8::/129"', at: 'Corefile:3:12' },
  { input: 'acl {\n block net 010.0.0.0/8\n}', error: 'illegal CIDR notation "010.0.0.0/8"', at: 'Corefile:3:12' },
  { input: 'acl {\n block net example.org\n}', error: 'illegal CIDR notation "example.org/32"', at: 'Corefile:3:12' },
  { input: 'acl {\n block type A BOGUS\n}', error: `unexpected token "BOGUS"; expect legal QTYPE`, at: 'Corefile:3:15' },
  // QTYPE names are case-sensitive, as miekg/dns's StringToType.
  { input: 'acl {\n filter type a\n}', error: `unexpected token "a"; expect legal QTYPE`, at: 'Corefile:3:14' },
  { input: 'acl {\n block 10.0.0.0/8\n}', error: `unexpected token "10.0.0.0/8"; expect 'type | net'`, at: 'Corefile:3:8' },
  { input: 'acl {\n block type\n}', error: 'no token specified in "type" section', at: 'Corefile:3:8' },
  { input: 'acl {\n block type A NET\n}', error: 'no token specified in "net" section', at: 'Corefile:3:15' },
];

for (const { input, error, at } of bad) {
  test(`acl setup refuses ${JSON.stringify(input)} at ${at}`, async () => {
    await assert.rejects(parse(input), (e: Error) => {
      assert.ok(e.message.includes(error), e.message);
      assert.ok(e.message.includes(`${at} `), e.message);
      assert.ok(e.message.startsWith('plugin/acl: '), e.message);
      return true;
    });
  });
}

test('the acl plugin sets up several directives in several blocks of one Corefile', async () => {
  const corefile = 'example.org {\n acl {\n  block net 10.0.0.0/8\n }\n acl sub.example.org {\n  drop\n }\n}\nexample.net {\n acl {\n  filter type A\n }\n}\n';
  await validateCorefile({ path: 'Corefile', contents: corefile }, { directives: [{ name: 'acl', load: () => acl }] });
});
