/**
 * secondary answering the file scenario's query from the same zone, transferred from Knot (the
 * first round's first queries may meet the zone before its transfer; the best round counts).
 */
import { startKnot } from '@foghorn/testkit';
import type { BenchScenario } from './scenario.js';
import { benchZone } from './zones.js';

const scenario: BenchScenario = {
  title: 'foghorn secondary (A, 1,000-host zone)',
  targetRatio: 0.8,
  setup: async () => {
    const knot = await startKnot({ zones: { 'example.org.': benchZone() } });
    return { corefile: `example.org:0 {\n    bind 127.0.0.1\n    secondary {\n        transfer from ${knot.address}\n    }\n}\n`, queryName: 'bench.example.org', queryType: 'A', cleanup: () => knot.close() };
  },
};
export default scenario;
