/**
 * The cost of metadata: a block with *metadata* whose log line reads one label (`log/class`,
 * which log publishes and computes from the reply on first read), in front of whoami. Its
 * variants in the same rounds (bench:dnsperf): the same log line without *metadata* in the block
 * (the label prints `-`, and no query carries metadata), and the log line without the label.
 */
import type { BenchScenario } from './scenario.js';

const block = (body: string): string => `.:0 {\n    bind 127.0.0.1\n${body}    whoami\n}\n`;

const scenario: BenchScenario = {
  title: 'foghorn metadata + log reading a label + whoami',
  targetRatio: 0.5,
  setup: () =>
    Promise.resolve({
      corefile: block('    metadata\n    log . "{common} {/log/class}"\n'),
      variants: [
        { label: 'without metadata', corefile: block('    log . "{common} {/log/class}"\n') },
        { label: 'without metadata or label', corefile: block('    log . "{common}"\n') },
      ],
      queryName: 'bench.example.org',
      queryType: 'A',
      cleanup: () => Promise.resolve(),
    }),
};
export default scenario;
