/**
 * grpc without cache: every query crosses Foghorn to a gRPC DnsService upstream
 * (peers/grpc-upstream.ts, answering by patching bytes) and back, so the figure is the cost of
 * proxying over gRPC: HTTP/2 framing and grpc-js's call machinery on top of what forward pays.
 * forward to the UDP upstream is a variant in the same rounds, and a real CoreDNS with the same
 * grpc line the `coredns` peer (bench:dnsperf).
 */
import { spawn } from 'node:child_process';
import { here, stopChild, waitForPort } from './harness.js';
import type { BenchScenario } from './scenario.js';

const scenario: BenchScenario = {
  title: 'foghorn grpc (no cache)',
  // Two hops through Foghorn's process, one of them gRPC.
  targetRatio: 0.25,
  async setup() {
    const upstream = spawn(process.execPath, [here('./peers/grpc-upstream.js')], { stdio: ['ignore', 'pipe', 'pipe'] });
    const port = await waitForPort(upstream, /PORT (\d+)/);
    const udp = spawn(process.execPath, [here('./peers/answer-upstream.js')], { stdio: ['ignore', 'pipe', 'pipe'] });
    const udpPort = await waitForPort(udp, /PORT (\d+)/);
    return {
      corefile: `.:0 {\n    bind 127.0.0.1\n    grpc . 127.0.0.1:${port}\n}\n`,
      queryName: 'bench.example.org',
      queryType: 'A',
      variants: [{ label: 'forward over UDP', corefile: `.:0 {\n    bind 127.0.0.1\n    forward . 127.0.0.1:${udpPort}\n}\n` }],
      coredns: (listen) => `.:${listen} {\n    bind 127.0.0.1\n    grpc . 127.0.0.1:${port}\n}\n`,
      cleanup: async () => {
        await stopChild(upstream);
        await stopChild(udp);
      },
    };
  },
};
export default scenario;
