/**
 * Hostile TCP clients against the `foghorn` CLI serving Corefile.example: random frames, a
 * length prefix longer than its payload, zero-length frames, 65,535-byte frames, 1,000
 * pipelined queries, idle connections (2,000 here; 5,000 in the soak; past the caps in
 * lockout.test.ts) and slowloris. After each, a fresh client is served and the server is still up.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { closedWithin, freshClientServed, idleConnections, largeFrames, longPrefix, pipelined, randomFrames, slowloris, stillOpen, zeroLength } from '../abuse.js';
import { examplePorts, exampleCorefile, sampleProcess, scratch, startFoghorn } from '../harness.js';
import type { Child } from '../harness.js';

/** Short timeouts through the timeouts directive, so they show within a test; the default caps. */
const READ_MS = 1000;
const IDLE_MS = 2000;
let server: Child;
let close: () => Promise<void>;

before(async () => {
  const work = await scratch();
  const ports = await examplePorts();
  const corefile = (await exampleCorefile(ports, work.manifests))
    .replaceAll(/^\s+log$/gm, '')
    .replace('    whoami\n', `    whoami\n    timeouts {\n        read ${READ_MS / 1000}s\n        idle ${IDLE_MS / 1000}s\n    }\n`);
  server = await startFoghorn(corefile, ports.dns, work.dir);
  close = async () => {
    await server.stop();
    await work.close();
  };
});

after(() => close());

test('random frames: each is answered or ends the connection; the server keeps serving', async () => {
  let seed = 42;
  const random = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  for (let i = 0; i < 20; i++) await randomFrames(server.port, 20, random);
  assert.ok(await freshClientServed(server.port));
});

test('a length prefix larger than its payload is cut at the read timeout, not the idle one', async () => {
  const closedAfter = await longPrefix(server.port, READ_MS + 1500);
  assert.notEqual(closedAfter, null, 'still open');
  assert.ok(closedAfter! >= READ_MS - 100 && closedAfter! < IDLE_MS, `closed after ${closedAfter} ms`);
});

test('a zero-length frame ends the connection, as miekg/dns reads it (a short read)', async () => {
  const { replies, closed } = await zeroLength(server.port);
  assert.equal(replies, 0);
  assert.equal(closed, true);
});

test('65,535-byte frames and 1,000 pipelined queries are all answered', async () => {
  assert.equal(await largeFrames(server.port, 65_535, 10), 10);
  assert.equal(await pipelined(server.port, 1000), 1000);
});

test('2,000 idle connections: a new client is served, and each idle one is closed at the read timeout', async () => {
  const idle = await idleConnections(server.port, 2000);
  assert.equal(idle.length, 2000);
  assert.ok(await freshClientServed(server.port, 10_000), 'a fresh client is served while 2,000 idle connections are open');
  // They go at the first query's read timeout, as nothing was ever sent.
  await Promise.all(idle.map((s) => closedWithin(s, READ_MS + 1500)));
  assert.equal(stillOpen(idle), 0);
  for (const s of idle) s.destroy();
});

test('slowloris: a frame trickled a byte at a time is cut at its deadline; memory stays bounded', async () => {
  const before = await sampleProcess(server.process.pid!);
  const loris = await slowloris(server.port, 250, 60_000, 100);
  try {
    assert.ok(await freshClientServed(server.port), 'a fresh client is served under slowloris');
    const closed = await Promise.all(loris.sockets.map((s) => closedWithin(s, READ_MS + 2000)));
    assert.equal(closed.filter((c) => c === null).length, 0, 'every trickling connection is cut');
    const after = await sampleProcess(server.process.pid!);
    assert.ok(after.rssBytes - before.rssBytes < 64 * 1024 * 1024, `RSS grew ${after.rssBytes - before.rssBytes} bytes`);
  } finally {
    loris.stop();
  }
});

test('the server is up and logged no error', () => {
  assert.equal(server.exitCode, undefined);
  assert.deepEqual(server.errors, []);
});
