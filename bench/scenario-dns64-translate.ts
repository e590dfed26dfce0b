/**
 * dns64 (allow_ipv4) in front of hosts, asked AAAA for an IPv4-only name: every query is
 * translated (the AAAA reply decoded, the A records asked of hosts, the AAAA reply built). The
 * variant without dns64 answers the same query with an empty NOERROR.
 */
import { dns64Hosts } from './scenario-dns64.js';
import type { BenchScenario } from './scenario.js';

const scenario: BenchScenario = {
  title: 'foghorn dns64 + hosts (AAAA synthesised from 2 A records)',
  targetRatio: 0.5,
  setup: () => {
    const file = dns64Hosts();
    return Promise.resolve({
      corefile: `.:0 {\n    bind 127.0.0.1\n    dns64 {\n        allow_ipv4\n    }\n    hosts ${file.path}\n}\n`,
      variants: [{ label: 'without dns64', corefile: `.:0 {\n    bind 127.0.0.1\n    hosts ${file.path}\n}\n` }],
      queryName: 'v4.example.org',
      queryType: 'AAAA',
      cleanup: file.cleanup,
    });
  },
};
export default scenario;
