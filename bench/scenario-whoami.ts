/** The chain's own cost: `whoami`, the smallest answering plugin, behind the full listener path. */
import type { BenchScenario } from './scenario.js';

const scenario: BenchScenario = {
  title: 'foghorn whoami',
  targetRatio: 0.75,
  setup: () =>
    Promise.resolve({
      corefile: '.:0 {\n    bind 127.0.0.1\n    whoami\n}\n',
      queryName: 'bench.example.org',
      queryType: 'A',
      cleanup: () => Promise.resolve(),
    }),
};
export default scenario;
