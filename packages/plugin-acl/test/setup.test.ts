import { test } from 'node:test';
import type { Controller } from '@foghorn/core';
import { validateCorefile } from '@foghorn/core/server';
import { setupTable } from '@foghorn/testkit';
import type { BadCase, GoodCase } from '@foghorn/testkit';
import acl, { parseAcl } from '@foghorn/plugin-acl';

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

/** parseAcl's rules as summaries. */
function summarize(c: Controller): RuleSummary[] {
  return parseAcl(c).rules.map((rule) => ({
    zones: [...rule.zones],
    policies: rule.policies.map((p) => ({
      action: p.action,
      types: p.qtypes === null ? '*' : [...p.qtypes],
      nets: p.networks === null ? '*' : p.networks.map((n) => n.text),
    })),
  }));
}

const all = { types: '*', nets: '*' } as const;
const zone = ['example.org.'];

const good: GoodCase<RuleSummary[]>[] = [
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

const bad: BadCase[] = [
  { input: 'acl {\n permit net 10.0.0.0/8\n}', error: `Corefile:3:2 - Error during parsing: unexpected token "permit"; expect 'allow', 'block', 'filter' or 'drop'` },
  { input: 'acl {\n block net 10.0.0.0/33\n}', error: 'Corefile:3:12 - Error during parsing: illegal CIDR notation "10.0.0.0/33"' },
  { input: 'acl {\n block net 10.0.0.256\n}', error: 'Corefile:3:12 - Error during parsing: illegal CIDR notation "10.0.0.256/32"' },
  { input: 'acl {\n block net 10.0.0.0/8 fe80::1%eth0\n}', error: 'Corefile:3:23 - Error during parsing: illegal CIDR notation "fe80::1%eth0/128"' },
  { input: 'acl {\n block net 2001:db8::/129\n}', error: 'Corefile:3:12 - Error during parsing: illegal CIDR notation "2001:db8::/129"' },
  { input: 'acl {\n block net 010.0.0.0/8\n}', error: 'Corefile:3:12 - Error during parsing: illegal CIDR notation "010.0.0.0/8"' },
  { input: 'acl {\n block net example.org\n}', error: 'Corefile:3:12 - Error during parsing: illegal CIDR notation "example.org/32"' },
  { input: 'acl {\n block type A BOGUS\n}', error: 'Corefile:3:15 - Error during parsing: unexpected token "BOGUS"; expect legal QTYPE' },
  // QTYPE names are case-sensitive, as miekg/dns's StringToType.
  { input: 'acl {\n filter type a\n}', error: 'Corefile:3:14 - Error during parsing: unexpected token "a"; expect legal QTYPE' },
  { input: 'acl {\n block 10.0.0.0/8\n}', error: `Corefile:3:8 - Error during parsing: unexpected token "10.0.0.0/8"; expect 'type | net'` },
  { input: 'acl {\n block type\n}', error: 'Corefile:3:8 - Error during parsing: no token specified in "type" section' },
  { input: 'acl {\n block type A NET\n}', error: 'Corefile:3:15 - Error during parsing: no token specified in "net" section' },
];

setupTable('acl', summarize, { good, bad, plugin: acl });

test('the acl plugin sets up several directives in several blocks of one Corefile', async () => {
  const corefile = 'example.org {\n acl {\n  block net 10.0.0.0/8\n }\n acl sub.example.org {\n  drop\n }\n}\nexample.net {\n acl {\n  filter type A\n }\n}\n';
  await validateCorefile({ path: 'Corefile', contents: corefile }, { directives: [{ name: 'acl', load: () => acl }] });
});
