/**
 * DAMON, the kernel's data access monitor, when a machine runs it: a `kdamond` kernel thread per
 * monitor, set up through /sys/kernel/mm/damon/admin.
 *
 * Why a benchmark cares: on the development VM one kdamond samples all of physical memory for a
 * pageout scheme. Every half second it runs 2–4 ms at a stretch on whichever core it lands on,
 * preempting the server there or dnsperf (`perf record -e sched:sched_switch` during a tail run).
 * At 10,000 QPS those stretches hold up about 1 % of the queries, so they set the p99 of every
 * server, and which side of the 1 % a server falls on decides its tail. With the monitor paused,
 * lighthouse's p99 in two paired 10 s runs fell from 0.30 and 0.44 ms to 0.21 and 0.21, next
 * to the Go responder's 0.21/0.19 and 0.26/0.16.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ADMIN = '/sys/kernel/mm/damon/admin/kdamonds';

/**
 * The state files of the monitors that are on now; none where there is no DAMON, or where this
 * process may not read them (they are root's alone, mode 0600).
 */
function runningMonitors(): string[] {
  try {
    return readdirSync(ADMIN)
      .filter((name) => /^\d+$/.test(name))
      .map((name) => join(ADMIN, name, 'state'))
      .filter((state) => readFileSync(state, 'utf8').trim() === 'on');
  } catch {
    // Not root: the monitors keep running, and the run is measured with them.
    return [];
  }
}

/**
 * Turns off every running monitor and returns the state files it turned off (empty where there
 * was none, or where this process may not write them). Writing `on` starts a monitor again with
 * the settings still in its sysfs directory: {@link resumeDamon}.
 */
export function pauseDamon(): string[] {
  const paused: string[] = [];
  for (const state of runningMonitors()) {
    try {
      writeFileSync(state, 'off');
      paused.push(state);
    } catch {
      // Not root: the monitor keeps running, and the run is measured with it.
    }
  }
  return paused;
}

/** Starts again the monitors {@link pauseDamon} turned off. */
export function resumeDamon(paused: readonly string[]): void {
  for (const state of paused) {
    try {
      writeFileSync(state, 'on');
    } catch (error) {
      console.error(`could not turn DAMON back on (${state}): ${(error as Error).message}`);
    }
  }
}
