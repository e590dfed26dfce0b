/**
 * *debug* over real sockets: [DEBUG] lines appear while a configuration with *debug* serves, in
 * every block, and stop when a reload drops it; a panic is recovered and logged with its stack.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { definePlugin, Rcode, replyTo } from '@foghorn/core';
import bind from '@foghorn/plugin-bind';
import errors from '@foghorn/plugin-errors';
import forward from '@foghorn/plugin-forward';
import whoami from '@foghorn/plugin-whoami';
import { directivesOf, metric, query, rcodeOf, startServer, testPlugin, upstreamFor } from '@foghorn/testkit';
import debug from '../src/index.js';

/** Logs every query at debug level through its plugin logger, then answers NXDOMAIN. */
const noisy = definePlugin({
  name: 'noisy',
  setup(c) {
    while (c.next()) c.remainingArgs();
    c.addHandler(() => ({
      name: 'noisy',
      serveDNS(req, w) {
        c.log.debug(`query for ${req.qname}`);
        w.write(replyTo(req, Rcode.NXDOMAIN));
        return Rcode.NXDOMAIN;
      },
    }));
  },
});
/** Throws what a bug in a plugin would. */
const panicky = testPlugin('panicky', () => ({
  name: 'panicky',
  serveDNS() {
    throw new TypeError('boom');
  },
}));
const directives = directivesOf(debug, bind, errors, forward, noisy, panicky, whoami);
const debugLines = (lines: readonly string[]): string[] => lines.filter((line) => line.startsWith('[DEBUG]'));

test('[DEBUG] lines are printed while a block has debug, in every block, until a reload drops it', async (t) => {
  const withDebug = 'a.test:0 {\n  bind 127.0.0.1\n  debug\n  noisy\n}\nb.test:0 {\n  bind 127.0.0.1\n  noisy\n}\n';
  const server = await startServer(withDebug, { directives });
  t.after(() => server.close());
  await query({ port: server.port('a.test.') }, 'x.a.test', 'A');
  await query({ port: server.port('b.test.') }, 'y.b.test', 'A');
  assert.deepEqual(debugLines(server.lines), ['[DEBUG] plugin/noisy: query for x.a.test.', '[DEBUG] plugin/noisy: query for y.b.test.']);

  assert.equal(await server.reload('a.test:0 {\n  bind 127.0.0.1\n  noisy\n}\nb.test:0 {\n  bind 127.0.0.1\n  noisy\n}\n'), true);
  server.lines.length = 0;
  await query({ port: server.port('a.test.') }, 'x.a.test', 'A');
  assert.deepEqual(debugLines(server.lines), []);

  assert.equal(await server.reload(withDebug), true);
  await query({ port: server.port('b.test.') }, 'y.b.test', 'A');
  assert.deepEqual(debugLines(server.lines), ['[DEBUG] plugin/noisy: query for y.b.test.']);
});

test('a failed reload keeps the debug logging of the configuration that still serves', async (t) => {
  const server = await startServer('.:0 {\n  bind 127.0.0.1\n  debug\n  noisy\n}\n', { directives });
  t.after(() => server.close());
  assert.equal(await server.reload('.:0 {\n  bind 127.0.0.1\n  noisy\n  unknown_directive\n}\n'), false);
  await query({ port: server.port() }, 'x.test', 'A');
  assert.deepEqual(debugLines(server.lines), ['[DEBUG] plugin/noisy: query for x.test.']);
});

test('with debug a panic is recovered, answered SERVFAIL, counted and logged with its stack', async (t) => {
  const server = await startServer('.:0 {\n  bind 127.0.0.1\n  debug\n  panicky\n}\n', { directives });
  t.after(() => server.close());
  for (const transport of ['udp', 'tcp'] as const) {
    assert.equal(rcodeOf(await query({ port: server.port() }, 'example.org', 'A', { transport })), 'SERVFAIL');
  }
  const panics = server.lines.filter((line) => line.startsWith('[ERROR] Recovered from panic in server:'));
  assert.equal(panics.length, 2);
  const [first, ...stack] = panics[0]!.split('\n');
  assert.equal(first, `[ERROR] Recovered from panic in server: "dns://127.0.0.1:0" boom`);
  assert.equal(stack[0], 'TypeError: boom');
  assert.match(stack[1] ?? '', /^\s+at Object\.serveDNS \(.*debug\.test\.js:\d+:\d+\)$/);
  assert.equal(await metric(server, 'coredns_panics_total'), 2);
});

test('without debug the panic is logged in one line; errors stacktrace adds the stack alone', async (t) => {
  const plain = await startServer('.:0 {\n  bind 127.0.0.1\n  panicky\n}\n', { directives });
  t.after(() => plain.close());
  assert.equal(rcodeOf(await query({ port: plain.port() }, 'example.org', 'A')), 'SERVFAIL');
  assert.deepEqual(
    plain.lines.filter((line) => line.includes('Recovered')),
    [`[ERROR] Recovered from panic in server: "dns://127.0.0.1:0" boom`],
  );

  const stacktrace = await startServer('.:0 {\n  bind 127.0.0.1\n  errors {\n    stacktrace\n  }\n  noisy\n  panicky\n}\n', { directives: directivesOf(debug, bind, errors, panicky, noisy) });
  t.after(() => stacktrace.close());
  assert.equal(rcodeOf(await query({ port: stacktrace.port() }, 'example.org', 'A')), 'SERVFAIL');
  const logged = stacktrace.lines.find((line) => line.includes('Recovered'));
  assert.match(logged ?? '', /" boom\nTypeError: boom\n\s+at /);
  assert.deepEqual(debugLines(stacktrace.lines), []);
});

test('forward logs a reply that does not match its query as a hex dump at debug level', async (t) => {
  // A response with no question: forward answers FORMERR (CoreDNS's state.Match) and dumps it.
  const upstream = await upstreamFor(t, (q) => [Buffer.from([q.id >> 8, q.id & 0xff, 0x81, 0x80, 0, 0, 0, 0, 0, 0, 0, 0])]);
  const server = await startServer(`.:0 {\n  bind 127.0.0.1\n  debug\n  forward . ${upstream.address} {\n    max_fails 0\n  }\n}\n`, { directives });
  t.after(() => server.close());
  const reply = await query({ port: server.port() }, 'example.org', 'A', { id: 0x1234 });
  assert.equal(rcodeOf(reply), 'FORMERR');
  assert.deepEqual(debugLines(server.lines), ['[DEBUG] plugin/forward: Wrong reply for id: 4660, example.org. 1\ndebug: 000000 12 34 81 80 00 00 00 00 00 00 00 00\ndebug: 00000c']);
});
