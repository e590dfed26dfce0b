/** root: a zone file and a hosts file named relatively, found under the block's root. */
import type { DifferentialCase } from './case.js';
import { exampleOrgZone } from './zone.js';

const cases: DifferentialCase[] = [
  {
    plugin: 'root',
    name: 'root with file and hosts',
    corefile:
      'example.org:{port} {\n  bind 127.0.0.1\n  root {dir}/zones\n  file db.example.org\n}\n' +
      'hosts.test:{port} {\n  bind 127.0.0.1\n  root {dir}/zones\n  hosts hosts hosts.test\n}\n',
    files: { 'zones/db.example.org': exampleOrgZone, 'zones/hosts': '192.0.2.7 printer.hosts.test\n' },
    queries: [
      { name: 'www.example.org.', type: 'A' },
      { name: 'example.org.', type: 'SOA' },
      { name: 'printer.hosts.test.', type: 'A' },
      { name: '7.2.0.192.in-addr.arpa.', type: 'PTR' },
    ],
  },
];
export default cases;
