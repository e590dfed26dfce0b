/**
 * `npm run bench`: the hot path (receive → decode → zone → chain → encode → send) measured from
 * a separate process, next to the naive dgram + dns-packet responder on the same machine in the
 * same run. Each server runs in its own process; the load generator in another.
 *
 * Scenarios are the `scenario-*.js` modules beside this file (see scenario.ts); pass names to run
 * only some: `npm run bench -- whoami cache`.
 * Environment: BENCH_QUERIES (default 100000), BENCH_WINDOW (in-flight queries, default 64),
 * BENCH_ROUNDS (default 3; the best round of each server is reported).
 * Each line also gives the server's CPU time per query (user + system, from /proc) and the
 * ratio of the naive responder's to it: steadier than QPS on a shared machine.
 */
import { saveResults } from './results.js';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { v8Flags } from 'foghorn';
import { cli, foghornListening, here, loadScenario, scenarioNames, waitForPort } from './harness.js';
import { cpuSeconds } from './proc.js';

const queries = Number(process.env['BENCH_QUERIES'] ?? 100_000);
const window = Number(process.env['BENCH_WINDOW'] ?? 64);
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 3);

interface LoadResult {
  /** Server CPU time (user + system) per answered query, in microseconds; NaN without /proc. */
  cpuUsPerQuery: number;
  queries: number;
  answered: number;
  lost: number;
  seconds: number;
  qps: number;
  p50ms: number;
  p99ms: number;
}

function runLoad(port: number, name: string, type: string): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [here('./load.js'), String(port), String(queries), String(window), name, type]);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(output) as LoadResult) : reject(new Error(`load exited with ${code}`))));
  });
}

/**
 * Starts a server process, warms it up, and keeps the best of `rounds` loads. QPS depends on
 * what else the machine runs; the server's CPU time per query is the steadier figure.
 */
async function measure(child: ChildProcess, port: Promise<number>, name: string, type: string): Promise<LoadResult> {
  try {
    const p = await port;
    await runLoad(p, name, type); // warm-up: JIT, caches
    let best: LoadResult | undefined;
    for (let i = 0; i < rounds; i++) {
      const before = cpuSeconds(child.pid);
      const result = await runLoad(p, name, type);
      result.cpuUsPerQuery = ((cpuSeconds(child.pid) - before) * 1e6) / result.answered;
      if (!best || result.qps > best.qps) best = { ...result, cpuUsPerQuery: Math.min(result.cpuUsPerQuery, best?.cpuUsPerQuery ?? Infinity) };
      else best.cpuUsPerQuery = Math.min(best.cpuUsPerQuery, result.cpuUsPerQuery);
    }
    return best!;
  } finally {
    child.kill('SIGKILL');
  }
}

function line(title: string, result: LoadResult, extra = ''): string {
  const cpu = Number.isNaN(result.cpuUsPerQuery) ? '' : `   cpu ${result.cpuUsPerQuery.toFixed(1)} µs/q`;
  return `${title.padEnd(34)} ${result.qps.toFixed(0).padStart(8)} qps   p50 ${result.p50ms.toFixed(3)} ms   p99 ${result.p99ms.toFixed(3)} ms${cpu}   lost ${result.lost}${extra}`;
}

const wanted = process.argv.slice(2);
const names = scenarioNames().filter((name) => wanted.length === 0 || wanted.includes(name));

const dir = mkdtempSync(join(tmpdir(), 'foghorn-bench-'));
try {
  console.log(`UDP, ${queries} queries per round, ${window} in flight, best of ${rounds} rounds; node ${process.versions.node}`);
  // Both with the V8 flags the container image gives Foghorn (v8-flags.ts): code against code.
  const naiveChild = spawn(process.execPath, [...v8Flags, here('./naive-responder.js')]);
  const naive = await measure(naiveChild, waitForPort(naiveChild, /PORT (\d+)/), 'bench.example.org', 'A');
  console.log(line('naive dgram + dns-packet', naive));
  for (const name of names) {
    const scenario = await loadScenario(name);
    const setup = await scenario.setup();
    try {
      const corefile = join(dir, `Corefile-${name}`);
      writeFileSync(corefile, setup.corefile);
      const child = spawn(process.execPath, [...v8Flags, cli, '-conf', corefile]);
      const result = await measure(child, waitForPort(child, foghornListening), setup.queryName, setup.queryType);
      const ratio = result.qps / naive.qps;
      const cpuRatio = Number.isNaN(result.cpuUsPerQuery) ? '' : `, cpu ratio ${(naive.cpuUsPerQuery / result.cpuUsPerQuery).toFixed(2)}`;
      console.log(line(scenario.title, result, `   qps ratio ${ratio.toFixed(2)}${cpuRatio} (target >= ${scenario.targetRatio})`));
    } finally {
      await setup.cleanup();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
saveResults('bench');
