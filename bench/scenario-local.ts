/**
 * local in front of whoami, asked for a name that is not local: what *local* costs every query
 * it passes on (the path of nearly all of them). The variant without it runs in the same rounds.
 */
import type { BenchScenario } from './scenario.js';

const scenario: BenchScenario = {
  title: 'foghorn local + whoami (a name local passes on)',
  targetRatio: 0.8,
  setup: () =>
    Promise.resolve({
      corefile: '.:0 {\n    bind 127.0.0.1\n    local\n    whoami\n}\n',
      variants: [{ label: 'without local', corefile: '.:0 {\n    bind 127.0.0.1\n    whoami\n}\n' }],
      queryName: 'whoami.example.org',
      queryType: 'A',
      cleanup: () => Promise.resolve(),
    }),
};
export default scenario;
