/**
 * nsid: the identifier in replies to queries that ask (UDP, TCP, DO, a small buffer, NXDOMAIN),
 * none for those that do not, the empty echo in a REFUSED the server writes, and cache hits.
 */
import { answering, startUpstream } from '@foghorn/testkit';
import type { DifferentialCase } from './case.js';
import { exampleOrgZone } from './zone.js';

const cases: DifferentialCase[] = [
  {
    plugin: 'nsid',
    name: 'nsid over file and cache',
    corefile: 'example.org:{port} {\n  bind 127.0.0.1\n  nsid Foghorn differential\n  cache\n  file {dir}/db.example.org\n}\n',
    files: { 'db.example.org': exampleOrgZone },
    queries: [
      { name: 'www.example.org.', type: 'A', nsid: true, ignoreTtl: true },
      { name: 'www.example.org.', type: 'A', nsid: true, transport: 'tcp', ignoreTtl: true },
      { name: 'www.example.org.', type: 'AAAA', nsid: true, do: true, ignoreTtl: true },
      { name: 'www.example.org.', type: 'A', nsid: true, udpSize: 512, ignoreTtl: true },
      { name: 'alias.example.org.', type: 'A', nsid: true, ignoreTtl: true },
      { name: 'missing.example.org.', type: 'A', nsid: true, ignoreTtl: true },
      { name: 'www.example.org.', type: 'A', ignoreTtl: true },
      { name: 'www.example.org.', type: 'A', udpSize: 1232, ignoreTtl: true },
      { name: 'www.example.net.', type: 'A', nsid: true },
    ],
  },
  {
    plugin: 'nsid',
    name: 'nsid over forward',
    // The upstream echoes the query's OPT, its empty NSID included: nsid fills it in where it stands.
    corefile: '.:{port} {\n  bind 127.0.0.1\n  nsid\n  forward . {upstream}\n}\n',
    queries: [
      { name: 'www.example.org.', type: 'A', nsid: true },
      { name: 'www.example.org.', type: 'A', nsid: true, transport: 'tcp', do: true },
      { name: 'www.example.org.', type: 'A' },
    ],
    async setup() {
      const up = await startUpstream(answering);
      return { vars: { upstream: up.address }, close: () => up.close() };
    },
  },
];
export default cases;
