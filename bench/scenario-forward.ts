/**
 * forward without cache: every query crosses Foghorn to an upstream and back. The upstream
 * (peers/answer-upstream.ts) turns each query into an answer by patching bytes, so the figure is
 * Foghorn's proxying cost. It runs as a process of its own, started by the benchmark process,
 * whose CPUs it inherits (bench:dnsperf runs on dnsperf's cores, not the server's).
 */
import { spawn } from 'node:child_process';
import { here, stopChild, waitForPort } from './harness.js';
import type { BenchScenario } from './scenario.js';

const scenario: BenchScenario = {
  title: 'foghorn forward (no cache)',
  // Two hops through Foghorn's process against one for the naive responder.
  targetRatio: 0.5,
  async setup() {
    const upstream = spawn(process.execPath, [here('./peers/answer-upstream.js')], { stdio: ['ignore', 'pipe', 'pipe'] });
    const port = await waitForPort(upstream, /PORT (\d+)/);
    return {
      corefile: `.:0 {\n    bind 127.0.0.1\n    forward . 127.0.0.1:${port}\n}\n`,
      queryName: 'bench.example.org',
      queryType: 'A',
      upstream: { port, process: upstream },
      cleanup: () => stopChild(upstream),
    };
  },
};
export default scenario;
