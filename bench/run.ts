/**
 * `npm run bench`: the hot path (receive → decode → zone → chain → encode → send) measured from
 * a separate process, next to the naive dgram + dns-packet responder on the same machine in the
 * same run. Each server runs in its own process; the load generator in another.
 *
 * Environment: BENCH_QUERIES (default 100000), BENCH_WINDOW (in-flight queries, default 64),
 * BENCH_ROUNDS (default 3; the best round of each server is reported).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = (file: string): string => fileURLToPath(new URL(file, import.meta.url));
const cli = fileURLToPath(new URL('../../packages/foghorn/dist/src/cli.js', import.meta.url));
const queries = Number(process.env['BENCH_QUERIES'] ?? 100_000);
const window = Number(process.env['BENCH_WINDOW'] ?? 64);
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 3);

interface LoadResult {
  queries: number;
  answered: number;
  lost: number;
  seconds: number;
  qps: number;
  p50ms: number;
  p99ms: number;
}

interface Scenario {
  readonly name: string;
  start(): { child: ChildProcess; port: Promise<number> };
}

function waitForPort(child: ChildProcess, pattern: RegExp): Promise<number> {
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = pattern.exec(output);
      if (match) resolve(Number(match[1]));
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
}

function runLoad(port: number): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [here('./load.js'), String(port), String(queries), String(window)]);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(output) as LoadResult) : reject(new Error(`load exited with ${code}`))));
  });
}

async function measure(scenario: Scenario): Promise<LoadResult> {
  const { child, port } = scenario.start();
  try {
    const p = await port;
    await runLoad(p); // warm-up: JIT, caches
    let best: LoadResult | undefined;
    for (let i = 0; i < rounds; i++) {
      const result = await runLoad(p);
      if (!best || result.qps > best.qps) best = result;
    }
    return best!;
  } finally {
    child.kill('SIGKILL');
  }
}

const dir = mkdtempSync(join(tmpdir(), 'foghorn-bench-'));
const corefile = join(dir, 'Corefile');
writeFileSync(corefile, '.:0 {\n    bind 127.0.0.1\n    whoami\n}\n');

const scenarios: Scenario[] = [
  {
    name: 'naive dgram + dns-packet',
    start: () => {
      const child = spawn(process.execPath, [here('./naive-responder.js')]);
      return { child, port: waitForPort(child, /PORT (\d+)/) };
    },
  },
  {
    name: 'foghorn whoami',
    start: () => {
      const child = spawn(process.execPath, [cli, '-conf', corefile]);
      return { child, port: waitForPort(child, /^\.:(\d+) on 127\.0\.0\.1$/m) };
    },
  },
];

try {
  console.log(`UDP whoami, ${queries} queries, ${window} in flight, best of ${rounds} rounds; node ${process.versions.node}`);
  const results: LoadResult[] = [];
  for (const scenario of scenarios) {
    const result = await measure(scenario);
    results.push(result);
    console.log(
      `${scenario.name.padEnd(28)} ${result.qps.toFixed(0).padStart(8)} qps   p50 ${result.p50ms.toFixed(3)} ms   p99 ${result.p99ms.toFixed(3)} ms   lost ${result.lost}`,
    );
  }
  const [naive, foghorn] = results;
  console.log(`ratio foghorn/naive: ${(foghorn!.qps / naive!.qps).toFixed(2)} (the chain may cost at most 25%: ratio >= 0.75)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
