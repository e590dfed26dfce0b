/**
 * header with a response rule that changes every reply, in front of whoami (which writes wire
 * bytes): each query pays a writer object and a copy of the reply to patch its flags. The variant
 * without header, measured in the same rounds (bench:dnsperf), gives the plugin's own cost.
 */
import type { BenchScenario } from './scenario.js';

const whoami = '.:0 {\n    bind 127.0.0.1\n    whoami\n}\n';

const scenario: BenchScenario = {
  title: 'foghorn header (response set aa ra) + whoami',
  targetRatio: 0.8,
  setup: () =>
    Promise.resolve({
      corefile: '.:0 {\n    bind 127.0.0.1\n    header {\n        response set aa ra\n    }\n    whoami\n}\n',
      variants: [{ label: 'without header', corefile: whoami }],
      queryName: 'whoami.example.org',
      queryType: 'A',
      cleanup: () => Promise.resolve(),
    }),
};
export default scenario;
