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
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    // Gone, or a kernel without children lists: the process's own time is all there is.
  }
  for (const child of children) total += treeCpuSeconds(child);
  return total;
}
