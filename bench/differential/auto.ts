/**
 * auto: zone files picked up from a directory (the default `db.ORIGIN` names, a subdirectory, a
 * backup file that must not count) and answered by both servers; names under the block's zone
 * that no file serves are refused.
 */
import type { DifferentialCase } from './case.js';

const zone = (origin: string, www: string): string => `$ORIGIN ${origin}
$TTL 3600
@ SOA ns1 hostmaster 7 7200 3600 1209600 300
@ NS ns1
ns1 A 192.0.2.53
www A ${www}
alias CNAME www
*.wild A 192.0.2.99
sub NS ns.sub
ns.sub A 192.0.2.54
`;

const cases: DifferentialCase[] = [
  {
    plugin: 'auto',
    name: 'auto zones from a directory',
    corefile: 'org:{port} {\n  bind 127.0.0.1\n  auto {\n    directory \"{dir}/zones\"\n  }\n}\n',
    files: {
      'zones/db.example.org': zone('example.org.', '192.0.2.1'),
      'zones/more/db.test.org': zone('test.org.', '192.0.2.2'),
      'zones/example.net.zone': zone('example.net.', '192.0.2.3'),
    },
    queries: [
      { name: 'www.example.org.', type: 'A' },
      { name: 'example.org.', type: 'SOA' },
      { name: 'alias.example.org.', type: 'A', transport: 'tcp' },
      { name: 'x.wild.example.org.', type: 'A' },
      { name: 'host.sub.example.org.', type: 'A' },
      { name: 'nope.example.org.', type: 'A' },
      { name: 'www.example.org.', type: 'TXT' },
      { name: 'www.test.org.', type: 'A' },
      { name: 'www.other.org.', type: 'A' },
      { name: 'www.example.org.', type: 'AXFR' },
    ],
  },
  {
    plugin: 'auto',
    name: 'auto with a regexp and template',
    corefile: '.:{port} {\n  bind 127.0.0.1\n  auto example.net example.com {\n    directory \"{dir}/zones\" ^(.*)\\.zone$ {1}\n    reload 0\n  }\n}\n',
    files: {
      'zones/example.net.zone': zone('example.net.', '192.0.2.3'),
      'zones/example.net.zone.bak': zone('example.net.', '192.0.2.4'),
      'zones/example.com.zone': zone('example.com.', '192.0.2.5'),
      'zones/db.example.org': zone('example.org.', '192.0.2.1'),
    },
    queries: [
      { name: 'www.example.net.', type: 'A' },
      { name: 'www.example.com.', type: 'A' },
      { name: 'www.example.org.', type: 'A' },
      { name: 'nope.example.com.', type: 'AAAA' },
    ],
  },
];
export default cases;
