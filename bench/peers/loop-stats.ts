/**
 * Preloaded into a server by `npm run bench:dnsperf` (`node --import`), never part of Foghorn:
 * reports the event loop's delay (`monitorEventLoopDelay`) and garbage-collection pauses
 * (`PerformanceObserver` 'gc') from inside the process, so the product carries no per-query cost.
 *
 * Idle until a SIGUSR2, which starts measuring; the next SIGUSR2 writes what was seen since as
 * JSON to the file named by FOGHORN_BENCH_STATS and stops, until the one after. Between
 * measurements the process runs without either: the delay's 1 ms timer costs the server CPU
 * (a Node timer firing is 25-45 µs here), which the figures compared with other servers must
 * not include.
 */
import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import type { IntervalHistogram } from 'node:perf_hooks';

const file = process.env['FOGHORN_BENCH_STATS'];
/** 1 ms: the default 10 ms would hide the delays a 10,000 QPS tail cares about. */
const resolutionMs = 1;
if (file) {
  let delay: IntervalHistogram | undefined;
  let gc = { count: 0, totalMs: 0, maxMs: 0 };
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gc.count++;
      gc.totalMs += entry.duration;
      gc.maxMs = Math.max(gc.maxMs, entry.duration);
    }
  });
  process.on('SIGUSR2', () => {
    if (delay) {
      delay.disable();
      observer.disconnect();
      // The histogram records the time between two ticks of a timer that fires every
      // `resolution` ms (node's RecordDelta), so an idle loop shows 1 ms: the delay is the rest.
      const ms = (ns: number): number => Math.max(0, ns / 1e6 - resolutionMs);
      writeFileSync(file, JSON.stringify({ loopP50Ms: ms(delay.percentile(50)), loopP99Ms: ms(delay.percentile(99)), loopMaxMs: ms(delay.max), gc }));
      delay = undefined;
      return;
    }
    gc = { count: 0, totalMs: 0, maxMs: 0 };
    observer.observe({ entryTypes: ['gc'] });
    delay = monitorEventLoopDelay({ resolution: resolutionMs });
    delay.enable();
  });
}
