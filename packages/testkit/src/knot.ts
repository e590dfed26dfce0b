/**
 * A real primary for zone-transfer tests: Knot DNS (`knotd`, Debian's `knot`, installed by
 * scripts/test-tools.sh) on 127.0.0.1 and a port of the test's choosing, serving zones from
 * text, answering AXFR to loopback clients, and sending NOTIFY to the secondaries named. The
 * test changes a zone with `setZone` (Knot reloads it and notifies), stops the primary to see a
 * secondary retry and expire, and starts it again on the same port.
 */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freeDnsPort } from './http.js';
import { makeQuery, udpExchange } from './index.js';
import { eventually } from './wait.js';

const run = promisify(execFile);

export interface KnotOptions {
  /** Zone text by origin (`example.org.`), RFC 1035 master file syntax. */
  readonly zones: Readonly<Record<string, string>>;
  /** `host:port` of secondaries sent NOTIFY when a zone loads or changes. */
  readonly notify?: readonly string[];
  /** The port to listen on (UDP and TCP); a free one by default. */
  readonly port?: number;
}

export interface Knot {
  readonly port: number;
  /** `127.0.0.1:PORT`, as a Corefile's `transfer from` takes it. */
  readonly address: string;
  /** Replaces a zone's text and has Knot reload it; Knot sends NOTIFY when the serial grew. */
  setZone(origin: string, text: string): Promise<void>;
  /** Stops knotd (the primary goes away); `start` brings it back on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops knotd and removes its files. */
  close(): Promise<void>;
  /** What knotd printed, for a failing test's message. */
  readonly output: string[];
}

/** Starts knotd with `options.zones` and waits until it answers each zone's SOA. */
export async function startKnot(options: KnotOptions): Promise<Knot> {
  const dir = mkdtempSync(join(tmpdir(), 'foghorn-knot-'));
  const port = options.port ?? (await freeDnsPort());
  const origins = Object.keys(options.zones);
  const fileOf = (origin: string): string => join(dir, `${origin}zone`);
  for (const origin of origins) writeFileSync(fileOf(origin), options.zones[origin]!);
  const socket = join(dir, 'knot.sock');
  const conf = join(dir, 'knot.conf');
  const notify = options.notify ?? [];
  const lines = [
    'server:',
    `    rundir: "${dir}"`,
    `    listen: 127.0.0.1@${port}`,
    '    udp-workers: 1',
    '    tcp-workers: 1',
    '    background-workers: 1',
    'control:',
    `    listen: "${socket}"`,
    'database:',
    `    storage: "${dir}"`,
    'log:',
    '  - target: stderr',
    '    any: info',
    'acl:',
    '  - id: loopback',
    '    address: 127.0.0.0/8',
    '    action: transfer',
  ];
  if (notify.length > 0) {
    lines.push('remote:');
    notify.forEach((address, i) => {
      const colon = address.lastIndexOf(':');
      lines.push(`  - id: secondary${i}`, `    address: ${address.slice(0, colon)}@${address.slice(colon + 1)}`);
    });
  }
  lines.push('template:', '  - id: default', '    acl: loopback', '    zonefile-sync: -1', '    journal-content: none');
  if (notify.length > 0) lines.push(`    notify: [${notify.map((_, i) => `secondary${i}`).join(', ')}]`);
  lines.push('zone:');
  for (const origin of origins) lines.push(`  - domain: ${origin}`, `    file: "${fileOf(origin)}"`);
  writeFileSync(conf, lines.join('\n') + '\n');

  const output: string[] = [];
  let child: ChildProcess | undefined;
  const answers = async (): Promise<boolean> => {
    for (const origin of origins) {
      const reply = await udpExchange({ port }, makeQuery(origin, 'SOA'), 200).catch(() => null);
      if (reply === null || (reply[3]! & 0x0f) !== 0) return false;
    }
    return true;
  };
  const start = async (): Promise<void> => {
    const process = spawn('knotd', ['-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = process;
    const collect = (chunk: Buffer): void => {
      for (const line of chunk.toString().split('\n')) if (line !== '') output.push(line);
    };
    process.stdout!.on('data', collect);
    process.stderr!.on('data', collect);
    await new Promise<void>((resolve, reject) => {
      process.once('spawn', resolve);
      process.once('error', reject);
    });
    await eventually(async () => {
      if (process.exitCode !== null) throw new Error(`knotd exited with ${process.exitCode}:\n${output.join('\n')}`);
      return answers();
    }, 10_000, `knotd on port ${port} to serve ${origins.join(' ')}`);
  };
  const stop = async (): Promise<void> => {
    const process = child;
    child = undefined;
    if (process === undefined || process.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => process.once('exit', () => resolve()));
    process.kill('SIGTERM');
    const timer = setTimeout(() => process.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  await start();
  return {
    port,
    address: `127.0.0.1:${port}`,
    output,
    async setZone(origin, text) {
      writeFileSync(fileOf(origin), text);
      await run('knotc', ['-s', socket, 'zone-reload', origin]);
    },
    stop,
    start,
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
