/**
 * `foghorn -workers 2` under faults, with the real CLI: a worker killed with SIGKILL under a
 * steady load, and the primary killed with SIGKILL. `npm run abuse -- worker-kill` runs the first
 * at 5,000 queries a second; reliability/system/workers.test.ts (npm run test:system) a crash loop.
 */
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { test } from 'node:test';
import { eventually } from '@foghorn/testkit';
import { killWorkerUnderLoad, startWorkers, workerPids } from '../workers.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('a worker killed under load: at most the queries in flight are lost, /ready and /metrics keep answering 200, a replacement serves', async (t) => {
  // A light load, so that one worker keeps up on a busy machine: the kill is what is measured.
  const kill = await killWorkerUnderLoad(500);
  t.diagnostic(`${kill.sent} sent, ${kill.answered} answered, ${kill.lost} lost, ${kill.inFlightAtKill} in flight at the kill; replacement answered after ${kill.replacementMs} ms`);
  assert.ok(kill.lost <= kill.inFlightAtKill, `${kill.lost} lost, more than the ${kill.inFlightAtKill} in flight at the kill`);
  assert.ok(kill.answered > 0);
  // Every answer is 200. The one probe connection the primary may have dealt to worker 1 as it
  // died is lost with it (no status, like any connection the killed process held): one at most,
  // as each endpoint is probed one request at a time.
  for (const [path, statuses] of [['/ready', kill.ready], ['/metrics', kill.metrics]] as const) {
    const failed = statuses.filter((status) => status !== 200);
    assert.ok(failed.length === 0 || (failed.length === 1 && failed[0] === 0), `${path}: ${statuses.join(' ')}`);
  }
  assert.match(kill.output.join('\n'), /^\[ERROR\] worker 1 \(pid \d+\) was killed by signal SIGKILL: restarting in 100ms$/m);
  assert.match(kill.output.join('\n'), /^\[INFO\] worker 1 \(pid \d+\) restarted$/m);
});

test('the primary killed with SIGKILL: the workers exit, and the port is free again', async (t) => {
  const { server, port, close } = await startWorkers((dns) => `.:${dns} {\n    bind 127.0.0.1\n    whoami\n}\n`);
  t.after(close);
  const workers = workerPids(server.process.pid!);
  assert.equal(workers.length, 2);
  server.process.kill('SIGKILL');
  await eventually(() => workers.every((pid) => !alive(pid)), 10_000, 'workers gone');
  // Nobody holds the UDP socket the workers shared.
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, '127.0.0.1', () => resolve());
  });
  socket.close();
});
