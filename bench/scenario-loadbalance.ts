/**
 * loadbalance round_robin in front of hosts (4 A records): the message-object path. Compare with
 * the hosts scenario for the plugin's own cost: a writer per query, a copy of the answer section
 * and a shuffle.
 */
import { benchHostsFile } from './hosts-file.js';
import type { BenchScenario } from './scenario.js';

const scenario: BenchScenario = {
  title: 'foghorn loadbalance + hosts (4 A records shuffled)',
  targetRatio: 0.7,
  setup: () => {
    const file = benchHostsFile();
    return Promise.resolve({
      corefile: `.:0 {\n    bind 127.0.0.1\n    loadbalance\n    hosts ${file.path}\n}\n`,
      queryName: 'bench.example.org',
      queryType: 'A',
      cleanup: file.cleanup,
    });
  },
};
export default scenario;
