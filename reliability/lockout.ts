/**
 * `npm run abuse [-- SCENARIO...]`: can an attacker holding connections shut new clients out?
 * Each scenario holds idle connections open (connected, nothing sent; each one the server closes
 * is opened again at once) and then asks, one after another, as new clients: each must be
 * answered within 3 s. Scenarios:
 *
 *   tcp               5,000 idle TCP connections; new TCP and UDP clients
 *   tcp-ulimit        1,100 idle TCP connections under `ulimit -n 1024`
 *   dot, doh          5,000 idle TCP connections to a DoT, a DoH listener (no handshake); new DoT, DoH clients
 *   listeners-ulimit  1,100 idle connections to each of the TCP, DoT and DoH listeners under `ulimit -n 1024`
 *   worker-kill       not a lock-out: `-workers 2` under 5,000 UDP queries a second, worker 1 killed
 *                     with SIGKILL (workers.ts): queries lost, when the replacement answers, /ready and /metrics
 *
 * The servers: this build's `foghorn`; with FOGHORN_BASELINE=DIR also the build of another
 * checkout (before and after a change); with COREDNS_BINARY=PATH also CoreDNS, on the same Corefile.
 * Prints one line per server and scenario; exits 1 when this build left a new client unanswered.
 */
import { join } from 'node:path';
import { freeTcpPort, makeTestPki } from '@foghorn/testkit';
import type { TestPki } from '@foghorn/testkit';
import { holdOpen, timeToAnswer } from './abuse.js';
import type { ClientKind, HeldOpen } from './abuse.js';
import { sampleProcess, scratch, startCoreDns, startFoghorn } from './harness.js';
import type { Child, StartOptions } from './harness.js';
import { formatKill, killWorkerUnderLoad } from './workers.js';

/** One attack: what is held open where, and who then asks. */
export interface Scenario {
  readonly name: string;
  /** A shell prefix the server starts under (its descriptor limit). */
  readonly shell?: string;
  /** Idle connections held to each listener named. */
  readonly hold: Partial<Record<'dns' | 'tls' | 'https', number>>;
  readonly clients: readonly ClientKind[];
}

export const scenarios: readonly Scenario[] = [
  { name: 'tcp', hold: { dns: 5_000 }, clients: ['tcp', 'udp'] },
  { name: 'tcp-ulimit', shell: 'ulimit -n 1024 &&', hold: { dns: 1_100 }, clients: ['tcp', 'udp'] },
  { name: 'dot', hold: { tls: 5_000 }, clients: ['tls'] },
  { name: 'doh', hold: { https: 5_000 }, clients: ['https'] },
  { name: 'listeners-ulimit', shell: 'ulimit -n 1024 &&', hold: { dns: 1_100, tls: 1_100, https: 1_100 }, clients: ['tcp', 'tls', 'https'] },
];

/** A server to attack: a name for the report and how to start it on a Corefile. */
export interface Target {
  readonly name: string;
  start(corefile: string, port: number, dir: string, options: StartOptions): Promise<Child>;
}

/** What one scenario did to one server. */
export interface LockoutResult {
  readonly target: string;
  readonly scenario: string;
  /** Idle connections the attacker had open when the new clients came (as the client sees them). */
  readonly held: number;
  /** Descriptors the server process had open then. */
  readonly serverDescriptors: number;
  /** Per kind of new client: answered of asked, and the answer times (ms) of those answered. */
  readonly clients: Record<string, { readonly asked: number; readonly times: number[] }>;
  /** The server was still running at the end. */
  readonly alive: boolean;
}

/** New clients asked per kind, one after another. */
const ASKED = 10;
/** How long a new client waits for its answer. */
const ANSWER_WITHIN_MS = 3_000;

/** The Corefile every server gets: whoami on plain DNS, DoT and DoH (all CoreDNS plugins too). */
export function lockoutCorefile(ports: { dns: number; tls: number; https: number }, pki: TestPki): string {
  const tls = `tls ${pki.server.certFile} ${pki.server.keyFile}`;
  return [
    `.:${ports.dns} {\n    bind 127.0.0.1\n    whoami\n}`,
    `tls://.:${ports.tls} {\n    bind 127.0.0.1\n    ${tls}\n    whoami\n}`,
    `https://.:${ports.https} {\n    bind 127.0.0.1\n    ${tls}\n    whoami\n}`,
    '',
  ].join('\n');
}

/** Runs `scenario` against `target` and reports what new clients saw. */
export async function runScenario(target: Target, scenario: Scenario, pki: TestPki): Promise<LockoutResult> {
  const work = await scratch();
  const ports = { dns: await freeTcpPort(), tls: await freeTcpPort(), https: await freeTcpPort() };
  const server = await target.start(lockoutCorefile(ports, pki), ports.dns, work.dir, scenario.shell ? { shell: scenario.shell } : {});
  const holders: HeldOpen[] = [];
  try {
    for (const [listener, count] of Object.entries(scenario.hold) as [keyof typeof ports, number][]) {
      const held = holdOpen(ports[listener], count);
      holders.push(held);
      // Every connection opened at least once (or 10 s).
      const deadline = Date.now() + 10_000;
      while (held.opened() < count && Date.now() < deadline) await delay(100);
    }
    // Connected is not accepted: a busy server still drains its accept queue. The attack is in
    // place when the server's descriptors stop growing (or after 20 s).
    const deadline = Date.now() + 20_000;
    for (let last = -1; Date.now() < deadline; await delay(500)) {
      const now = (await sampleProcess(server.process.pid!).catch(() => ({ descriptors: 0 }))).descriptors;
      if (Math.abs(now - last) < 20) break;
      last = now;
    }
    const held = holders.reduce((sum, h) => sum + h.open(), 0);
    const serverDescriptors = (await sampleProcess(server.process.pid!).catch(() => ({ descriptors: NaN }))).descriptors;
    const clients: Record<string, { asked: number; times: number[] }> = {};
    for (const kind of scenario.clients) {
      const port = kind === 'tls' ? ports.tls : kind === 'https' ? ports.https : ports.dns;
      const times: number[] = [];
      for (let i = 0; i < ASKED; i++) {
        const ms = await timeToAnswer(kind, port, ANSWER_WITHIN_MS, pki.ca.cert);
        if (ms !== null) times.push(ms);
      }
      clients[kind] = { asked: ASKED, times };
    }
    return { target: target.name, scenario: scenario.name, held, serverDescriptors, clients, alive: server.exitCode === undefined };
  } finally {
    for (const held of holders) held.stop();
    await server.stop();
    await work.close();
  }
}

export function formatResult(r: LockoutResult): string {
  const clients = Object.entries(r.clients)
    .map(([kind, { asked, times }]) => {
      const sorted = [...times].sort((a, b) => a - b);
      const timing = sorted.length > 0 ? ` (median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)} ms, max ${sorted.at(-1)!.toFixed(0)} ms)` : '';
      return `${kind} ${times.length}/${asked}${timing}`;
    })
    .join(', ');
  return `${r.target.padEnd(9)} ${r.scenario.padEnd(17)} held ${String(r.held).padStart(5)}, server fds ${String(r.serverDescriptors).padStart(5)}; new clients answered within 3 s: ${clients}${r.alive ? '' : '; the server died'}`;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The rate of `worker-kill`, the issue's. */
const WORKER_KILL_QPS = 5_000;

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const chosen = wanted.length === 0 ? scenarios : scenarios.filter((s) => wanted.includes(s.name));
  const workerKill = wanted.length === 0 || wanted.includes('worker-kill');
  if (chosen.length + (wanted.includes('worker-kill') ? 1 : 0) !== wanted.length && wanted.length > 0) {
    throw new Error(`unknown scenario; known: ${[...scenarios.map((s) => s.name), 'worker-kill'].join(', ')}`);
  }
  const targets: Target[] = [{ name: 'foghorn', start: (corefile, port, dir, options) => startFoghorn(corefile, port, dir, options) }];
  const baseline = process.env['FOGHORN_BASELINE'];
  if (baseline) {
    const cli = join(baseline, 'packages/foghorn/dist/src/cli.js');
    targets.push({ name: 'baseline', start: (corefile, port, dir, options) => startFoghorn(corefile, port, dir, { ...options, cli }) });
  }
  const coredns = process.env['COREDNS_BINARY'];
  if (coredns) targets.push({ name: 'coredns', start: (corefile, port, dir, options) => startCoreDns(coredns, corefile, port, dir, options) });
  const pki = makeTestPki();
  let failed = false;
  try {
    for (const scenario of chosen) {
      for (const target of targets) {
        const result = await runScenario(target, scenario, pki);
        console.log(formatResult(result));
        if (target.name === 'foghorn' && (!result.alive || Object.values(result.clients).some((c) => c.times.length < c.asked))) failed = true;
      }
    }
    if (workerKill) {
      const kill = await killWorkerUnderLoad(WORKER_KILL_QPS);
      console.log(formatKill(kill, WORKER_KILL_QPS));
      const refused = (statuses: number[]): number => statuses.filter((status) => status !== 200).length;
      if (kill.lost > kill.inFlightAtKill || refused(kill.ready) > 1 || refused(kill.metrics) > 1) failed = true;
    }
  } finally {
    pki.remove();
  }
  process.exitCode = failed ? 1 : 0;
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
