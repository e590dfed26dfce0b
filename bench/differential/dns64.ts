/**
 * dns64: synthesis from forwarded replies. The harness asks over IPv4, so the Corefiles say
 * `allow_ipv4` (the IPv6-only rule has its own test over ::1).
 */
import type { Packet } from 'dns-packet';
import { reply, rr } from '@foghorn/testkit';
import { startUpstream } from '@foghorn/testkit';
import type { Decoded } from '@foghorn/testkit';
import type { DifferentialCase } from './case.js';

const soa = (ttl: number): string => `example.org. ${ttl} IN SOA ns1.example.org. hostmaster.example.org. 1 7200 3600 1209600 300`;

/** The zone an upstream serves: per name, the reply to A and to AAAA. */
function upstreamReply(q: Decoded): Packet[] {
  const question = q.questions[0]!;
  const name = question.name.toLowerCase();
  const isA = question.type === 'A';
  const make = (rcode: number, answers: string[], authorities: string[] = [], tc = false): Packet[] => [
    { ...reply(q, { rcode, tc, answers: answers.map(rr) }), authorities: authorities.map(rr) },
  ];
  switch (name) {
    case 'v4only.example.org':
      return isA ? make(0, ['v4only.example.org. 300 IN A 192.0.2.10', 'v4only.example.org. 30 IN A 192.0.2.11']) : make(0, [], [soa(120)]);
    case 'nosoa.example.org':
      return isA ? make(0, ['nosoa.example.org. 3600 IN A 192.0.2.12']) : make(0, []);
    case 'dual.example.org':
      return isA ? make(0, ['dual.example.org. 300 IN A 192.0.2.20']) : make(0, ['dual.example.org. 300 IN AAAA 2001:db8::20']);
    case 'alias.example.org':
      return isA
        ? make(0, ['alias.example.org. 300 IN CNAME v4only.example.org.', 'v4only.example.org. 300 IN A 192.0.2.10'])
        : make(0, ['alias.example.org. 300 IN CNAME v4only.example.org.'], [soa(60)]);
    case 'empty.example.org':
      return make(0, [], [soa(300)]);
    case 'refused.example.org':
      return isA ? make(0, ['refused.example.org. 300 IN A 192.0.2.30']) : make(5, []);
    case 'truncated.example.org':
      return isA ? make(0, ['truncated.example.org. 300 IN A 192.0.2.40'], [], true) : make(0, [], [soa(300)]);
    default:
      return make(3, [], [soa(300)]);
  }
}

const queries = [
  { name: 'v4only.example.org.', type: 'AAAA' },
  { name: 'V4Only.example.org.', type: 'AAAA' },
  { name: 'v4only.example.org.', type: 'AAAA', transport: 'tcp' },
  { name: 'v4only.example.org.', type: 'AAAA', udpSize: 1232 },
  { name: 'v4only.example.org.', type: 'A' },
  { name: 'nosoa.example.org.', type: 'AAAA' },
  { name: 'dual.example.org.', type: 'AAAA' },
  { name: 'alias.example.org.', type: 'AAAA' },
  { name: 'empty.example.org.', type: 'AAAA' },
  { name: 'refused.example.org.', type: 'AAAA' },
  { name: 'truncated.example.org.', type: 'AAAA' },
  { name: 'nx.example.org.', type: 'AAAA' },
] as const;

async function upstream(): Promise<{ vars: Record<string, string>; close(): Promise<void> }> {
  const server = await startUpstream(upstreamReply);
  return { vars: { upstream: server.address }, close: () => server.close() };
}

const cases: DifferentialCase[] = [
  {
    plugin: 'dns64',
    name: 'dns64 allow_ipv4, well-known prefix',
    corefile: '.:{port} {\n  bind 127.0.0.1\n  dns64 {\n    allow_ipv4\n  }\n  forward . {upstream}\n}\n',
    queries,
    setup: upstream,
  },
  {
    plugin: 'dns64',
    name: 'dns64 translate_all, a 48-bit prefix',
    corefile: '.:{port} {\n  bind 127.0.0.1\n  dns64 {\n    allow_ipv4\n    translate_all\n    prefix 2001:db8:64::/48\n  }\n  forward . {upstream}\n}\n',
    queries,
    setup: upstream,
  },
  {
    plugin: 'dns64',
    name: 'dns64 without allow_ipv4 leaves IPv4 clients alone',
    corefile: '.:{port} {\n  bind 127.0.0.1\n  dns64 64:ff9b::/96\n  forward . {upstream}\n}\n',
    queries: [{ name: 'v4only.example.org.', type: 'AAAA' }],
    setup: upstream,
  },
];
export default cases;
