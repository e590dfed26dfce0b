/** on: the same Corefile with startup and shutdown commands accepted and served alike. */
import type { DifferentialCase } from './case.js';
import { exampleOrgZone } from './zone.js';

const cases: DifferentialCase[] = [
  {
    plugin: 'on',
    name: 'on with startup and shutdown commands',
    corefile: "example.org:{port} {\n  bind 127.0.0.1\n  file {dir}/db.example.org\n  on startup sh -c 'echo up > /dev/null'\n  on shutdown true &\n}\n",
    files: { 'db.example.org': exampleOrgZone },
    queries: [{ name: 'www.example.org.', type: 'A' }],
  },
];
export default cases;
