/**
 * The chain `npm start` serves: the repository's `Corefile.example` (errors, log, health, ready,
 * prometheus, reload, whoami; and the clusterset.local block) with its ports moved to 0 so it
 * runs beside anything else. Every query is logged to stdout (a pipe the benchmark drains) and
 * counted by prometheus: the cost of a realistic chain against the bare whoami scenario.
 */
import { readFileSync } from 'node:fs';
import { here } from './harness.js';
import type { BenchScenario } from './scenario.js';

const scenario: BenchScenario = {
  title: 'foghorn Corefile.example (errors, log, prometheus, whoami)',
  targetRatio: 0.5,
  setup: () => {
    const corefile = readFileSync(here('../../Corefile.example'), 'utf8')
      // Every key (`cluster.local:1053 10.in-addr.arpa:1053`): two Foghorns run side by side.
      .replace(/:1053\b/g, ':0')
      .replace(/127\.0\.0\.1:(8080|8181|9153)\b/g, '127.0.0.1:0')
      .replace(/manifests examples\//g, `manifests ${here('../../examples/')}`);
    return Promise.resolve({
      corefile,
      // The budget: log and prometheus together cost at most 10 % of this chain.
      variants: [{ label: 'without log, prometheus', corefile: corefile.replace(/^\s*(log|prometheus)\b.*\n/gm, '') }],
      queryName: 'whoami.example.org',
      queryType: 'A',
      cleanup: () => Promise.resolve(),
    });
  },
};
export default scenario;
