/**
 * secondary: a zone transferred from a real primary (Knot, started by the case) and answered by
 * both servers; and a zone whose primary never answers, SERVFAIL in both.
 */
import { freeDnsPort, startKnot } from '@foghorn/testkit';
import type { DifferentialCase, DifferentialQuery } from './case.js';

const zone = `$ORIGIN example.org.
$TTL 3600
@ SOA ns1 hostmaster 2024010101 7200 3600 1209600 300
@ NS ns1
@ NS ns2.example.net.
@ MX 10 mail
@ TXT "v=spf1 -all"
ns1 A 192.0.2.53
mail A 192.0.2.25
mail AAAA 2001:db8::25
www A 192.0.2.80
www AAAA 2001:db8::80
alias CNAME www
outside CNAME www.example.net.
*.wild TXT "wildcard"
_sip._tcp SRV 10 60 5060 mail
sub NS ns.sub
ns.sub A 192.0.2.54
deep.empty A 192.0.2.9
`;

const queries: DifferentialQuery[] = [
  { name: 'example.org.', type: 'SOA' },
  { name: 'example.org.', type: 'NS' },
  { name: 'example.org.', type: 'MX' },
  { name: 'example.org.', type: 'TXT' },
  { name: 'www.example.org.', type: 'A' },
  { name: 'www.example.org.', type: 'AAAA', transport: 'tcp' },
  { name: 'WwW.ExAmPlE.oRg.', type: 'A' },
  { name: 'alias.example.org.', type: 'A' },
  { name: 'outside.example.org.', type: 'A' },
  { name: 'a.wild.example.org.', type: 'TXT' },
  { name: 'a.wild.example.org.', type: 'A' },
  { name: '_sip._tcp.example.org.', type: 'SRV' },
  { name: 'host.sub.example.org.', type: 'A' },
  { name: 'sub.example.org.', type: 'NS' },
  { name: 'empty.example.org.', type: 'A' },
  { name: 'nope.example.org.', type: 'A' },
  { name: 'www.example.org.', type: 'MX' },
  { name: 'example.org.', type: 'AXFR' },
  { name: 'www.example.com.', type: 'A' },
];

const cases: DifferentialCase[] = [
  {
    plugin: 'secondary',
    name: 'secondary zone transferred from Knot',
    corefile: 'example.org:{port} {\n  bind 127.0.0.1\n  secondary {\n    transfer from {primary}\n  }\n}\n',
    queries,
    // Both start their first transfer at once; give them time to finish it.
    settleMs: 1500,
    async setup() {
      const knot = await startKnot({ zones: { 'example.org.': zone } });
      return { vars: { primary: knot.address }, close: () => knot.close() };
    },
  },
  {
    plugin: 'secondary',
    name: 'secondary zone whose primary never answers',
    corefile: 'example.org:{port} {\n  bind 127.0.0.1\n  secondary {\n    transfer from {primary}\n  }\n}\n',
    queries: [
      { name: 'www.example.org.', type: 'A' },
      { name: 'example.org.', type: 'SOA', transport: 'tcp' },
    ],
    async setup() {
      // A port nobody listens on.
      return { vars: { primary: `127.0.0.1:${await freeDnsPort()}` }, close: async () => {} };
    },
  },
];
export default cases;
