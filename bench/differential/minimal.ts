/** minimal: what is cut from replies written as messages (file) and as wire bytes (forward). */
import type { Answer, Packet } from 'dns-packet';
import { reply, rr, startUpstream } from '@foghorn/testkit';
import type { Decoded } from '@foghorn/testkit';
import type { DifferentialCase } from './case.js';

const zone = `$ORIGIN example.org.
@      3600 IN SOA ns1.example.org. hostmaster.example.org. 2024010101 7200 3600 1209600 300
@      3600 IN NS  ns1.example.org.
@      3600 IN NS  ns2.example.org.
ns1    3600 IN A   192.0.2.53
ns2    3600 IN A   192.0.2.54
ns2    3600 IN AAAA 2001:db8::54
www    300  IN A   192.0.2.80
www    300  IN MX  10 mail.example.org.
mail   300  IN A   192.0.2.25
alias  300  IN CNAME www.example.org.
sub    3600 IN NS  ns.sub.example.org.
ns.sub 3600 IN A   192.0.2.99
`;

const fileQueries = [
  { name: 'www.example.org.', type: 'A' },
  { name: 'www.example.org.', type: 'MX' },
  { name: 'alias.example.org.', type: 'A', transport: 'tcp' },
  { name: 'www.example.org.', type: 'TXT' },
  { name: 'nx.example.org.', type: 'A', udpSize: 1232 },
  { name: 'host.sub.example.org.', type: 'A' },
  { name: 'example.org.', type: 'NS' },
  { name: 'www.example.org.', type: 'A', udpSize: 1232, do: true },
] as const;

const soa = 'example.com. 300 IN SOA ns1.example.com. hostmaster.example.com. 1 7200 3600 1209600 300';
const ns = ['example.com. 3600 IN NS ns1.example.com.', 'example.com. 3600 IN NS ns2.example.com.'];
const glue = ['ns1.example.com. 3600 IN A 192.0.2.53', 'ns2.example.com. 3600 IN AAAA 2001:db8::54'];

/** An upstream that sends authority and additional records with every kind of reply. */
function upstreamReply(q: Decoded): Packet[] {
  const name = q.questions[0]!.name.toLowerCase();
  const base = reply(q, {});
  const make = (rcode: number, answers: string[], authorities: string[]): Packet => ({
    ...reply(q, { rcode, answers: answers.map(rr) }),
    authorities: authorities.map(rr),
    additionals: [...(base.additionals ?? []), ...glue.map(rr)] as Answer[],
  });
  if (name.startsWith('answer.')) return [make(0, [`${name}. 60 IN A 192.0.2.1`], ns)];
  if (name.startsWith('nodata.')) return [make(0, [], [soa])];
  if (name.startsWith('nx.')) return [make(3, [], [soa])];
  if (name.startsWith('deleg.')) return [make(0, [], ns)];
  if (name.startsWith('bare.')) return [make(0, [], [])];
  return [make(2, [], [])];
}

const forwardQueries = [
  { name: 'answer.example.com.', type: 'A' },
  { name: 'answer.example.com.', type: 'A', transport: 'tcp' },
  { name: 'answer.example.com.', type: 'A', udpSize: 1232 },
  { name: 'nodata.example.com.', type: 'A' },
  { name: 'nx.example.com.', type: 'A', udpSize: 1232 },
  { name: 'deleg.example.com.', type: 'A' },
  { name: 'bare.example.com.', type: 'A' },
  { name: 'fail.example.com.', type: 'A' },
] as const;

const cases: DifferentialCase[] = [
  {
    plugin: 'minimal',
    name: 'minimal on an authoritative zone (file)',
    corefile: 'example.org:{port} {\n  bind 127.0.0.1\n  minimal\n  file {dir}/db.example.org\n}\n',
    files: { 'db.example.org': zone },
    queries: fileQueries,
  },
  {
    plugin: 'minimal',
    name: 'minimal on forwarded replies',
    corefile: '.:{port} {\n  bind 127.0.0.1\n  minimal\n  forward . {upstream}\n}\n',
    queries: forwardQueries,
    async setup() {
      const upstream = await startUpstream(upstreamReply);
      return { vars: { upstream: upstream.address }, close: () => upstream.close() };
    },
  },
];
export default cases;
