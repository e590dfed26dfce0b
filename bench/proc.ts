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
