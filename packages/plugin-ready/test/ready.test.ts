import assert from 'node:assert/strict';
import { test } from 'node:test';
import { definePlugin, ReadinessProbes } from '@foghorn/core';
import type { Controller } from '@foghorn/core';
import { directivesOf, freeTcpPort, holdTcpPort, httpGet, startServer } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import health, { healthListeners } from '@foghorn/plugin-health';
import whoami from '@foghorn/plugin-whoami';
import ready, { readyListeners } from '../src/index.js';

/** Readiness flags the test flips; `syncer` and `alpha` report them, and keep their controller. */
const state = { syncer: false, alpha: false };
let controller: Controller | undefined;
const syncer = definePlugin({
  name: 'syncer',
  setup(c) {
    controller = c;
    c.provide(ReadinessProbes, { name: c.directive, ready: () => state.syncer });
  },
});
const alpha = definePlugin({ name: 'alpha', setup: (c) => c.provide(ReadinessProbes, { name: c.directive, ready: () => state.alpha }) });
const directives = directivesOf(bind, ready, health, alpha, syncer, whoami);

function readyPort(): number {
  const listeners = readyListeners(controller ?? assert.fail('syncer was not set up'));
  assert.equal(listeners.length, 1);
  return listeners[0]!.port;
}

/** Status and body of one GET. */
async function get(port: number, path: string): Promise<{ status: number; body: string }> {
  const { status, text } = await httpGet(port, path);
  return { status, body: text };
}

test('/ready is 200 OK when no plugin reports readiness, and 404 elsewhere', async (t) => {
  const server = await startServer('example.org {\n    bind 127.0.0.1\n    ready 127.0.0.1:0\n    syncer\n    whoami\n}\n', {
    directives: directivesOf(bind, ready, definePlugin({ name: 'syncer', setup: (c) => void (controller = c) }), whoami),
  });
  t.after(() => server.close());
  assert.deepEqual(await get(readyPort(), '/ready'), { status: 200, body: 'OK' });
  assert.deepEqual(await get(readyPort(), '/readyz'), { status: 404, body: '404 page not found\n' });
});

test('/ready is 503 with the sorted names of plugins not ready, then 200 once they are', async (t) => {
  state.syncer = false;
  state.alpha = false;
  const server = await startServer('example.org {\n    bind 127.0.0.1\n    ready 127.0.0.1:0\n    syncer\n    alpha\n    whoami\n}\n', { directives });
  t.after(() => server.close());
  const port = readyPort();
  assert.deepEqual(await get(port, '/ready'), { status: 503, body: 'alpha,syncer' });
  assert.ok(server.lines.includes('[INFO] plugin/ready: Plugins not ready: "alpha,syncer"'), server.lines.join('\n'));
  state.alpha = true;
  assert.deepEqual(await get(port, '/ready'), { status: 503, body: 'syncer' });
  state.syncer = true;
  assert.deepEqual(await get(port, '/ready'), { status: 200, body: 'OK' });
  // until-ready (the default): once ready, a plugin is not asked again.
  state.syncer = false;
  assert.deepEqual(await get(port, '/ready'), { status: 200, body: 'OK' });
});

test('with monitor continuously a plugin can turn not ready again', async (t) => {
  state.syncer = true;
  const server = await startServer(
    'example.org {\n    bind 127.0.0.1\n    ready 127.0.0.1:0 {\n        monitor continuously\n    }\n    syncer\n    whoami\n}\n',
    { directives },
  );
  t.after(() => server.close());
  const port = readyPort();
  assert.equal((await get(port, '/ready')).status, 200);
  state.syncer = false;
  assert.deepEqual(await get(port, '/ready'), { status: 503, body: 'syncer' });
  state.syncer = true;
  assert.equal((await get(port, '/ready')).status, 200);
});

test('one /ready listener serves every block and counts the plugins of every block', async (t) => {
  state.syncer = true;
  state.alpha = false;
  const port = await freeTcpPort();
  const corefile =
    `a.example {\n    bind 127.0.0.1\n    ready 127.0.0.1:${port}\n    syncer\n    whoami\n}\n` +
    `b.example {\n    bind 127.0.0.1\n    ready 127.0.0.1:${port}\n    whoami\n}\n` +
    `c.example {\n    bind 127.0.0.1\n    alpha\n    whoami\n}\n`;
  const server = await startServer(corefile, { directives });
  t.after(() => server.close());
  assert.deepEqual(readyListeners(controller!), [{ address: `127.0.0.1:${port}`, port }]);
  assert.deepEqual(await get(port, '/ready'), { status: 503, body: 'alpha' });
  state.alpha = true;
  assert.equal((await get(port, '/ready')).status, 200);
});

test('/ready survives reloads on its port and reports on the new configuration', async (t) => {
  state.syncer = true;
  state.alpha = false;
  const port = await freeTcpPort();
  const first = `example.org {\n    bind 127.0.0.1\n    ready 127.0.0.1:${port}\n    syncer\n    whoami\n}\n`;
  const server = await startServer(first, { directives });
  t.after(() => server.close());
  assert.equal((await get(port, '/ready')).status, 200);
  const second = first.replace('syncer', 'syncer\n    alpha');
  assert.equal(await server.reload(second), true);
  assert.deepEqual(await get(port, '/ready'), { status: 503, body: 'alpha' });
  // A broken Corefile never touches the running configuration or its /ready.
  assert.equal(await server.reload(second.replace('alpha', 'alpha\n    nosuch')), false);
  assert.deepEqual(await get(port, '/ready'), { status: 503, body: 'alpha' });
  // A reload failing after the new /ready opened hands the port back to the old configuration.
  const taken = await holdTcpPort();
  t.after(taken.close);
  assert.equal(await server.reload(`${second}example.net:${taken.port} {\n    bind 127.0.0.1\n    whoami\n}\n`), false);
  assert.deepEqual(await get(port, '/ready'), { status: 503, body: 'alpha' });
  assert.equal(readyListeners(controller!).length, 1);
});

test('on shutdown /ready closes first while /health stays 200 for the lameduck period', async (t) => {
  state.syncer = true;
  const server = await startServer(
    'example.org {\n    bind 127.0.0.1\n    ready 127.0.0.1:0\n    health 127.0.0.1:0 {\n        lameduck 300ms\n    }\n    syncer\n    whoami\n}\n',
    { directives },
  );
  t.after(() => server.close());
  const port = readyPort();
  const healthPort = healthListeners(controller!)[0]!.port;
  assert.equal((await get(port, '/ready')).status, 200);
  const stopping = server.server.stop();
  // /ready closed before the lameduck wait began.
  while (!server.lines.some((line) => line.includes('Going into lameduck mode'))) await new Promise((resolve) => setTimeout(resolve, 2));
  await assert.rejects(get(port, '/ready'), { code: 'ECONNREFUSED' });
  assert.equal((await get(healthPort, '/health')).status, 200);
  assert.deepEqual(await stopping, []);
  await assert.rejects(get(healthPort, '/health'), { code: 'ECONNREFUSED' });
});

test('a /ready address that cannot be bound is logged and does not abort startup', async (t) => {
  const { port, close } = await holdTcpPort();
  t.after(close);
  const server = await startServer(`example.org {\n    bind 127.0.0.1\n    ready 127.0.0.1:${port}\n    syncer\n    whoami\n}\n`, { directives });
  t.after(() => server.close());
  assert.ok(
    server.lines.includes(`[ERROR] plugin/ready: Failed to start ready handler: listen tcp 127.0.0.1:${port}: bind: address already in use`),
    server.lines.join('\n'),
  );
  assert.deepEqual(readyListeners(controller!), []);
});
