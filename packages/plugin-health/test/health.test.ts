import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import { createLogger, definePlugin } from '@foghorn/core';
import type { Controller } from '@foghorn/core';
import { directivesOf, freeTcpPort, holdTcpPort, httpGet, query, startServer } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import whoami from '@foghorn/plugin-whoami';
import health, { healthListeners } from '../src/index.js';
import { HealthEndpoint } from '../src/endpoint.js';
import { createHealthMetrics } from '../src/metrics.js';

/** A do-nothing directive that keeps its controller, so tests can read process-wide state. */
function spyPlugin(): { plugin: ReturnType<typeof definePlugin>; controller: () => Controller } {
  let kept: Controller | undefined;
  const plugin = definePlugin({ name: 'spy', setup: (c) => void (kept = c) });
  return { plugin, controller: () => kept ?? assert.fail('spy was not set up') };
}

/** Status, body and content type of one request (the fields these tests compare). */
async function get(port: number, path: string, method = 'GET'): Promise<{ status: number; body: string; contentType: string | undefined }> {
  const reply = await httpGet(port, path, { method });
  return { status: reply.status, body: reply.text, contentType: reply.headers['content-type'] };
}

/** Resolves as soon as the shutdown has entered the lameduck wait. */
async function inLameduck(lines: readonly string[]): Promise<void> {
  while (!lines.some((line) => line.includes('Going into lameduck mode'))) await new Promise((resolve) => setTimeout(resolve, 2));
}

function portOf(c: Controller): number {
  const listeners = healthListeners(c);
  assert.equal(listeners.length, 1);
  return listeners[0]!.port;
}

test('/health answers 200 OK to any method and 404 elsewhere', async (t) => {
  const spy = spyPlugin();
  const server = await startServer('example.org {\n    bind 127.0.0.1\n    health 127.0.0.1:0\n    spy\n    whoami\n}\n', {
    directives: directivesOf(bind, health, spy.plugin, whoami),
  });
  t.after(() => server.close());
  const port = portOf(spy.controller());
  assert.notEqual(port, 0);
  assert.deepEqual(await get(port, '/health'), { status: 200, body: 'OK', contentType: 'text/plain; charset=utf-8' });
  assert.equal((await get(port, '/health', 'POST')).status, 200);
  assert.equal((await get(port, '/health?verbose=1')).status, 200);
  assert.deepEqual(await get(port, '/healthz'), { status: 404, body: '404 page not found\n', contentType: 'text/plain; charset=utf-8' });
  assert.equal((await get(port, '/health/')).status, 404);
  assert.equal((await get(port, '/')).status, 404);
});

test('a health address that cannot be bound aborts startup', async (t) => {
  const { port, close } = await holdTcpPort();
  t.after(close);
  await assert.rejects(
    startServer(`example.org {\n    bind 127.0.0.1\n    health 127.0.0.1:${port}\n    whoami\n}\n`, { directives: directivesOf(bind, health, whoami) }),
    { message: `plugin/health: Corefile:3:5 - listen tcp 127.0.0.1:${port}: bind: address already in use` },
  );
});

test('blocks naming the same health address share one listener, other addresses get their own', async (t) => {
  const spy = spyPlugin();
  const port = await freeTcpPort();
  const corefile =
    `a.example {\n    bind 127.0.0.1\n    health 127.0.0.1:${port}\n    spy\n    whoami\n}\n` +
    `b.example {\n    bind 127.0.0.1\n    health 127.0.0.1:${port}\n    whoami\n}\n` +
    `c.example {\n    bind 127.0.0.1\n    health 127.0.0.1:0\n    whoami\n}\n`;
  const server = await startServer(corefile, { directives: directivesOf(bind, health, spy.plugin, whoami) });
  t.after(() => server.close());
  const listeners = healthListeners(spy.controller());
  assert.deepEqual(listeners.map((l) => l.address).sort(), [`127.0.0.1:${port}`, '127.0.0.1:0'].sort());
  for (const listener of listeners) assert.equal((await get(listener.port, '/health')).status, 200);
});

test('during lameduck /health stays 200 and DNS keeps answering, then both close', async (t) => {
  const spy = spyPlugin();
  const server = await startServer(
    'example.org {\n    bind 127.0.0.1\n    health 127.0.0.1:0 {\n        lameduck 300ms\n    }\n    spy\n    whoami\n}\n',
    { directives: directivesOf(bind, health, spy.plugin, whoami) },
  );
  t.after(() => server.close());
  const healthPort = portOf(spy.controller());
  const dnsPort = server.port();
  const started = Date.now();
  const stopping = server.server.stop();
  await inLameduck(server.lines);
  assert.equal((await get(healthPort, '/health')).status, 200);
  const reply = await query({ port: dnsPort }, 'example.org', 'A');
  assert.equal(reply.additionals?.[0]?.type, 'A');
  assert.deepEqual(await stopping, []);
  assert.ok(Date.now() - started >= 290, 'stop waited for the lameduck duration');
  assert.ok(server.lines.includes('[INFO] plugin/health: Going into lameduck mode for 300ms'), server.lines.join('\n'));
  await assert.rejects(get(healthPort, '/health'), { code: 'ECONNREFUSED' });
});

test('a reload closes and reopens /health on the same fixed port without lameduck', async (t) => {
  const port = await freeTcpPort();
  const corefile = `example.org {\n    bind 127.0.0.1\n    health 127.0.0.1:${port} {\n        lameduck 5s\n    }\n    whoami\n}\n`;
  // The new configuration has no lameduck, so only the reload could wait 5s, and stop won't.
  const server = await startServer(corefile, { directives: directivesOf(bind, health, whoami) });
  t.after(() => server.close());
  const started = Date.now();
  assert.equal(await server.reload(`example.org {\n    bind 127.0.0.1\n    health 127.0.0.1:${port}\n    whoami\n}\n`), true);
  assert.ok(Date.now() - started < 2_000, 'no lameduck wait on reload');
  assert.equal((await get(port, '/health')).status, 200);
  assert.ok(!server.lines.some((line) => line.includes('lameduck mode')), server.lines.join('\n'));
});

test('a /health on port 0 keeps its port across a reload', async (t) => {
  const spy = spyPlugin();
  const corefile = 'example.org {\n    bind 127.0.0.1\n    health 127.0.0.1:0\n    spy\n    whoami\n}\n';
  const server = await startServer(corefile, { directives: directivesOf(bind, health, spy.plugin, whoami) });
  t.after(() => server.close());
  const port = portOf(spy.controller());
  assert.equal(await server.reload(`${corefile}# edited\n`), true);
  assert.equal(portOf(spy.controller()), port);
  assert.equal((await get(port, '/health')).status, 200);
});

test('a reload that fails after the new /health opened gives the port back to the old configuration', async (t) => {
  const healthPort = await freeTcpPort();
  const { port: takenPort, close } = await holdTcpPort();
  t.after(close);
  const block = `example.org {\n    bind 127.0.0.1\n    health 127.0.0.1:${healthPort}\n    whoami\n}\n`;
  const server = await startServer(block, { directives: directivesOf(bind, health, whoami) });
  t.after(() => server.close());
  // The new configuration sets up and starts fine, then cannot open its DNS port.
  // Its lameduck must not apply when the failed reload tears it down.
  const failing = block.replace(`:${healthPort}`, `:${healthPort} {\n        lameduck 5s\n    }`) + `example.net:${takenPort} {\n    bind 127.0.0.1\n    whoami\n}\n`;
  const started = Date.now();
  assert.equal(await server.reload(failing), false);
  assert.ok(Date.now() - started < 2_000, 'no lameduck wait when the new configuration is torn down');
  assert.ok(server.lines.some((line) => line.startsWith('[ERROR] Restart failed: ')), server.lines.join('\n'));
  assert.equal((await get(healthPort, '/health')).status, 200);
  // And the old configuration still reloads cleanly afterwards.
  assert.equal(await server.reload(block.replace('whoami', 'whoami\n    # edited')), true);
  assert.equal((await get(healthPort, '/health')).status, 200);
});

test('the self-probe records each request in coredns_health_request_duration_seconds', async (t) => {
  const registry = new Registry();
  const metrics = createHealthMetrics(registry);
  const endpoint = new HealthEndpoint({ address: '127.0.0.1:0', metrics, log: createLogger(() => {}).forPlugin('health'), probeIntervalMs: 10 });
  await endpoint.open();
  t.after(() => endpoint.close());
  assert.equal(endpoint.url, `http://127.0.0.1:${endpoint.port}/health`);
  for (let i = 0; i < 100; i++) {
    const count = (await metrics.duration.get()).values.find((v) => v.metricName === 'coredns_health_request_duration_seconds_count');
    if ((count?.value ?? 0) >= 2) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const text = await registry.metrics();
  assert.match(text, /^coredns_health_request_duration_seconds_count [2-9]\d*$/m);
  assert.match(text, /^coredns_health_request_duration_seconds_bucket\{le="0.00025"\} \d+$/m);
  assert.match(text, /^coredns_health_request_duration_seconds_bucket\{le="2.5"\} \d+$/m);
  assert.match(text, /^coredns_health_request_failures_total 0$/m);
  // Creating them again (a reload, a second block) reuses the registered ones.
  assert.equal(createHealthMetrics(registry).duration, metrics.duration);
});

test('a failing self-probe is counted and logged as CoreDNS does', async (t) => {
  const registry = new Registry();
  const metrics = createHealthMetrics(registry);
  const lines: string[] = [];
  // To make our own /health unreachable while the probe timer still runs, close the listening
  // socket behind the endpoint's back.
  const endpoint = new HealthEndpoint({ address: '127.0.0.1:0', metrics, log: createLogger((l) => lines.push(l)).forPlugin('health'), probeIntervalMs: 10 });
  await endpoint.open();
  t.after(() => endpoint.close());
  const url = endpoint.url;
  const blocker = endpoint.server ?? assert.fail('not open');
  await new Promise<void>((resolve) => blocker.close(() => resolve()));
  for (let i = 0; i < 100 && lines.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.match(lines[0] ?? '', new RegExp(`^\\[WARNING\\] plugin/health: Local health request to "${url}" failed: Get "${url}": .*ECONNREFUSED`));
  assert.match(await registry.metrics(), /^coredns_health_request_failures_total [1-9]\d*$/m);
});
