/** file answering an A query from a 1,000-host zone: the baseline of the zone plugins. */
import type { BenchScenario } from './scenario.js';
import { benchZoneDirectory } from './zones.js';

const scenario: BenchScenario = {
  title: 'foghorn file (A, 1,000-host zone)',
  targetRatio: 0.8,
  setup: () => {
    const zone = benchZoneDirectory();
    return Promise.resolve({ corefile: `example.org:0 {\n    bind 127.0.0.1\n    file ${zone.path}\n}\n`, queryName: 'bench.example.org', queryType: 'A', cleanup: zone.cleanup });
  },
};
export default scenario;
