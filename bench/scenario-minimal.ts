/**
 * minimal in front of forward (no cache), whose upstream answers with the answer section only:
 * minimal walks every wire reply and finds nothing to cut, the path of a recursive resolver's
 * replies. The variant without minimal runs in the same rounds (bench:dnsperf).
 */
import { spawn } from 'node:child_process';
import { here, stopChild, waitForPort } from './harness.js';
import type { BenchScenario } from './scenario.js';

const scenario: BenchScenario = {
  title: 'foghorn minimal + forward (nothing to cut)',
  targetRatio: 0.5,
  async setup() {
    const upstream = spawn(process.execPath, [here('./peers/answer-upstream.js')], { stdio: ['ignore', 'pipe', 'pipe'] });
    const port = await waitForPort(upstream, /PORT (\d+)/);
    const forward = `    forward . 127.0.0.1:${port}\n`;
    return {
      corefile: `.:0 {\n    bind 127.0.0.1\n    minimal\n${forward}}\n`,
      variants: [{ label: 'without minimal', corefile: `.:0 {\n    bind 127.0.0.1\n${forward}}\n` }],
      queryName: 'bench.example.org',
      queryType: 'A',
      upstream: { port, process: upstream },
      cleanup: () => stopChild(upstream),
    };
  },
};
export default scenario;
