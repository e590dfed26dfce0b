/**
 * The bounded runs of `npm run abuse` (lockout.ts): idle connections cannot shut new clients out.
 * A listener at its cap, listeners whose caps together pass the descriptor limit, and descriptors
 * used up by something else: each time a new client is answered. Before, a DoT listener closed
 * every connection past 1,000 on accept (and DoH past 200) while the idle ones stayed, and caps
 * per listener could add up past the descriptor limit, where libuv resets every new connection.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { test } from 'node:test';
import bind from '@foghorn/plugin-bind';
import whoami from '@foghorn/plugin-whoami';
import { directivesOf, freeTcpPort, makeTestPki, startServer, testPlugin, whenClosed } from '@foghorn/testkit';
import { connect, idleConnections, stillOpen, timeToAnswer } from '../abuse.js';
import { frame } from '../check.js';
import { repoRoot, scratch, startFoghorn } from '../harness.js';
import { lockoutCorefile } from '../lockout.js';
import { makeQuery } from '@foghorn/testkit';

/** Generous: the machine may be busy; what matters is that an answer comes at all. */
const ANSWER_MS = 10_000;

test('a listener at its cap of 50 with 60 idle connections answers a new client; a connection with a query in progress stays', async (t) => {
  // `wait.test` is answered when the test says so: a query in progress for as long as needed.
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const wait = testPlugin('wait', (next) => ({
    name: 'wait',
    serveDNS: (req, w) => (req.qname === 'wait.test.' ? released.then(() => next!.serveDNS(req, w)) : next!.serveDNS(req, w)),
  }));
  const server = await startServer('.:0 {\n    bind 127.0.0.1\n    wait\n    whoami\n}\n', { directives: directivesOf(bind, wait, whoami), tcpLimits: { maxConnections: 50 } });
  t.after(() => server.close());
  const port = server.port();
  const busy = await connect(port);
  t.after(() => busy.destroy());
  const reply = once(busy, 'data');
  busy.write(frame(makeQuery('wait.test', 'A')));
  // The query must have arrived before the idle ones come: an answered query shows the order.
  assert.notEqual(await timeToAnswer('tcp', port, ANSWER_MS), null);
  const idle = await idleConnections(port, 60);
  t.after(() => idle.forEach((s) => s.destroy()));
  assert.notEqual(await timeToAnswer('tcp', port, ANSWER_MS), null, 'a new client is answered');
  // 62 connections came for 50 places: the 12 idle the longest went, the one with a query stayed.
  await Promise.all(idle.slice(0, 12).map((s) => (s.destroyed || s.readableEnded ? undefined : whenClosed(s))));
  assert.equal(stillOpen([busy]), 1);
  release();
  const [chunk] = (await reply) as [Buffer];
  assert.ok(chunk.length > 2, 'the query in progress is answered');
  assert.ok(server.lines.some((line) => line.includes('50 connections open on this listener, its cap: closing the connection idle the longest for each new one')), server.lines.join('\n'));
});

test('ulimit -n 256: TCP, DoT and DoH listeners, 200 idle connections each, past the descriptor limit together; each answers a new client', async (t) => {
  const pki = makeTestPki();
  t.after(() => pki.remove());
  const work = await scratch();
  t.after(() => work.close());
  const ports = { dns: await freeTcpPort(), tls: await freeTcpPort(), https: await freeTcpPort() };
  const server = await startFoghorn(lockoutCorefile(ports, pki), ports.dns, work.dir, { keepOutput: true, shell: 'ulimit -n 256 &&' });
  t.after(() => server.stop());
  // Each listener's own cap is half the limit (128): together they would take 384 descriptors of 256.
  const held = [...(await idleConnections(ports.dns, 200)), ...(await idleConnections(ports.tls, 200)), ...(await idleConnections(ports.https, 200))];
  t.after(() => held.forEach((s) => s.destroy()));
  for (const [kind, port] of [['tcp', ports.dns], ['tls', ports.tls], ['https', ports.https]] as const) {
    assert.notEqual(await timeToAnswer(kind, port, ANSWER_MS, pki.ca.cert), null, `a new ${kind} client is answered`);
  }
  assert.ok(server.output.some((line) => line.includes('128 connections open in all, half the open file limit of 256')), server.output.join('\n'));
  assert.equal(server.exitCode, undefined);
  assert.deepEqual(server.errors, []);
});

test('descriptors used up by something else: idle connections are closed before accept fails, and a new client is answered', async (t) => {
  const port = await freeTcpPort();
  const hog = spawn('bash', ['-c', 'ulimit -n 256 && exec "$0" "$@"', process.execPath, join(repoRoot, 'reliability/dist/descriptor-hog.js'), String(port), '40'], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => hog.kill('SIGKILL'));
  let output = '';
  hog.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  hog.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  while (!output.includes('ready')) {
    if (hog.exitCode !== null) assert.fail(`descriptor-hog exited ${hog.exitCode}: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // 40 descriptors left, 60 idle connections: without the watch the 41st accept fails, and libuv
  // then resets every connection waiting, the new client's too.
  const idle = await idleConnections(port, 60);
  t.after(() => idle.forEach((s) => s.destroy()));
  for (let i = 0; i < 3; i++) assert.notEqual(await timeToAnswer('tcp', port, ANSWER_MS), null, `new client ${i + 1} is answered`);
  assert.match(output, /fewer than 16 of 256 descriptors free: closing idle connections/);
  assert.equal(hog.exitCode, null);
});
