/** debug: answers unchanged by it (its effects are log lines and panic stacks). */
import type { DifferentialCase } from './case.js';
import { exampleOrgZone } from './zone.js';

const cases: DifferentialCase[] = [
  {
    plugin: 'debug',
    name: 'debug over file',
    corefile: 'example.org:{port} {\n  bind 127.0.0.1\n  debug\n  file {dir}/db.example.org\n}\n',
    files: { 'db.example.org': exampleOrgZone },
    queries: [
      { name: 'www.example.org.', type: 'A' },
      { name: 'missing.example.org.', type: 'A' },
      { name: 'www.example.org.', type: 'AAAA', transport: 'tcp' },
    ],
  },
];
export default cases;
