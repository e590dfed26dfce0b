/**
 * `npm run bench:growth`: does Foghorn's memory grow with the number of queries it has answered?
 * For each scenario (the `scenario-*.js` modules `npm run bench` uses) it starts Foghorn with the
 * memory-stats.ts preload, sends BENCH_GROWTH_QUERIES / 5 queries with Debian's `dnsperf` (1
 * million by default) and reads its memory, four more times (up to 5 million), and prints the
 * first and last reading with their ratio. The target is a ratio of at most 1.10 for every
 * scenario.
 *
 * Each reading is VmRSS from /proc as found after the load (what a container's limit counts),
 * then the V8 heap in use after a full garbage collection (the preload's `gc()`), which shows a
 * leak without the noise of garbage not yet collected. Queries cycle through the scenario's
 * list (lighthouse: 10,000 services, one in ten NXDOMAIN) or repeat its one name, so caches
 * fill during the first part and a store that keeps something per query shows in the second.
 *
 *   npm run bench:growth [-- SCENARIO...]    (default: whoami lighthouse kubernetes cache forward corefile-example)
 *
 * Environment: BENCH_GROWTH_QUERIES (default 5,000,000; the first reading is at a fifth of it),
 * BENCH_SERVER_CPUS / BENCH_CLIENT_CPUS (default 0 and 1, as bench:dnsperf),
 * BENCH_HEAP_SNAPSHOTS (a directory: a heap snapshot at each reading, to compare in DevTools),
 * BENCH_TRACE_GC (1: Foghorn runs with --trace-gc, its output in the run's directory, kept).
 * It is a benchmark: nothing here asserts a figure.
 */
import { saveResults } from './results.js';
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadScenario, scenarioNames } from './harness.js';
import { mb, startProbed } from './memory-probe.js';
import type { MemoryReading, ProbedFoghorn } from './memory-probe.js';

const env = process.env;
const total = Number(env['BENCH_GROWTH_QUERIES'] ?? 5_000_000);
const checkpoint = Math.round(total / 5);
const serverCpus = env['BENCH_SERVER_CPUS'] ?? '0';
const clientCpus = env['BENCH_CLIENT_CPUS'] ?? '1';
const traceGc = env['BENCH_TRACE_GC'] === '1';
const defaultScenarios = ['whoami', 'lighthouse', 'kubernetes', 'cache', 'forward', 'corefile-example'];

interface Load {
  sent: number;
  completed: number;
  seconds: number;
}

/**
 * Sends `queries` queries (whole passes through `queryFile`, `lines` long) with dnsperf pinned to
 * the client cores: 16 sockets, 100 in flight, as bench:dnsperf.
 */
async function load(foghorn: ProbedFoghorn, queryFile: string, lines: number, queries: number, dir: string): Promise<Load> {
  const outFile = join(dir, 'dnsperf.out');
  const out = openSync(outFile, 'w');
  const passes = Math.max(1, Math.round(queries / lines));
  const child = spawn('taskset', ['-c', clientCpus, 'dnsperf', '-s', '127.0.0.1', '-p', String(foghorn.port), '-d', queryFile, '-n', String(passes), '-c', '16', '-q', '100', '-t', '2'], {
    stdio: ['ignore', out, 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  closeSync(out);
  const text = readFileSync(outFile, 'utf8');
  if (code !== 0) throw new Error(`dnsperf exited with ${code}: ${stderr}${text.slice(-500)}`);
  const figure = (label: RegExp): number => Number(label.exec(text)?.[1] ?? NaN);
  return { sent: figure(/Queries sent:\s+(\d+)/), completed: figure(/Queries completed:\s+(\d+)/), seconds: figure(/Run time \(s\):\s+([\d.]+)/) };
}

interface Row {
  scenario: string;
  first: MemoryReading;
  last: MemoryReading;
  readings: MemoryReading[];
  sent: number;
  qps: number;
}

/** The after-GC figures that explain RSS: the heap V8 holds (used or not) and memory outside it. */
const detail = ({ afterGc }: MemoryReading): string =>
  `heap total ${mb(afterGc.heapTotal)} MB, external ${mb(afterGc.external)} MB (array buffers ${mb(afterGc.arrayBuffers)} MB), RSS after GC ${mb(afterGc.rss)} MB`;

const ratio = (a: number, b: number): string => (b / a).toFixed(3);

function table(rows: Row[]): string {
  const at = (queries: number): string => `${(queries / 1e6).toLocaleString('en')}M`;
  const span = `${at(checkpoint)} → ${at(total)}`;
  const lines = [
    `| scenario | RSS, ${span} | ratio | RSS after a full GC, ${span} | ratio | heap used after GC, ${span} | ratio | RSS at each ${at(checkpoint)}, MB | QPS |`,
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const { scenario, first, last, readings, qps } of rows) {
    const pair = (a: number, b: number): string => `${mb(a)} → ${mb(b)} MB | ${ratio(a, b)}`;
    lines.push(
      `| ${scenario} | ${pair(first.rss, last.rss)} | ${pair(first.afterGc.rss, last.afterGc.rss)} | ${pair(first.afterGc.heapUsed, last.afterGc.heapUsed)} | ${readings
        .map((r) => (r.rss / 1048576).toFixed(0))
        .join(', ')} | ${Math.round(qps).toLocaleString('en')} |`,
    );
  }
  return lines.join('\n');
}

const dir = mkdtempSync(join(tmpdir(), 'foghorn-growth-'));
const wanted = process.argv.slice(2);
const available = new Set(scenarioNames());
const rows: Row[] = [];
const loadBefore = loadavg();
const loadLine = (l: number[]): string => l.map((x) => x.toFixed(2)).join(' ');
console.error(`${total.toLocaleString('en')} queries per scenario, first reading at ${checkpoint.toLocaleString('en')}; server on CPU ${serverCpus}, dnsperf on CPU ${clientCpus}; node ${process.versions.node}; load ${loadLine(loadBefore)}`);
try {
  for (const name of wanted.length ? wanted : defaultScenarios) {
    if (!available.has(name)) {
      console.error(`skipped ${name}: no bench/scenario-${name}.ts`);
      continue;
    }
    const setup = await (await loadScenario(name)).setup();
    let foghorn: ProbedFoghorn | undefined;
    try {
      const queries = setup.queries ?? [`${setup.queryName} ${setup.queryType}`];
      const queryFile = join(dir, `queries-${name}`);
      writeFileSync(queryFile, queries.join('\n') + '\n');
      const corefile = join(dir, `Corefile-${name}`);
      writeFileSync(corefile, setup.corefile);
      foghorn = await startProbed(corefile, {
        dir,
        name,
        cpus: serverCpus,
        ...(env['BENCH_HEAP_SNAPSHOTS'] ? { heapSnapshots: env['BENCH_HEAP_SNAPSHOTS'] } : {}),
        ...(traceGc ? { nodeFlags: ['--trace-gc'] } : {}),
      });
      if (traceGc) {
        const trace = openSync(join(dir, `trace-gc-${name}.log`), 'w');
        foghorn.child.stdout!.on('data', (chunk: Buffer) => writeFileSync(trace, chunk));
      }
      // A reading after every fifth of the queries: the first and last make the table, the ones
      // between show whether memory levels off or keeps climbing.
      const readings: MemoryReading[] = [];
      let sent = 0;
      let completed = 0;
      let seconds = 0;
      for (let step = 1; step <= 5; step++) {
        const part = await load(foghorn, queryFile, queries.length, Math.round((total * step) / 5) - sent, dir);
        sent += part.sent;
        completed += part.completed;
        seconds += part.seconds;
        const reading = await foghorn.read();
        readings.push(reading);
        console.error(
          `${name}: ${sent.toLocaleString('en')} sent (${Math.round(part.completed / part.seconds).toLocaleString('en')} QPS): RSS ${mb(reading.rss)} MB (×${ratio(readings[0]!.rss, reading.rss)}), ` +
            `heap used ${mb(reading.afterGc.heapUsed)} MB after GC; ${detail(reading)}`,
        );
      }
      const first = readings[0]!;
      const last = readings[4]!;
      rows.push({ scenario: name, first, last, readings, sent, qps: completed / seconds });
    } finally {
      await foghorn?.stop();
      await setup.cleanup();
    }
  }
  console.log(`dnsperf -c 16 -q 100, ${total.toLocaleString('en')} queries per scenario; node ${process.versions.node}`);
  console.log(`load average before ${loadLine(loadBefore)}, after ${loadLine(loadavg())}\n`);
  console.log(table(rows));
} finally {
  if (traceGc) console.error(`--trace-gc output kept in ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
saveResults('growth');
