/**
 * The cost of response rate limiting on queries within their limits: prometheus, rrl (every
 * category limited, at a rate the load never reaches, so every reply is accounted and none
 * dropped) and whoami, against the same chain without rrl, in the same rounds. prometheus is
 * there because a deployment has it, and it reads the query's clock, which rrl then shares.
 */
import type { BenchScenario } from './scenario.js';

const withRrl = '.:0 {\n    bind 127.0.0.1\n    prometheus 127.0.0.1:0\n    rrl {\n        responses-per-second 1000000\n        slip-ratio 2\n    }\n    whoami\n}\n';

const scenario: BenchScenario = {
  title: 'foghorn prometheus + rrl + whoami',
  targetRatio: 0.6,
  setup: () =>
    Promise.resolve({
      corefile: withRrl,
      variants: [{ label: 'without rrl', corefile: withRrl.replace(/ {4}rrl \{[^}]*\}\n/, '') }],
      queryName: 'bench.example.org',
      queryType: 'A',
      cleanup: () => Promise.resolve(),
    }),
};
export default scenario;
