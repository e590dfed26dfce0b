/**
 * Running what the reliability runs attack: the real `foghorn` CLI in a child process (a crash
 * is an exit, a hang is a query that gets no answer) serving Corefile.example on free ports, and
 * Knot DNS (`knotd`, Debian package `knot`) as the reference for the UDP burst.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freeTcpPort, httpGet, makeQuery, udpExchange } from '@foghorn/testkit';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const cliPath = join(repoRoot, 'packages/foghorn/dist/src/cli.js');

/** A process under test: its pid, its output as it comes, and how it ended. */
export interface Child {
  readonly process: ChildProcess;
  readonly port: number;
  /** Lines written so far that start with `[ERROR]` or mention a panic. */
  readonly errors: string[];
  /** Lines written so far (kept only when `keepOutput`). */
  readonly output: string[];
  exitCode: number | null | undefined;
  /** Counts the lines matching `pattern` from now on. */
  count(pattern: RegExp): () => number;
  stop(): Promise<void>;
}

/** The ports Corefile.example uses, replaced by free ones. */
export interface ExamplePorts {
  readonly dns: number;
  readonly health: number;
  readonly ready: number;
  readonly metrics: number;
}

/**
 * Corefile.example with free ports and its manifests in `manifests` (a copy the run may churn),
 * plus any `extra` lines inside the `.` block.
 */
export async function exampleCorefile(ports: ExamplePorts, manifests: string): Promise<string> {
  const text = await readFile(join(repoRoot, 'Corefile.example'), 'utf8');
  return text
    .replaceAll(':1053', `:${ports.dns}`)
    .replaceAll('127.0.0.1:8080', `127.0.0.1:${ports.health}`)
    .replaceAll('127.0.0.1:8181', `127.0.0.1:${ports.ready}`)
    .replaceAll('127.0.0.1:9153', `127.0.0.1:${ports.metrics}`)
    .replaceAll('manifests examples/clusterset', `manifests ${manifests}`);
}

/** A scratch directory with a copy of examples/clusterset, removed by `close`. */
export async function scratch(): Promise<{ dir: string; manifests: string; close(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'foghorn-reliability-'));
  const manifests = join(dir, 'clusterset');
  await cp(join(repoRoot, 'examples/clusterset'), manifests, { recursive: true });
  return { dir, manifests, close: () => rm(dir, { recursive: true, force: true }) };
}

export async function examplePorts(): Promise<ExamplePorts> {
  return { dns: await freeTcpPort(), health: await freeTcpPort(), ready: await freeTcpPort(), metrics: await freeTcpPort() };
}

/** How to start a server under test: output kept, extra arguments, a shell prefix for other limits. */
export interface StartOptions {
  readonly keepOutput?: boolean;
  readonly args?: string[];
  /** A shell prefix (`ulimit -n 1024 &&`) to start the server with other limits. */
  readonly shell?: string;
  /** Another build's cli.js (a baseline checkout); this repository's by default. */
  readonly cli?: string;
}

/** Starts `foghorn -conf FILE` on `corefile` and waits until it answers on `port`. */
export async function startFoghorn(corefile: string, port: number, dir: string, options: StartOptions = {}): Promise<Child> {
  const file = join(dir, `Corefile.${port}`);
  await writeFile(file, corefile);
  return track(spawnUnder(options.shell, process.execPath, [options.cli ?? cliPath, '-conf', file, ...(options.args ?? [])]), port, options.keepOutput ?? false, () => answers(port));
}

/** Starts CoreDNS (`binary`, e.g. COREDNS_BINARY) on `corefile`, for side-by-side runs; never in npm test. */
export async function startCoreDns(binary: string, corefile: string, port: number, dir: string, options: StartOptions = {}): Promise<Child> {
  const file = join(dir, `Corefile.coredns.${port}`);
  await writeFile(file, corefile);
  return track(spawnUnder(options.shell, binary, ['-conf', file, ...(options.args ?? [])]), port, options.keepOutput ?? false, () => answers(port));
}

function spawnUnder(shell: string | undefined, command: string, args: readonly string[]): ChildProcess {
  const stdio: ['ignore', 'pipe', 'pipe'] = ['ignore', 'pipe', 'pipe'];
  return shell ? spawn('bash', ['-c', `${shell} exec "$0" "$@"`, command, ...args], { cwd: repoRoot, stdio }) : spawn(command, args, { cwd: repoRoot, stdio });
}

/** Starts knotd with one UDP worker serving `example.` on `port` (the burst reference). */
export async function startKnot(port: number, dir: string): Promise<Child> {
  const zone = join(dir, 'example.zone');
  await writeFile(zone, '$ORIGIN example.\n$TTL 3600\n@ SOA ns hostmaster 1 3600 600 86400 300\n@ NS ns\nns A 192.0.2.1\nwww A 192.0.2.2\n');
  const conf = join(dir, `knot.${port}.conf`);
  await writeFile(
    conf,
    [
      'server:',
      `    rundir: "${dir}"`,
      `    listen: 127.0.0.1@${port}`,
      '    udp-workers: 1',
      '    tcp-workers: 1',
      '    background-workers: 1',
      'database:',
      `    storage: "${dir}"`,
      'log:',
      '  - target: stderr',
      '    any: error',
      'zone:',
      '  - domain: example.',
      `    file: "${zone}"`,
      '',
    ].join('\n'),
  );
  const child = spawn('knotd', ['-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
  return track(child, port, true, () => answers(port, 'www.example'));
}

async function answers(port: number, name = 'whoami.example.org'): Promise<boolean> {
  return (await udpExchange({ port }, makeQuery(name, 'A'), 200).catch(() => null)) !== null;
}

async function track(child: ChildProcess, port: number, keepOutput: boolean, ready: () => Promise<boolean>): Promise<Child> {
  const counters: { pattern: RegExp; n: number }[] = [];
  const state: Child = {
    process: child,
    port,
    errors: [],
    output: [],
    exitCode: undefined,
    count(pattern) {
      const counter = { pattern, n: 0 };
      counters.push(counter);
      return () => counter.n;
    },
    async stop() {
      if (state.exitCode !== undefined) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
  const collect = (chunk: Buffer): void => {
    for (const line of chunk.toString().split('\n')) {
      if (line === '') continue;
      for (const counter of counters) if (counter.pattern.test(line)) counter.n++;
      if (line.startsWith('[ERROR]') || /panic/i.test(line)) state.errors.push(line);
      if (keepOutput) state.output.push(line);
    }
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  child.on('exit', (code, signal) => (state.exitCode = code ?? (signal ? -1 : null)));
  const deadline = Date.now() + 20_000;
  while (!(await ready())) {
    if (state.exitCode !== undefined) throw new Error(`${child.spawnfile} exited with ${state.exitCode}: ${state.output.join('\n')}`);
    if (Date.now() > deadline) {
      await state.stop();
      throw new Error(`${child.spawnfile} did not answer on port ${port}: ${state.output.join('\n')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return state;
}

/** What a process holds, read from /proc (no cooperation needed). */
export interface ProcessSample {
  readonly rssBytes: number;
  readonly descriptors: number;
}

export async function sampleProcess(pid: number): Promise<ProcessSample> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const rss = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
  const { readdir } = await import('node:fs/promises');
  const descriptors = (await readdir(`/proc/${pid}/fd`)).length;
  return { rssBytes: rss, descriptors };
}

/** Runtime figures from the prometheus endpoint: heap and active handles of the server's Node. */
export async function scrapeRuntime(metricsPort: number): Promise<{ heapUsedBytes: number; handles: number; openFds: number; panics: number }> {
  const body = (await httpGet(metricsPort, '/metrics')).text;
  const value = (name: string): number => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(body)?.[1] ?? NaN);
  return {
    heapUsedBytes: value('nodejs_heap_size_used_bytes'),
    handles: value('nodejs_active_handles_total'),
    openFds: value('process_open_fds'),
    panics: value('coredns_panics_total'),
  };
}

export const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
