/**
 * Preloaded into a server by `npm run bench:growth` and `npm run bench:memory` (`node --expose-gc
 * --import`), never part of Foghorn: on each SIGUSR2 it runs a full garbage collection and writes
 * `process.memoryUsage()` after it as JSON to the file named by FOGHORN_BENCH_MEMORY, so the
 * heap figure is what is live, not what the next collection would free. With
 * FOGHORN_BENCH_HEAP_SNAPSHOTS (a directory) it also writes a heap snapshot there each time, for
 * Chrome DevTools' Memory tab (compare two to see what grew).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';

const file = process.env['FOGHORN_BENCH_MEMORY'];
const snapshots = process.env['FOGHORN_BENCH_HEAP_SNAPSHOTS'];
const gc = (globalThis as { gc?: () => void }).gc;
if (file) {
  let taken = 0;
  process.on('SIGUSR2', () => {
    // Twice: the first collection can leave objects that only die once finalizers have run.
    gc?.();
    gc?.();
    const usage = process.memoryUsage();
    const snapshot = snapshots ? writeHeapSnapshot(join(snapshots, `foghorn-${process.pid}-${++taken}.heapsnapshot`)) : undefined;
    writeFileSync(file, JSON.stringify({ ...usage, collected: gc !== undefined, snapshot }));
  });
}
