/**
 * A Foghorn process whose memory the growth and memory benchmarks read: resident memory from
 * /proc (VmRSS, what a container's memory limit counts) and, through the memory-stats.ts preload,
 * the V8 heap in use after a full collection. The product carries no such code.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { v8Flags } from 'foghorn';
import { cli, foghornListening, here, stopChild, waitForPort } from './harness.js';

/** process.memoryUsage() after a full GC, as memory-stats.ts writes it; bytes. */
export interface HeapFigures {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

/** One reading: VmRSS as found (before any forced GC), then the figures after a full GC. */
export interface MemoryReading {
  /** VmRSS before the forced collection, bytes. */
  rss: number;
  afterGc: HeapFigures;
}

export interface ProbedFoghorn {
  readonly child: ChildProcess;
  /** The first listener's port on 127.0.0.1. */
  readonly port: number;
  read(): Promise<MemoryReading>;
  stop(): Promise<void>;
}

/** VmRSS of a process from /proc, bytes. */
export function vmRss(pid: number): number {
  const line = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(line?.[1]) * 1024;
}

export interface ProbeOptions {
  /** Where the run's files go (the Corefile is written by the caller). */
  readonly dir: string;
  readonly name: string;
  /** Cores to pin the server to (taskset), or undefined for none. */
  readonly cpus?: string;
  /** A directory for heap snapshots at each reading (FOGHORN_BENCH_HEAP_SNAPSHOTS). */
  readonly heapSnapshots?: string;
  /** Extra node flags, e.g. `--trace-gc`. */
  readonly nodeFlags?: readonly string[];
}

/**
 * Starts `foghorn -conf corefile` with the memory-stats preload and the V8 flags the image and
 * `npm start` give it (packages/foghorn/src/v8-flags.ts): the young generation's size is part of
 * what resident memory is. Resolves once it listens.
 */
export async function startProbed(corefile: string, options: ProbeOptions): Promise<ProbedFoghorn> {
  const statsFile = join(options.dir, `memory-${options.name}.json`);
  const preload = pathToFileURL(here('./peers/memory-stats.js')).href;
  const args = ['--expose-gc', ...v8Flags, ...(options.nodeFlags ?? []), '--import', preload, cli, '-conf', corefile];
  const [command, argv] = options.cpus ? ['taskset', ['-c', options.cpus, process.execPath, ...args]] : [process.execPath, args];
  // taskset execs node, so the child's pid is the server's. cwd: the repository, where
  // Corefile.example's relative paths point.
  const child = spawn(command, argv, {
    cwd: here('../..'),
    env: { ...process.env, FOGHORN_BENCH_MEMORY: statsFile, ...(options.heapSnapshots ? { FOGHORN_BENCH_HEAP_SNAPSHOTS: options.heapSnapshots } : {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const port = await waitForPort(child, foghornListening);
  return {
    child,
    port,
    async read(): Promise<MemoryReading> {
      const rss = vmRss(child.pid!);
      rmSync(statsFile, { force: true });
      child.kill('SIGUSR2');
      // A heap snapshot of a large index takes seconds.
      for (let i = 0; i < 3000 && !existsSync(statsFile); i++) await new Promise((resolve) => setTimeout(resolve, 20));
      // The file appears before its content on a slow machine: retry a parse that fails.
      for (let i = 0; ; i++) {
        try {
          const afterGc = JSON.parse(readFileSync(statsFile, 'utf8')) as HeapFigures & { collected: boolean };
          if (!afterGc.collected) throw new Error('the server ran without --expose-gc');
          return { rss, afterGc };
        } catch (error) {
          if (i > 50) throw error;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    },
    stop: () => stopChild(child),
  };
}

export const mb = (bytes: number): string => (bytes / 1048576).toFixed(1);
