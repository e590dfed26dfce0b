/**
 * local: CoreDNS's table of local names. The reference binary is CoreDNS 1.12.3, whose *local*
 * answered names under `localhost.` with NXDOMAIN and read no options; Foghorn follows v1.14.7.
 */
import type { DifferentialCase } from './case.js';

const v114 = 'CoreDNS v1.14.5 answers names under localhost. as loopback (RFC 6761 §6.3, coredns#8151); the 1.12.3 binary predates it';

const cases: DifferentialCase[] = [
  {
    plugin: 'local',
    name: 'local names',
    corefile: '.:{port} {\n  bind 127.0.0.1\n  local\n  template IN A example.org {\n    answer "{{ .Name }} 60 IN A 192.0.2.1"\n  }\n}\n',
    queries: [
      { name: 'localhost.', type: 'A' },
      { name: 'localHOst.', type: 'A' },
      { name: 'localhost.', type: 'AAAA' },
      { name: 'localhost.', type: 'NS' },
      { name: 'localhost.', type: 'SOA' },
      { name: 'localhost.', type: 'MX' },
      { name: 'localhost.', type: 'A', transport: 'tcp', udpSize: 1232 },
      { name: '127.in-addr.arpa.', type: 'A' },
      { name: '0.in-addr.arpa.', type: 'NS' },
      { name: '255.in-addr.arpa.', type: 'SOA' },
      { name: '1.0.0.127.in-addr.arpa.', type: 'PTR' },
      { name: '1.0.0.127.in-addr.arpa.', type: 'MX' },
      { name: '2.0.0.127.in-addr.arpa.', type: 'PTR' },
      { name: '255.255.255.255.IN-ADDR.arpa.', type: 'PTR', do: true },
      { name: 'localhost.example.net.', type: 'A' },
      { name: 'localhost.example.net.', type: 'AAAA' },
      { name: 'localhost.example.net.', type: 'SOA' },
      { name: 'localhost.localdomain.', type: 'A' },
      { name: 'a.localhost.', type: 'A' },
      { name: 'a.localhost.', type: 'AAAA' },
      { name: 'a.localhost.', type: 'MX' },
      { name: 'example.org.', type: 'A' },
      { name: `1.${'0.'.repeat(31)}ip6.arpa.`, type: 'PTR' },
    ],
    kept: {
      'a.localhost. A': v114,
      'a.localhost. AAAA': v114,
      'a.localhost. MX': v114,
    },
  },
  {
    plugin: 'local',
    name: 'local localhost_prefix off',
    corefile: '.:{port} {\n  bind 127.0.0.1\n  local {\n    localhost_prefix off\n  }\n  template IN A example.net {\n    answer "{{ .Name }} 60 IN A 192.0.2.1"\n  }\n}\n',
    queries: [
      { name: 'localhost.example.net.', type: 'A' },
      { name: 'localhost.', type: 'A' },
    ],
    kept: {
      'localhost.example.net. A': 'localhost_prefix came with v1.14.5 (coredns#8151); CoreDNS 1.12.3 reads no option and answers localhost.<domain> as loopback',
    },
  },
];
export default cases;
