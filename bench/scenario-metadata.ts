/**
 * The cost of metadata: a block with *metadata* whose log line reads one label, `view/name`,
 * which the block's view publishes, in front of whoami. Its variant in the same rounds
 * (bench:dnsperf): the same block and log line without *metadata* (the label prints `-`, and no
 * query carries metadata). A second pair reads `log/class`, which log computes from the reply
 * when it is read: a reply written as bytes (whoami's) is decoded for it.
 */
import type { BenchScenario } from './scenario.js';

const block = (metadata: boolean, label: string): string =>
  `.:0 {\n    bind 127.0.0.1\n${metadata ? '    metadata\n' : ''}    view all {\n        expr true\n    }\n    log . "{common} {/${label}}"\n    whoami\n}\n`;

const scenario: BenchScenario = {
  title: 'foghorn metadata + view + log reading a label + whoami',
  targetRatio: 0.5,
  setup: () =>
    Promise.resolve({
      corefile: block(true, 'view/name'),
      variants: [
        { label: 'without metadata', corefile: block(false, 'view/name') },
        { label: 'reading log/class', corefile: block(true, 'log/class') },
        { label: 'reading log/class without metadata', corefile: block(false, 'log/class') },
      ],
      queryName: 'bench.example.org',
      queryType: 'A',
      cleanup: () => Promise.resolve(),
    }),
};
export default scenario;
