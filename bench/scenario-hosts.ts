/** hosts answering an A query with four addresses from a file: the baseline for loadbalance. */
import { benchHostsFile } from './hosts-file.js';
import type { BenchScenario } from './scenario.js';

const scenario: BenchScenario = {
  title: 'foghorn hosts (4 A records)',
  targetRatio: 0.8,
  setup: () => {
    const file = benchHostsFile();
    return Promise.resolve({
      corefile: `.:0 {\n    bind 127.0.0.1\n    hosts ${file.path}\n}\n`,
      queryName: 'bench.example.org',
      queryType: 'A',
      cleanup: file.cleanup,
    });
  },
};
export default scenario;
