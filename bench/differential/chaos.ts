/** chaos: CH-class version, authors and hostname answers, the same in both servers. */
import type { DifferentialCase } from './case.js';

const cases: DifferentialCase[] = [
  {
    plugin: 'chaos',
    name: 'chaos version and authors',
    corefile: '.:{port} {\n  bind 127.0.0.1\n  chaos Foghorn-differential alice@example.org\n}\n',
    queries: [
      { name: 'version.bind.', type: 'TXT', class: 'CH' },
      { name: 'version.server.', type: 'TXT', class: 'CH' },
      { name: 'authors.bind.', type: 'TXT', class: 'CH' },
      { name: 'hostname.bind.', type: 'TXT', class: 'CH' },
      { name: 'example.org.', type: 'A' },
    ],
  },
];
export default cases;
