/**
 * The cost of query logging: `log` with CoreDNS's default format in front of `whoami`, every
 * query written to stdout (a pipe the benchmark drains). Compare with the whoami scenario.
 */
import type { BenchScenario } from './scenario.js';

const scenario: BenchScenario = {
  title: 'foghorn log + whoami',
  targetRatio: 0.6,
  setup: () =>
    Promise.resolve({
      corefile: '.:0 {\n    bind 127.0.0.1\n    log\n    whoami\n}\n',
      queryName: 'bench.example.org',
      queryType: 'A',
      cleanup: () => Promise.resolve(),
    }),
};
export default scenario;
