/**
 * loadbalance round_robin in front of cache hits (4 A records from hosts): the wire path. Compare
 * with the cache scenario: a walk over the record headers and one buffer per reply, no decoding.
 */
import { benchHostsFile } from './hosts-file.js';
import type { BenchScenario } from './scenario.js';

const scenario: BenchScenario = {
  title: 'foghorn loadbalance + cache hit (4 A records shuffled on the wire)',
  targetRatio: 1.0,
  setup: () => {
    const file = benchHostsFile();
    return Promise.resolve({
      corefile: `.:0 {\n    bind 127.0.0.1\n    loadbalance\n    cache {\n        success 10000 3600 3600\n    }\n    hosts ${file.path}\n}\n`,
      queryName: 'bench.example.org',
      queryType: 'A',
      cleanup: file.cleanup,
    });
  },
};
export default scenario;
