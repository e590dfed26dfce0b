/** Process figures the benchmarks read from Linux's /proc. */
import { readFileSync } from 'node:fs';

/** Linux's USER_HZ: /proc/PID/stat counts CPU time in these ticks. */
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) a process has used, from /proc; NaN where there is none. */
export function cpuSeconds(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

/**
 * CPU seconds of a process and every descendant alive now (`foghorn -workers N`: the primary
 * and its workers), from /proc's children lists.
 */
export function treeCpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  let total = cpuSeconds(pid);
  // Gone, or a kernel without children lists: the process's own time is all there is.
  for (const child of childrenOf(pid)) total += treeCpuSeconds(child);
  return total;
}

/**
 * Milliseconds the hypervisor ran something else while these CPUs wanted to run ("steal",
 * the eighth figure of a `cpuN` line of /proc/stat), summed; NaN without the figure. Read
 * before and after a tail run: a millisecond stolen from the server's core stalls every query
 * waiting there, which no server can help, so the tail columns show it beside p99.9.
 */
export function stealMs(cpus: readonly number[]): number {
  try {
    const lines = readFileSync('/proc/stat', 'utf8').split('\n');
    let ticks = 0;
    for (const cpu of cpus) {
      const fields = lines.find((line) => line.startsWith(`cpu${cpu} `))?.trim().split(/\s+/);
      ticks += Number(fields?.[8]);
    }
    return (ticks * 1000) / TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

/** Resident memory of a process tree, kB: VmRSS now and VmHWM (the peak so far), each summed. */
export interface TreeMemory {
  readonly rssKb: number;
  readonly hwmKb: number;
  /** How many processes were summed (`-workers N`: the primary and N workers). */
  readonly processes: number;
}

/**
 * VmRSS and VmHWM of a process and every descendant alive now, from /proc, summed: what the
 * processes of one container hold together (each VmHWM is that process's own peak, so the sum
 * is an upper bound of the tree's peak).
 */
export function treeMemory(pid: number): TreeMemory {
  let rssKb = 0;
  let hwmKb = 0;
  let processes = 0;
  const visit = (at: number): void => {
    try {
      const status = readFileSync(`/proc/${at}/status`, 'utf8');
      rssKb += Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? 0);
      hwmKb += Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1] ?? 0);
      processes++;
    } catch {
      return; // Gone meanwhile.
    }
    for (const child of childrenOf(at)) visit(child);
  };
  visit(pid);
  return { rssKb, hwmKb, processes };
}

/** The pids of a process's children, from /proc; none when it is gone. */
export function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * A process's resident memory now (VmRSS) and its peak since it started (VmHWM), in MB
 * (10^6 bytes), from /proc/PID/status; undefined once it is gone.
 */
export function memoryMb(pid: number | undefined): { rssMb: number; hwmMb: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssMb: (kb('VmRSS') * 1024) / 1e6, hwmMb: (kb('VmHWM') * 1024) / 1e6 };
  } catch {
    return undefined;
  }
}
