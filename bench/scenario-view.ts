/**
 * The cost of views: two blocks with a view on one zone and port, whoami in each. A query over
 * UDP from 127.0.0.1 fails the first view (`proto() == 'tcp'`) and passes the second
 * (`incidr(client_ip(), '127.0.0.0/8')`), so both expressions run per query. Its variant in the
 * same rounds (bench:dnsperf): one block without a view, the same chain.
 */
import type { BenchScenario } from './scenario.js';

const block = (view: string): string => `.:0 {\n    bind 127.0.0.1\n${view}    whoami\n}\n`;

const scenario: BenchScenario = {
  title: 'foghorn two views on one zone + whoami',
  targetRatio: 0.8,
  setup: () =>
    Promise.resolve({
      corefile:
        block("    view tcp {\n        expr proto() == 'tcp'\n    }\n") +
        block("    view loopback {\n        expr incidr(client_ip(), '127.0.0.0/8')\n    }\n"),
      variants: [{ label: 'without views', corefile: block('') }],
      queryName: 'bench.example.org',
      queryType: 'A',
      cleanup: () => Promise.resolve(),
    }),
};
export default scenario;
