/** auto answering the file scenario's query from the same zone, picked up from a directory. */
import type { BenchScenario } from './scenario.js';
import { benchZoneDirectory } from './zones.js';

const scenario: BenchScenario = {
  title: 'foghorn auto (A, 1,000-host zone)',
  targetRatio: 0.8,
  setup: () => {
    const zone = benchZoneDirectory();
    return Promise.resolve({ corefile: `example.org:0 {\n    bind 127.0.0.1\n    auto {\n        directory ${zone.dir}\n    }\n}\n`, queryName: 'bench.example.org', queryType: 'A', cleanup: zone.cleanup });
  },
};
export default scenario;
