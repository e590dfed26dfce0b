/**
 * `foghorn -workers 2` under faults: one worker killed with SIGKILL under a steady UDP load, while
 * /ready and /metrics are probed and TCP clients ask which worker answers. Used by
 * test/workers.test.ts (a light load) and `npm run abuse -- worker-kill` (5,000 queries a second).
 */
import { readFileSync } from 'node:fs';
import { freeDnsPort, freeTcpPort, httpGet, query, steadyLoad } from '@foghorn/testkit';
import type { Reply } from '@foghorn/testkit';
import { scratch, startFoghorn } from './harness.js';
import type { Child } from './harness.js';

/** The worker processes of a primary, from Linux's /proc. */
export function workerPids(primary: number): number[] {
  return readFileSync(`/proc/${primary}/task/${primary}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
}

/** Which worker answered a TCP query (`chaos worker-{$FOGHORN_WORKER}`), or '' when none did. */
export async function whoAnswered(port: number): Promise<string> {
  const reply: Reply | undefined = await query({ port }, 'version.bind', 'TXT', { class: 'CH', transport: 'tcp' }).catch(() => undefined);
  const data = (reply?.answers?.[0] as { data?: Buffer[] } | undefined)?.data;
  return data?.map((part) => part.toString()).join('') ?? '';
}

/** Starts `foghorn -workers 2` serving `corefile(port)` on a port free for UDP and TCP. */
export async function startWorkers(corefile: (port: number) => string): Promise<{ server: Child; port: number; close(): Promise<void> }> {
  const work = await scratch();
  const port = await freeDnsPort();
  const server = await startFoghorn(corefile(port), port, work.dir, { keepOutput: true, args: ['-workers', '2'] });
  // The banner comes once every worker is up: before it, one of them may still be starting.
  while (!server.output.some((line) => line.startsWith('Foghorn-'))) await delay(50);
  return {
    server,
    port,
    async close() {
      await server.stop();
      await work.close();
    },
  };
}

/** What a worker's death under load did. */
export interface WorkerKill {
  readonly sent: number;
  readonly answered: number;
  readonly lost: number;
  /** Queries sent and not yet answered when the worker was killed: the most it may cost. */
  readonly inFlightAtKill: number;
  /** From the kill until a TCP connection dealt to the replacement was answered. */
  readonly replacementMs: number;
  /** HTTP statuses of /ready and /metrics, probed one after another all along. */
  readonly ready: number[];
  readonly metrics: number[];
  /** The primary's lines from the kill on. */
  readonly output: string[];
}

/**
 * Serves whoami under `-workers 2` with *ready* and *prometheus*, loads it with `qps` UDP queries
 * a second, kills worker 1 after `warmupMs`, and keeps loading until its replacement has answered
 * and `settleMs` more have passed.
 */
export async function killWorkerUnderLoad(qps: number, options: { warmupMs?: number; settleMs?: number } = {}): Promise<WorkerKill> {
  const readyPort = await freeTcpPort();
  const metricsPort = await freeTcpPort();
  const { server, port, close } = await startWorkers(
    (dns) => `.:${dns} {\n    bind 127.0.0.1\n    chaos worker-{$FOGHORN_WORKER}\n    whoami\n    ready 127.0.0.1:${readyPort}\n    prometheus 127.0.0.1:${metricsPort}\n}\n`,
  );
  try {
    while ((await httpGet(readyPort, '/ready').catch(() => ({ status: 0 }))).status !== 200) await delay(100);
    const ready: number[] = [];
    const metrics: number[] = [];
    let probing = true;
    const probes = (async () => {
      while (probing) {
        ready.push((await httpGet(readyPort, '/ready', { timeoutMs: 5_000 }).catch(() => ({ status: 0 }))).status);
        metrics.push((await httpGet(metricsPort, '/metrics', { timeoutMs: 5_000 }).catch(() => ({ status: 0 }))).status);
        await delay(50);
      }
    })();
    const load = await steadyLoad(port, qps, 'whoami.example.org');
    await delay(options.warmupMs ?? 1_000);
    const [victim] = workerPids(server.process.pid!);
    const mark = server.output.length;
    const inFlightAtKill = load.inFlight();
    const killedAt = Date.now();
    process.kill(victim!, 'SIGKILL');
    // The primary deals TCP connections round-robin to the workers it has: worker 1 answers one
    // once its replacement serves.
    while ((await whoAnswered(port)) !== 'worker-1') await delay(20);
    const replacementMs = Date.now() - killedAt;
    await delay(options.settleMs ?? 1_000);
    await load.stop();
    probing = false;
    await probes;
    return { sent: load.sent, answered: load.answered, lost: load.lost, inFlightAtKill, replacementMs, ready, metrics, output: server.output.slice(mark) };
  } finally {
    await close();
  }
}

export function formatKill(kill: WorkerKill, qps: number): string {
  const statuses = (list: number[]): string => [...new Set(list)].join('/');
  return `worker killed under ${qps} queries/s: ${kill.sent} sent, ${kill.answered} answered, ${kill.lost} lost (${kill.inFlightAtKill} in flight at the kill); replacement answered ${kill.replacementMs} ms after the kill; /ready ${statuses(kill.ready)} (${kill.ready.length} probes), /metrics ${statuses(kill.metrics)} (${kill.metrics.length})`;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
