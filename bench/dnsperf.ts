/**
 * `npm run bench:dnsperf`: Foghorn against other DNS servers under Debian's `dnsperf`, the load
 * generator operators use. Next to `npm run bench` (our own Node load generator against the naive
 * responder), this one measures with a client we did not write and compares with peers:
 *
 * - raw: a dgram server answering canned bytes with only the ID patched (the Node UDP ceiling);
 * - naive: dgram + dns-packet decode, build, encode (`naive-responder.ts`);
 * - dns2: the npm `dns2` package's UDP server;
 * - miekg: a Go whoami on miekg/dns (the library CoreDNS is built on), built here from
 *   Debian's sources;
 * - knot, unbound: when installed, answering from a zone with a wildcard;
 * - relay: for forwarding scenarios instead of the above, a dgram relay that rewrites the ID and
 *   maps the upstream's reply back without decoding;
 * - dnsdist: for forwarding scenarios, when installed, PowerDNS's dnsdist forwarding to the same
 *   upstream (C++, no packet cache);
 * - upstream: for forwarding scenarios, the upstream itself, asked directly: the latency a
 *   forwarder adds is its tail against this one's;
 * - coredns: for scenarios that give a CoreDNS Corefile (cache-file), a real CoreDNS on the same
 *   job, from the binary COREDNS_BINARY names (never part of the repository; without it the run
 *   says so and goes on without the peer). Go follows the CPU affinity, so it runs on one core too.
 *
 * Every row also gives the server process's resident memory (VmRSS) after the measured rounds and
 * its peak (VmHWM) from start to then, from /proc: a container's limit kills on the peak.
 *
 * Foghorn and the Node peers run with the V8 flags the container image gives Foghorn
 * (packages/foghorn/src/v8-flags.ts), so a ratio compares code with code.
 * Every server runs pinned to BENCH_SERVER_CPUS (default core 0) and dnsperf to BENCH_CLIENT_CPUS
 * (default core 1), with this process, which drains the servers' output. Rounds are interleaved (round 1 of every server, then round 2, …) so a change
 * in the machine's load touches them all alike; each figure is the median over the rounds, and
 * Foghorn's ratio to a peer is the median of the per-round ratios. A
 * steady-rate run (BENCH_TAIL_QPS, default 10,000 QPS, after a lead-in at that rate) then gives the tail: p99 and p99.9, and
 * for Foghorn the event loop's delay and GC pauses seen from inside (bench/peers/loop-stats.ts,
 * preloaded; the product has no such code; measured in a second run right after each tail run,
 * since the measuring costs CPU), and for every server the CPU time the hypervisor
 * took from the server's cores meanwhile ("steal", /proc/stat), which no server can help, and
 * the server's CPU per query at that rate (the median over the rounds: steal is not counted in
 * a process's CPU time, so it compares servers and variants of a chain where saturated QPS
 * moves by a quarter from round to round). Tail
 * runs are interleaved rounds too (BENCH_TAIL_ROUNDS): a tail is what a few stalls of the
 * machine make it, so one run per server compared servers by their luck. Each server's row shows
 * its run of median p99, whole, so its p99.9 and steal belong together, and the loop figures of
 * the same round.
 *
 * Scenarios are the `scenario-*.js` modules `npm run bench` uses; pass names to run some:
 * `npm run bench:dnsperf -- whoami forward`. `workers` is whoami under `-workers 2`, and
 * `kubernetes` needs a scenario-kubernetes module: each runs when Foghorn has it.
 * Environment: BENCH_SECONDS (per round, default 5), BENCH_ROUNDS (default 3), BENCH_TAIL_QPS,
 * BENCH_TAIL_SECONDS (default 5; 0 skips the tail runs), BENCH_TAIL_ROUNDS (default 3), BENCH_TAIL_LEAD_SECONDS
 * (default 5: each tail run follows this long at its rate, unmeasured, so it is the steady rate's;
 * its p99 and p99.9 are printed with the run's), BENCH_QUIET_STEAL_MS
 * (default 100: the tail rounds in which the hypervisor took at most this from both Foghorn's run
 * and a peer's give that pair's p99 ratio, printed after the table), BENCH_WORKERS_CPUS (the `workers`
 * scenario's cores, default BENCH_SERVER_CPUS,BENCH_CLIENT_CPUS), BENCH_DNSPERF_ARGS (more
 * dnsperf arguments: `-m tcp -c 16`), BENCH_PEERS (comma-separated names:
 * raw, naive, dns2, miekg, knot, unbound, relay, dnsdist, upstream, coredns; `none` for no peer), BENCH_CPU_PROF (a directory:
 * Foghorn runs under `node --cpu-prof` and leaves `foghorn-<scenario>.cpuprofile` there),
 * BENCH_KEEP_DAMON=1 (leave the kernel's access monitor running: by default a run pauses it, damon.ts says why),
 * BENCH_BASELINE (another built checkout, e.g. `git archive` of the commit before a change with
 * `node_modules` and `npm run build`: its Foghorn runs as one more server in the same rounds, so
 * an optimisation's before and after are measured side by side on a busy machine). A scenario's
 * `variants` (Foghorn with other Corefiles, such as the same chain without log and prometheus)
 * run in the same rounds too.
 * It is a benchmark: nothing here asserts a time.
 */
import { saveResults } from './results.js';
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import dgram from 'node:dgram';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import dnsPacket from 'dns-packet';
import { v8Flags } from 'foghorn';
import { cli, foghornListening, here, loadScenario, scenarioNames, stopChild, waitForPort } from './harness.js';
import { pauseDamon, resumeDamon } from './damon.js';
import { memoryMb, stealMs, treeCpuSeconds } from './proc.js';
import type { ScenarioSetup } from './scenario.js';

const env = process.env;
const roundSeconds = Number(env['BENCH_SECONDS'] ?? 5);
const rounds = Number(env['BENCH_ROUNDS'] ?? 3);
const tailQps = Number(env['BENCH_TAIL_QPS'] ?? 10_000);
const tailSeconds = Number(env['BENCH_TAIL_SECONDS'] ?? 5);
const tailRounds = Number(env['BENCH_TAIL_ROUNDS'] ?? 3);
/** Seconds each server answers the tail's rate, unmeasured, right before each tail run. */
const tailLeadSeconds = Number(env['BENCH_TAIL_LEAD_SECONDS'] ?? 5);
/** A tail round is quiet for a pair of servers when the hypervisor took at most this from each run, ms. */
const quietStealMs = Number(env['BENCH_QUIET_STEAL_MS'] ?? 100);
const serverCpus = env['BENCH_SERVER_CPUS'] ?? '0';
const clientCpus = env['BENCH_CLIENT_CPUS'] ?? '1';
const onlyPeers = env['BENCH_PEERS']?.split(',');
/** The `workers` scenario's cores: by default the server's and dnsperf's, which then compete. */
const workersCpus = env['BENCH_WORKERS_CPUS'] ?? `${serverCpus},${clientCpus}`;
/** More dnsperf arguments, e.g. `-m tcp -c 16` for 16 TCP connections. */
const extraArgs = env['BENCH_DNSPERF_ARGS']?.split(/\s+/).filter(Boolean) ?? [];
const cpuProfileDir = env['BENCH_CPU_PROF'];
const baseline = env['BENCH_BASELINE'];
/** The issue's scenario list, in its order; `workers` and `kubernetes` are checked for below. */
const defaultScenarios = ['whoami', 'lighthouse', 'kubernetes', 'cache', 'cache-file', 'forward', 'corefile-example', 'workers'];

/** A server under test, listening on 127.0.0.1:port. */
interface Server {
  readonly name: string;
  readonly port: number;
  readonly process: ChildProcess;
  /** Event-loop delay and GC pauses (Foghorn only): `start` before a run, `read` after it. */
  readonly loopStats?: { start(): void; read(): Promise<LoopStats | undefined> };
}

interface LoopStats {
  loopP50Ms: number;
  loopP99Ms: number;
  loopMaxMs: number;
  gc: { count: number; totalMs: number; maxMs: number };
}

interface RunResult {
  qps: number;
  completed: number;
  lost: number;
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  /** Server CPU (user + system) per completed query, µs. */
  cpuUs: number;
  /** dnsperf's response-code line, e.g. `NOERROR 90 (90.00%), NXDOMAIN 10 (10.00%)`. */
  codes: string;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
};

/** The CPU numbers of a taskset list such as `0`, `0,1` or `0-3`. */
function cpuList(spec: string): number[] {
  return spec.split(',').flatMap((part) => {
    const [from, to = from] = part.split('-').map(Number);
    return Array.from({ length: to! - from! + 1 }, (_, i) => from! + i);
  });
}

/** Starts `command` pinned to the server cores (or `cpus`). */
function pinned(command: string, args: readonly string[], extraEnv: Record<string, string> = {}, cwd?: string, cpus = serverCpus): ChildProcess {
  // taskset execs the command, so the child's pid is the server's (its /proc CPU time).
  return spawn('taskset', ['-c', cpus, command, ...args], { env: { ...env, ...extraEnv }, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A free UDP port on 127.0.0.1 for servers that cannot be told to pick one (knot, unbound). */
function freePort(): Promise<number> {
  const socket = dgram.createSocket('udp4');
  return new Promise((resolve) =>
    socket.bind(0, '127.0.0.1', () => {
      const { port } = socket.address();
      socket.close(() => resolve(port));
    }),
  );
}

/** Resolves once 127.0.0.1:port answers a query over UDP (or rejects after ~10 s). */
async function answers(port: number, child: ChildProcess): Promise<void> {
  const socket = dgram.createSocket('udp4');
  const query = dnsPacket.encode({ type: 'query', id: 1, questions: [{ type: 'A', name: 'bench.example.org', class: 'IN' }] });
  try {
    await new Promise<void>((resolve, reject) => {
      let tries = 0;
      const timer = setInterval(() => {
        if (child.exitCode !== null || ++tries > 100) {
          clearInterval(timer);
          reject(new Error(`no answer on port ${port} (exit code ${child.exitCode})`));
        } else socket.send(query, port, '127.0.0.1');
      }, 100);
      socket.on('message', () => {
        clearInterval(timer);
        resolve();
      });
      socket.bind(0, '127.0.0.1');
    });
  } finally {
    socket.close();
  }
}

async function nodePeer(name: string, script: string, args: string[] = []): Promise<Server> {
  const child = pinned(process.execPath, [...v8Flags, here(script), ...args]);
  return { name, port: await waitForPort(child, /PORT (\d+)/), process: child };
}

/** The Go peer, built (once per source change) into a cache directory outside the repository. */
async function miekgPeer(): Promise<Server> {
  const source = here('../peers/miekg-whoami');
  const cache = join(tmpdir(), 'foghorn-bench-go');
  const binary = join(cache, 'miekg-whoami');
  mkdirSync(cache, { recursive: true });
  if (!existsSync(binary) || statSync(binary).mtimeMs < statSync(join(source, 'main.go')).mtimeMs) {
    // GOPATH mode against Debian's golang-github-miekg-dns-dev: no module proxy is needed.
    const build = spawnSync('go', ['build', '-o', binary, 'main.go'], {
      cwd: source,
      env: { ...env, GO111MODULE: 'off', GOPATH: '/usr/share/gocode', GOCACHE: join(cache, 'build-cache') },
      encoding: 'utf8',
    });
    if (build.status !== 0) throw new Error(`go build failed: ${build.error?.message ?? build.stderr}`);
  }
  const child = pinned(binary, []);
  return { name: 'miekg/dns (Go)', port: await waitForPort(child, /PORT (\d+)/), process: child };
}

/** Zone text answering every name under `origin` with 127.0.0.1 through a wildcard. */
function wildcardZone(origin: string): string {
  return `$ORIGIN ${origin}.\n$TTL 0\n@ SOA ns hostmaster 1 3600 600 86400 0\n@ NS ns\nns A 127.0.0.1\n* A 127.0.0.1\n`;
}
/** The zones the scenarios ask about (kubernetes: cluster.local); unbound would recurse for others. */
const zones = ['example.org', 'clusterset.local', 'cluster.local'];

async function knotPeer(dir: string): Promise<Server> {
  const port = await freePort();
  const home = mkdtempSync(join(dir, 'knot-'));
  for (const zone of zones) writeFileSync(join(home, `${zone}.zone`), wildcardZone(zone));
  writeFileSync(
    join(home, 'knot.conf'),
    [
      'server:',
      `    rundir: ${home}`,
      `    listen: 127.0.0.1@${port}`,
      '    udp-workers: 1',
      '    tcp-workers: 1',
      '    background-workers: 1',
      'database:',
      `    storage: ${home}`,
      'log:',
      '  - target: stderr',
      '    any: error',
      'zone:',
      ...zones.flatMap((zone) => [`  - domain: ${zone}`, `    file: ${join(home, `${zone}.zone`)}`]),
      '',
    ].join('\n'),
  );
  const child = pinned('knotd', ['-c', join(home, 'knot.conf')]);
  child.stdout!.resume();
  child.stderr!.resume();
  await answers(port, child);
  return { name: 'knot', port, process: child };
}

async function unboundPeer(dir: string): Promise<Server> {
  const port = await freePort();
  const home = mkdtempSync(join(dir, 'unbound-'));
  writeFileSync(
    join(home, 'unbound.conf'),
    [
      'server:',
      `    interface: 127.0.0.1@${port}`,
      '    do-ip6: no',
      '    do-tcp: no',
      '    num-threads: 1',
      '    do-daemonize: no',
      '    use-syslog: no',
      '    chroot: ""',
      '    username: ""',
      `    directory: "${home}"`,
      `    pidfile: "${join(home, 'unbound.pid')}"`,
      '    access-control: 127.0.0.0/8 allow',
      ...zones.flatMap((zone) => [`    local-zone: "${zone}." redirect`, `    local-data: "${zone}. 0 IN A 127.0.0.1"`]),
      'remote-control:',
      '    control-enable: no',
      '',
    ].join('\n'),
  );
  const child = pinned('unbound', ['-d', '-c', join(home, 'unbound.conf')]);
  child.stdout!.resume();
  child.stderr!.resume();
  await answers(port, child);
  return { name: 'unbound', port, process: child };
}

/**
 * dnsdist (PowerDNS's DNS load balancer, C++) forwarding to the scenario's upstream: a production
 * forwarder as a peer of forward, with no packet cache (dnsdist has one only when configured).
 * One backend whose health is checked hourly, so probes do not count; no security polling.
 */
async function dnsdistPeer(dir: string, upstreamPort: number): Promise<Server> {
  const port = await freePort();
  const config = join(dir, 'dnsdist.conf');
  writeFileSync(config, [`setLocal('127.0.0.1:${port}')`, "setSecurityPollSuffix('')", `newServer({ address = '127.0.0.1:${upstreamPort}', checkInterval = 3600 })`, ''].join('\n'));
  const child = pinned('dnsdist', ['--supervised', '--disable-syslog', '-C', config]);
  child.stdout!.resume();
  child.stderr!.resume();
  await answers(port, child);
  return { name: 'dnsdist', port, process: child };
}

/** A real CoreDNS serving the scenario's own job (`setup.coredns`), from COREDNS_BINARY. */
async function corednsPeer(dir: string, corefileFor: (port: number) => string): Promise<Server> {
  const binary = env['COREDNS_BINARY'];
  if (!binary) throw new Error('COREDNS_BINARY is not set: point it at a coredns binary to compare with CoreDNS');
  if (!existsSync(binary)) throw new Error(`COREDNS_BINARY '${binary}' does not exist`);
  const port = await freePort();
  const corefile = join(dir, 'Corefile-coredns');
  writeFileSync(corefile, corefileFor(port));
  const child = pinned(binary, ['-conf', corefile, '-quiet']);
  child.stdout!.resume();
  child.stderr!.resume();
  await answers(port, child);
  const version = spawnSync(binary, ['-version'], { encoding: 'utf8' }).stdout.split('\n')[0]?.trim();
  return { name: version || 'CoreDNS', port, process: child };
}

const installed = (command: string): boolean => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;

/** The peers for a scenario: forwarding ones get the relay and the upstream itself, answering ones the rest. */
function peersFor(setup: ScenarioSetup, dir: string): Array<[string, () => Promise<Server>]> {
  const upstream = setup.upstream;
  const all: Array<[string, () => Promise<Server>]> =
    upstream === undefined
      ? [
          ['raw', () => nodePeer('raw dgram (canned reply)', './peers/raw-responder.js')],
          ['naive', () => nodePeer('naive dgram + dns-packet', './naive-responder.js')],
          ['dns2', () => nodePeer('dns2 (npm)', './peers/dns2-responder.js')],
          ['miekg', miekgPeer],
          ...(installed('knotd') ? [['knot', () => knotPeer(dir)] as [string, () => Promise<Server>]] : []),
          ...(installed('unbound') ? [['unbound', () => unboundPeer(dir)] as [string, () => Promise<Server>]] : []),
        ]
      : [
          ['relay', () => nodePeer('naive dgram relay', './peers/naive-relay.js', [String(upstream.port)])],
          ...(installed('dnsdist') ? [['dnsdist', () => dnsdistPeer(dir, upstream.port)] as [string, () => Promise<Server>]] : []),
          ['upstream', () => Promise.resolve({ name: 'the upstream itself', port: upstream.port, process: upstream.process })],
        ];
  const corednsCorefile = setup.coredns;
  if (corednsCorefile !== undefined) all.unshift(['coredns', () => corednsPeer(dir, corednsCorefile)]);
  return all.filter(([name]) => !onlyPeers || onlyPeers.includes(name));
}

/**
 * Foghorn serving `corefileText`. `repository` is the checkout whose build runs (this one, or
 * BENCH_BASELINE's); `name` tells the files of one Foghorn from another's; `cpus` pins it.
 */
async function foghorn(corefileText: string, dir: string, name: string, args: readonly string[], label = 'Foghorn', repository = here('../..'), cpus = serverCpus): Promise<Server> {
  const corefile = join(dir, `Corefile-${name}`);
  const statsFile = join(dir, `loop-stats-${name}.json`);
  writeFileSync(corefile, corefileText);
  const preload = pathToFileURL(here('./peers/loop-stats.js')).href;
  const profile = cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfileDir}`, `--cpu-prof-name=foghorn-${name}.cpuprofile`] : [];
  const command = join(repository, relative(here('../..'), cli));
  // cwd: the repository, where Corefile.example's relative paths point.
  const child = pinned(process.execPath, [...v8Flags, ...profile, '--import', preload, command, '-conf', corefile, ...args], { FOGHORN_BENCH_STATS: statsFile }, repository, cpus);
  const port = await waitForPort(child, foghornListening);
  // loop-stats.ts starts measuring at a SIGUSR2 and writes the file, and stops, at the next.
  const loopStats = {
    start: (): void => void child.kill('SIGUSR2'),
    read: async (): Promise<LoopStats | undefined> => {
      rmSync(statsFile, { force: true });
      child.kill('SIGUSR2');
      for (let i = 0; i < 50 && !existsSync(statsFile); i++) await new Promise((resolve) => setTimeout(resolve, 20));
      return existsSync(statsFile) ? (JSON.parse(readFileSync(statsFile, 'utf8')) as LoopStats) : undefined;
    },
  };
  const shown = `${label}${args.length ? ` ${args.join(' ')}` : ''}${cpus === serverCpus ? '' : ` (CPU ${cpus})`}`;
  // Under -workers the signal reaches the primary, which serves nothing: no figure is better than its.
  if (args.includes('-workers')) return { name: shown, port, process: child };
  return { name: shown, port, process: child, loopStats };
}

/** One dnsperf run (pinned to the client cores) against a server; `-v` gives every latency. */
async function dnsperf(server: Server, queryFile: string, args: readonly string[], dir: string): Promise<RunResult> {
  const outFile = join(dir, 'dnsperf.out');
  const out = openSync(outFile, 'w');
  const before = treeCpuSeconds(server.process.pid);
  const child = spawn('taskset', ['-c', clientCpus, 'dnsperf', '-s', '127.0.0.1', '-p', String(server.port), '-d', queryFile, '-t', '2', '-v', ...extraArgs, ...args], {
    stdio: ['ignore', out, 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const cpu = treeCpuSeconds(server.process.pid) - before;
  closeSync(out);
  const text = readFileSync(outFile, 'utf8');
  if (code !== 0) throw new Error(`dnsperf exited with ${code}: ${stderr}${text.slice(-500)}`);
  const latencies: number[] = [];
  // Per-query lines: "> NOERROR name type 0.000123" (seconds); timeouts have no latency.
  for (let start = 0; start < text.length; ) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    if (text.charCodeAt(start) === 62 /* > */) {
      const seconds = Number(text.slice(text.lastIndexOf(' ', end) + 1, end));
      if (Number.isFinite(seconds)) latencies.push(seconds * 1000);
    }
    start = end + 1;
  }
  const sorted = Float64Array.from(latencies).sort();
  const at = (p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
  const figure = (label: RegExp): number => Number(label.exec(text)?.[1] ?? NaN);
  const completed = figure(/Queries completed:\s+(\d+)/);
  return {
    qps: figure(/Queries per second:\s+([\d.]+)/),
    completed,
    lost: figure(/Queries lost:\s+(\d+)/),
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    p999Ms: at(0.999),
    cpuUs: (cpu * 1e6) / completed,
    codes: /Response codes:\s+(.*)/.exec(text)?.[1] ?? '',
  };
}

/** One steady-rate run of a server. */
interface Tail {
  result: RunResult;
  /** CPU time the hypervisor took from the server's cores during the run, ms. */
  stealMs: number;
  loop: LoopStats | undefined;
}

interface Row {
  scenario: string;
  server: string;
  result: RunResult;
  tail?: RunResult;
  /** CPU time the hypervisor took from the server's cores during the tail run, ms. */
  tailStealMs?: number;
  /**
   * The server's CPU per query at the steady rate, median over the tail rounds. The kernel leaves
   * stolen time out of a process's CPU time, so on a busy host this compares servers (and
   * variants of one chain) better than saturated QPS does.
   */
  tailCpuUs?: number;
  loop?: LoopStats;
  /** Foghorn's QPS over the peer's, and the peer's CPU per query over Foghorn's: per round, then the median. */
  ratio?: { qps: number; cpu: number };
  /** The server process's VmRSS after the measured rounds and its VmHWM until then, MB. */
  memory?: { rssMb: number; hwmMb: number };
}

const fmt = (value: number, digits: number): string => (Number.isFinite(value) ? value.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '–');

function table(rows: Row[]): string {
  const lines = [
    '| scenario | server | QPS | p50 ms | p99 ms | CPU µs/q | Foghorn ÷ peer (QPS / CPU) | tail p99 ms | tail p99.9 ms | tail steal ms | tail CPU µs/q | loop delay p99 / max ms | GC pauses (n, max ms) | RSS / VmHWM MB |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const { scenario, server, result, tail, tailStealMs, tailCpuUs, loop, ratio, memory } of rows) {
    lines.push(
      `| ${scenario} | ${server} | ${fmt(result.qps, 0)} | ${fmt(result.p50Ms, 3)} | ${fmt(result.p99Ms, 3)} | ${fmt(result.cpuUs, 1)} | ${
        ratio ? `${fmt(ratio.qps, 2)} / ${fmt(ratio.cpu, 2)}` : ''
      } | ${tail ? fmt(tail.p99Ms, 3) : ''} | ${tail ? fmt(tail.p999Ms, 3) : ''} | ${tailStealMs === undefined ? '' : fmt(tailStealMs, 0)} | ${tailCpuUs === undefined ? '' : fmt(tailCpuUs, 1)} | ${
        loop ? `${fmt(loop.loopP99Ms, 2)} / ${fmt(loop.loopMaxMs, 1)}` : ''
      } | ${
        loop ? `${loop.gc.count}, ${fmt(loop.gc.maxMs, 2)}` : ''
      } | ${memory ? `${fmt(memory.rssMb, 0)} / ${fmt(memory.hwmMb, 0)}` : ''} |`,
    );
  }
  return lines.join('\n');
}

const foghornHelp = spawnSync(process.execPath, [cli, '-help'], { encoding: 'utf8' });
const hasFlag = (flag: string): boolean => new RegExp(`^\\s+-${flag}\\b`, 'm').test(`${foghornHelp.stdout}${foghornHelp.stderr}`);

/** The runs asked for: a scenario module, Foghorn's extra arguments, and the label. */
function plannedRuns(): Array<{ label: string; module: string; args: string[]; cpus?: string }> {
  const wanted = process.argv.slice(2);
  const modules = new Set(scenarioNames());
  const runs: Array<{ label: string; module: string; args: string[]; cpus?: string }> = [];
  for (const name of wanted.length ? wanted : defaultScenarios) {
    if (name === 'workers') {
      // On BENCH_WORKERS_CPUS: by default the server's core and dnsperf's, so on a 2-core
      // machine the workers compete with the load generator (set it to two free cores, on a
      // machine with three or more, to see them scale). The peers stay on one core.
      if (hasFlag('workers')) runs.push({ label: 'whoami, -workers 2', module: 'whoami', args: ['-workers', '2'], cpus: workersCpus });
      else console.error('skipped workers: Foghorn has no -workers flag yet');
    } else if (modules.has(name)) runs.push({ label: name, module: name, args: [] });
    else console.error(`skipped ${name}: no bench/scenario-${name}.ts yet`);
  }
  return runs;
}

async function stop(servers: Server[]): Promise<void> {
  await Promise.all(servers.map(({ process: child }) => stopChild(child)));
}

// This process drains every server's stdout, where log writes a line per query: a log reader
// is another process (in a pod, the container runtime), so it runs beside dnsperf and takes
// nothing from the server's core. On the server's core it cost log 0.72x against 0.82x.
spawnSync('taskset', ['-a', '-p', '-c', clientCpus, String(process.pid)], { stdio: 'ignore' });

// The kernel's access monitor stalls whichever core its scans land on (damon.ts): paused for the
// run, and started again however the run ends.
const pausedDamon = env['BENCH_KEEP_DAMON'] === '1' ? [] : pauseDamon();
process.on('exit', () => resumeDamon(pausedDamon));
for (const [signal, status] of [['SIGINT', 130], ['SIGTERM', 143]] as const) process.once(signal, () => process.exit(status));
const damonNote = pausedDamon.length > 0 ? `; DAMON paused (${pausedDamon.length} monitor${pausedDamon.length > 1 ? 's' : ''})` : '';

const dir = mkdtempSync(join(tmpdir(), 'foghorn-dnsperf-'));
const rows: Row[] = [];
/** Per scenario and peer, Foghorn's tail p99 over the peer's in the rounds quiet for both. */
const quietPairs: string[] = [];
const loadBefore = loadavg();
try {
  const help = spawnSync('dnsperf', ['-h'], { encoding: 'utf8' });
  const dnsperfVersion = /Version (\S+)/.exec(`${help.stdout}${help.stderr}`)?.[1] ?? '?';
  console.error(
    `dnsperf ${dnsperfVersion}, ${roundSeconds} s rounds × ${rounds} interleaved (median), tail at ${tailQps} QPS for ${tailSeconds} s × ${tailRounds} interleaved (median p99); ` +
      `server on CPU ${serverCpus}, dnsperf on CPU ${clientCpus}; node ${process.versions.node}; load ${loadBefore.map((l) => l.toFixed(2)).join(' ')}${damonNote}`,
  );
  for (const run of plannedRuns()) {
    const scenario = await loadScenario(run.module);
    const setup = await scenario.setup();
    const servers: Server[] = [];
    try {
      const queryFile = join(dir, `queries-${run.module}`);
      writeFileSync(queryFile, (setup.queries ?? [`${setup.queryName} ${setup.queryType}`]).join('\n') + '\n');
      servers.push(await foghorn(setup.corefile, dir, run.module, run.args, 'Foghorn', here('../..'), run.cpus));
      // -workers against the single process, in the same interleaved rounds.
      if (run.cpus !== undefined) servers.push(await foghorn(setup.corefile, dir, `${run.module}-single`, []));
      for (const [i, variant] of (setup.variants ?? []).entries()) {
        servers.push(await foghorn(variant.corefile, dir, `${run.module}-variant${i}`, run.args, `Foghorn ${variant.label}`));
      }
      if (baseline) servers.push(await foghorn(setup.corefile, dir, `${run.module}-baseline`, run.args, `Foghorn at ${baseline}`, baseline));
      for (const [name, start] of peersFor(setup, dir)) {
        try {
          servers.push(await start());
        } catch (error) {
          console.error(`skipped peer ${name}: ${(error as Error).message}`);
        }
      }
      // Warm-up (JIT, caches, the lighthouse index) for everyone before any measured round.
      for (const server of servers) await dnsperf(server, queryFile, ['-l', String(Math.max(1, Math.ceil(roundSeconds / 2)))], dir);
      const results = new Map<Server, RunResult[]>(servers.map((server) => [server, []]));
      for (let round = 0; round < rounds; round++) {
        for (const server of servers) {
          const result = await dnsperf(server, queryFile, ['-l', String(roundSeconds)], dir);
          results.get(server)!.push(result);
          console.error(`${run.label} round ${round + 1}: ${server.name} ${fmt(result.qps, 0)} qps, ${fmt(result.cpuUs, 1)} µs/q, lost ${result.lost}; ${result.codes}`);
        }
      }
      const medians = servers.map((server): Row => {
        const all = results.get(server)!;
        const pick = (key: Exclude<keyof RunResult, 'codes'>): number => median(all.map((result) => result[key]));
        const result: RunResult = { qps: pick('qps'), completed: pick('completed'), lost: pick('lost'), p50Ms: pick('p50Ms'), p99Ms: pick('p99Ms'), p999Ms: pick('p999Ms'), cpuUs: pick('cpuUs'), codes: all[0]!.codes };
        return { scenario: run.label, server: server.name, result, memory: memoryMb(server.process.pid) };
      });
      if (tailSeconds > 0) {
        const stealCpus = cpuList(run.cpus ?? serverCpus);
        const tails = new Map<Server, Tail[]>(servers.map((server) => [server, []]));
        for (let round = 0; round < tailRounds; round++) {
          for (const server of servers) {
            const tailArgs = ['-l', String(tailSeconds), '-Q', String(tailQps)];
            // The tail is the steady rate's, so every server first answers that rate unmeasured. It
            // has idled while the others ran, and V8 (Node 20) uncommits the young generation's
            // spare half at every scavenge while the last 5 s allocated under 1 KB a millisecond,
            // idle included: 3.4-3.9 ms pauses against 0.5-1.0 (docs/performance.md, "After an idle spell").
            const lead = tailLeadSeconds > 0 ? await dnsperf(server, queryFile, ['-l', String(tailLeadSeconds), '-Q', String(tailQps)], dir) : undefined;
            const steal = stealMs(stealCpus);
            const result = await dnsperf(server, queryFile, tailArgs, dir);
            const tail: Tail = { result, stealMs: stealMs(stealCpus) - steal, loop: undefined };
            // The loop delay and GC figures come from a run of their own, right after: the 1 ms
            // timer behind the delay cost Foghorn 6-11 µs of CPU per query at 10,000 QPS (37.5-43.8
            // against 48.5-49.1, three interleaved 10 s whoami runs), which the peers never pay.
            if (server.loopStats) {
              server.loopStats.start();
              await dnsperf(server, queryFile, tailArgs, dir);
              tail.loop = await server.loopStats.read();
            }
            tails.get(server)!.push(tail);
            const leadNote = lead ? `; the ${tailLeadSeconds} s before: p99 ${fmt(lead.p99Ms, 3)} ms, p99.9 ${fmt(lead.p999Ms, 3)} ms` : '';
            console.error(`${run.label} tail ${round + 1}: ${server.name} p99 ${fmt(result.p99Ms, 3)} ms, p99.9 ${fmt(result.p999Ms, 3)} ms, steal ${fmt(tail.stealMs, 0)} ms${leadNote}`);
          }
        }
        // A run's p99 follows the time stolen from it more than its server: the rounds the host
        // left both servers alone compare the servers (docs/performance.md, "Tail latency at a steady rate").
        const own = tails.get(servers[0]!)!;
        for (const server of servers.slice(1)) {
          const theirs = tails.get(server)!;
          const ratios = own.flatMap((mine, k) => (mine.stealMs <= quietStealMs && theirs[k]!.stealMs <= quietStealMs ? [mine.result.p99Ms / theirs[k]!.result.p99Ms] : []));
          const shown = ratios.length === 0 ? 'none' : ratios.map((ratio) => fmt(ratio, 2)).join(', ');
          quietPairs.push(`${run.label}, ${servers[0]!.name} ÷ ${server.name}: ${ratios.length} of ${tailRounds} rounds quiet: ${shown}`);
        }
        for (const [i, server] of servers.entries()) {
          const runs = [...tails.get(server)!].sort((a, b) => a.result.p99Ms - b.result.p99Ms);
          const { result, stealMs: steal, loop } = runs[Math.floor(runs.length / 2)]!;
          medians[i]!.tail = result;
          medians[i]!.tailStealMs = steal;
          medians[i]!.tailCpuUs = median(runs.map((run) => run.result.cpuUs));
          if (loop) medians[i]!.loop = loop;
        }
      }
      // Paired per round, then the median: round r of Foghorn and of a peer ran minutes apart at
      // most, so a slow spell of the machine moves both; a ratio of the two medians pairs rounds
      // that may have run in different spells.
      const own = results.get(servers[0]!)!;
      for (const [i, row] of medians.entries()) {
        if (i === 0) continue;
        const peer = results.get(servers[i]!)!;
        row.ratio = { qps: median(own.map((r, k) => r.qps / peer[k]!.qps)), cpu: median(own.map((r, k) => peer[k]!.cpuUs / r.cpuUs)) };
      }
      rows.push(...medians);
      // Each scenario's rows as soon as they are known: a later scenario that fails loses nothing.
      console.error(`\n${table(medians)}\n`);
    } finally {
      await stop(servers);
      await setup.cleanup();
    }
  }
  const loadAfter = loadavg();
  console.log(`dnsperf ${dnsperfVersion}; ${roundSeconds} s rounds × ${rounds}, interleaved, medians; tail: -Q ${tailQps} for ${tailSeconds} s × ${tailRounds}, interleaved, the run of median p99${damonNote}`);
  console.log(`load average before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${loadAfter.map((l) => l.toFixed(2)).join(' ')}\n`);
  console.log(table(rows));
  if (quietPairs.length > 0) console.log(`\nTail p99 ratios in the rounds with at most ${quietStealMs} ms stolen from each run (BENCH_QUIET_STEAL_MS):\n${quietPairs.join('\n')}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
saveResults('dnsperf');
