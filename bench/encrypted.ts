/**
 * `npm run bench:encrypted`: Foghorn's whoami chain over plain UDP, TCP, DNS over TLS and DNS
 * over HTTPS (GET and POST), loaded by dnsperf (Debian package `dnsperf`, a client we did not
 * write) in one run against one server process, so the figures compare transports on the same
 * machine at the same moment. Every stream mode reuses its connections for the whole run (dnsperf
 * keeps BENCH_CLIENTS connections open; its "Reconnections" stays 0).
 *
 * Environment: BENCH_SECONDS per mode (default 10), BENCH_CLIENTS (connections or sockets,
 * default 4), BENCH_OUTSTANDING (queries in flight, default 64).
 * Prints QPS, p50 and p99 (from dnsperf's per-query latencies) and the server's CPU time per
 * query (user + system, from /proc).
 *
 * dnsperf 2.10's DoH client handles one response per read and aborts when two arrive together
 * ("frame received when already having a dns msg"; its source says "need to be able to receive
 * multiple responses at the same time"), so its DoH modes run 16 connections with 8 queries in
 * flight. h2load (Debian package `nghttp2-client`), when installed, adds a DoH GET row with
 * real HTTP/2 multiplexing: BENCH_CLIENTS connections, 16 streams each.
 */
import { saveResults } from './results.js';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTestPki } from '@foghorn/testkit';
import { cpuSeconds } from './proc.js';

const cli = fileURLToPath(new URL('../../packages/foghorn/dist/src/cli.js', import.meta.url));
const seconds = Number(process.env['BENCH_SECONDS'] ?? 10);
const clients = Number(process.env['BENCH_CLIENTS'] ?? 4);
const outstanding = Number(process.env['BENCH_OUTSTANDING'] ?? 64);

interface Mode {
  readonly name: string;
  readonly transport: 'dns' | 'tls' | 'https';
  readonly args: (port: number) => string[];
  /** Connections and queries in flight, when the mode cannot take the defaults. */
  readonly clients?: number;
  readonly outstanding?: number;
}

const modes: readonly Mode[] = [
  { name: 'UDP', transport: 'dns', args: () => ['-m', 'udp'] },
  { name: 'TCP', transport: 'dns', args: () => ['-m', 'tcp'] },
  { name: 'DoT', transport: 'tls', args: () => ['-m', 'dot'] },
  {
    name: 'DoH GET (HTTP/2)',
    transport: 'https',
    args: (port) => ['-m', 'doh', '-O', `doh-uri=https://127.0.0.1:${port}/dns-query`, '-O', 'doh-method=GET'],
    clients: 16,
    outstanding: 8,
  },
  {
    name: 'DoH POST (HTTP/2)',
    transport: 'https',
    args: (port) => ['-m', 'doh', '-O', `doh-uri=https://127.0.0.1:${port}/dns-query`, '-O', 'doh-method=POST'],
    clients: 16,
    outstanding: 8,
  },
];

interface Result {
  readonly qps: number;
  readonly answered: number;
  readonly lost: number;
  readonly p50ms: number;
  readonly p99ms: number;
  readonly cpuUsPerQuery: number;
}

/** Reads the listeners' ports from the CLI's zone lines (`tls://.:PORT on 127.0.0.1`). */
function waitForPorts(child: ChildProcess): Promise<Record<Mode['transport'], number>> {
  return new Promise((resolve, reject) => {
    let output = '';
    const collect = (chunk: Buffer): void => {
      output += chunk.toString();
      const dns = /^\.:(\d+) on/m.exec(output);
      const tls = /^tls:\/\/\.:(\d+) on/m.exec(output);
      const https = /^https:\/\/\.:(\d+) on/m.exec(output);
      if (!dns || !tls || !https) return;
      child.stdout!.off('data', collect);
      child.stdout!.resume();
      resolve({ dns: Number(dns[1]), tls: Number(tls[1]), https: Number(https[1]) });
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`foghorn exited with ${code}: ${output}`)));
  });
}

function run(command: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.resume();
    child.on('error', reject);
    child.on('exit', () => resolve(Buffer.concat(chunks).toString()));
  });
}

function dnsperf(args: readonly string[]): Promise<string> {
  return run('dnsperf', args).catch((error: Error) => {
    throw new Error(`dnsperf: ${error.message} (apt-get install dnsperf)`);
  });
}

/** DoH GET with h2load: `requests` over BENCH_CLIENTS connections of 16 streams; undefined without h2load. */
async function h2load(port: number, pid: number | undefined, requests: number): Promise<Result | undefined> {
  const wire = Buffer.from('000001000001000000000000076578616d706c65036f72670000010001', 'hex');
  const before = cpuSeconds(pid);
  let out: string;
  try {
    out = await run('h2load', ['-n', String(requests), '-c', String(clients), '-m', '16', `https://127.0.0.1:${port}/dns-query?dns=${wire.toString('base64url')}`]);
  } catch {
    return undefined;
  }
  const cpu = cpuSeconds(pid) - before;
  const done = Number(/(\d+) succeeded/.exec(out)?.[1] ?? NaN);
  const qps = Number(/finished in [\d.]+s, ([\d.]+) req\/s/.exec(out)?.[1] ?? NaN);
  // h2load gives min, max, mean and sd of request times, no percentiles: mean and mean + 2 sd are printed.
  const times = /time for request:\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)/.exec(out);
  const ms = (text: string | undefined): number => (text?.endsWith('us') ? Number.parseFloat(text) / 1000 : text?.endsWith('ms') ? Number.parseFloat(text) : Number.parseFloat(text ?? '') * 1000);
  const mean = ms(times?.[3]);
  return { qps, answered: done, lost: requests - done, p50ms: mean, p99ms: mean + 2 * ms(times?.[4]), cpuUsPerQuery: (cpu * 1e6) / done };
}

async function load(mode: Mode, port: number, queryFile: string, pid: number | undefined, duration: number): Promise<Result> {
  const before = cpuSeconds(pid);
  const c = String(mode.clients ?? clients);
  const q = String(mode.outstanding ?? outstanding);
  const out = await dnsperf(['-s', '127.0.0.1', '-p', String(port), '-d', queryFile, '-l', String(duration), '-c', c, '-q', q, '-v', ...mode.args(port)]);
  const cpu = cpuSeconds(pid) - before;
  // -v prints `> NOERROR example.org A 0.000123` per answered query.
  const latencies = [...out.matchAll(/^> \S+ \S+ \S+ ([\d.]+)$/gm)].map((m) => Number(m[1]) * 1000).sort((a, b) => a - b);
  const at = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  const qps = Number(/Queries per second:\s+([\d.]+)/.exec(out)?.[1] ?? NaN);
  const lost = Number(/Queries lost:\s+(\d+)/.exec(out)?.[1] ?? NaN);
  return { qps, answered: latencies.length, lost, p50ms: at(0.5), p99ms: at(0.99), cpuUsPerQuery: (cpu * 1e6) / latencies.length };
}

const pki = makeTestPki();
const queryFile = join(pki.dir, 'queries.txt');
writeFileSync(queryFile, ['example.org A', 'example.com AAAA', 'a.example.net A', 'b.example.net TXT'].join('\n') + '\n');
const corefile = join(pki.dir, 'Corefile');
writeFileSync(corefile, `.:0 tls://.:0 https://.:0 {\n    bind 127.0.0.1\n    tls ${pki.server.certFile} ${pki.server.keyFile}\n    whoami\n}\n`);
const server = spawn(process.execPath, [cli, '-conf', corefile], { stdio: ['ignore', 'pipe', 'pipe'] });
try {
  const ports = await waitForPorts(server);
  console.log(`dnsperf, ${seconds} s per mode, ${clients} connections reused for the whole run, ${outstanding} queries in flight\n`);
  console.log('| transport, connections × in flight | QPS | p50 | p99 | lost | server CPU per query |');
  console.log('|---|---|---|---|---|---|');
  for (const mode of modes) {
    await load(mode, ports[mode.transport], queryFile, server.pid, 1); // warm-up: JIT, TLS sessions
    const r = await load(mode, ports[mode.transport], queryFile, server.pid, seconds);
    if (Number.isNaN(r.qps)) {
      console.log(`| ${mode.name}, ${mode.clients ?? clients} × ${mode.outstanding ?? outstanding} | dnsperf aborted after ${r.answered} answers | | | | |`);
      continue;
    }
    console.log(`| ${mode.name}, ${mode.clients ?? clients} × ${mode.outstanding ?? outstanding} | ${Math.round(r.qps).toLocaleString('en')} | ${r.p50ms.toFixed(2)} ms | ${r.p99ms.toFixed(2)} ms | ${r.lost} | ${r.cpuUsPerQuery.toFixed(1)} µs |`);
  }
  await h2load(ports.https, server.pid, 2_000);
  const h2 = await h2load(ports.https, server.pid, Math.max(20_000, seconds * 3_000));
  if (h2) {
    console.log(`| DoH GET (h2load), ${clients} × 16 streams | ${Math.round(h2.qps).toLocaleString('en')} | ${h2.p50ms.toFixed(2)} ms (mean) | ${h2.p99ms.toFixed(2)} ms (mean + 2 sd) | ${h2.lost} | ${h2.cpuUsPerQuery.toFixed(1)} µs |`);
  } else console.log('\n(h2load not found: apt-get install nghttp2-client for the multiplexed DoH row)');
} finally {
  server.kill('SIGKILL');
  pki.remove();
}
saveResults('encrypted');
