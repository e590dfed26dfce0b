/**
 * The cache hit path: `cache` in front of `whoami`, warmed by the runner's first round, then
 * measured. Every measured query is a hit: one copy of the stored wire bytes with the ID, TTLs
 * and question case patched, no decoding of answers and no encoding.
 *
 * whoami's records have TTL 0; as in CoreDNS, the success MINTTL lifts that to the stored
 * duration, here an hour so nothing expires during the run.
 */
import type { BenchScenario } from './scenario.js';

const scenario: BenchScenario = {
  title: 'foghorn cache hit (cache + whoami)',
  targetRatio: 1.0,
  setup: () =>
    Promise.resolve({
      corefile: '.:0 {\n    bind 127.0.0.1\n    cache {\n        success 10000 3600 3600\n    }\n    whoami\n}\n',
      queryName: 'bench.example.org',
      queryType: 'A',
      cleanup: () => Promise.resolve(),
    }),
};
export default scenario;
