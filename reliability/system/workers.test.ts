/**
 * A worker of `foghorn -workers 2` that cannot start again (its certificate is gone): a crash
 * loop, restarted with a doubling backoff and logged once per restart, while the other worker
 * serves. In test:system, as it waits through the backoff and several worker start-ups.
 */
import assert from 'node:assert/strict';
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { eventually, freeTcpPort, makeTestPki, query } from '@foghorn/testkit';
import { startWorkers, whoAnswered, workerPids } from '../workers.js';

test('a worker that cannot start again is restarted with a doubling backoff, one line per restart, while the other serves', async (t) => {
  const pki = makeTestPki();
  t.after(() => pki.remove());
  // The certificate is read at start: without it a worker fails to start (exit status 1).
  const cert = join(pki.dir, 'loop-cert.pem');
  copyFileSync(pki.server.certFile, cert);
  const tlsPort = await freeTcpPort();
  const { server, port, close } = await startWorkers(
    (dns) => `.:${dns} {\n    bind 127.0.0.1\n    chaos worker-{$FOGHORN_WORKER}\n}\ntls://.:${tlsPort} {\n    bind 127.0.0.1\n    tls ${cert} ${pki.server.keyFile}\n    whoami\n}\n`,
  );
  t.after(close);
  const [first] = workerPids(server.process.pid!);
  rmSync(cert);
  const mark = server.output.length;
  process.kill(first!, 'SIGKILL');
  const since = (): string[] => server.output.slice(mark).filter((line) => line.includes('worker 1'));
  await eventually(() => since().filter((line) => line.includes('restarting in')).length >= 3, 30_000, 'three restarts');
  const lines = since();
  assert.deepEqual(
    lines.slice(0, 3).map((line) => /restarting in (\d+)ms$/.exec(line)?.[1]),
    ['100', '200', '400'],
    lines.join('\n'),
  );
  // One line per restart, saying why: the first was killed, the next could not start.
  assert.match(lines[0]!, /^\[ERROR\] worker 1 \(pid \d+\) was killed by signal SIGKILL: restarting in 100ms$/);
  for (const line of lines.slice(1)) assert.match(line, /^\[ERROR\] worker 1 \(pid \d+\) failed to start: plugin\/tls: .*could not load TLS cert: .*: restarting in \d+ms$/);
  // Meanwhile worker 2 answers.
  assert.equal((await query({ port }, 'version.bind', 'TXT', { class: 'CH' })).rcode, 'NOERROR');
  assert.equal(await whoAnswered(port), 'worker-2');
  // The certificate is back: the next restart serves.
  copyFileSync(pki.server.certFile, cert);
  await eventually(() => since().some((line) => /^\[INFO\] worker 1 \(pid \d+\) restarted$/.test(line)), 30_000, 'worker 1 restarted');
  assert.equal(server.exitCode, undefined);
});
