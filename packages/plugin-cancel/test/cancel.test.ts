/**
 * *cancel* over real sockets: CoreDNS's TestCancel (a plugin that waits sees the deadline pass),
 * and *forward*, which stops waiting for its upstream at the deadline and answers SERVFAIL.
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Rcode, replyTo } from '@foghorn/core';
import bind from '@foghorn/plugin-bind';
import errors from '@foghorn/plugin-errors';
import forward from '@foghorn/plugin-forward';
import whoami from '@foghorn/plugin-whoami';
import { directivesOf, query, rcodeOf, reply, silent, startServer, testPlugin, upstreamFor } from '@foghorn/testkit';
import cancel from '../src/index.js';

/**
 * CoreDNS's sleepPlugin: checks the deadline every 20 ms, three times at most. It answers REFUSED
 * when the deadline passed (CoreDNS's test writes BADTIME, which needs EDNS to travel), SERVFAIL
 * when it never did.
 */
const sleeper = testPlugin('sleep', () => ({
  name: 'sleep',
  async serveDNS(req, w) {
    for (let i = 0; i < 3; i++) {
      if (performance.now() >= req.deadline) {
        w.write(replyTo(req, Rcode.REFUSED));
        return 0;
      }
      await sleep(20);
    }
    w.write(replyTo(req, Rcode.SERVFAIL));
    return 0;
  },
}));
const directives = directivesOf(cancel, bind, errors, forward, sleeper, whoami);

test('a plugin that waits sees the deadline cancel sets (TestCancel)', async (t) => {
  const server = await startServer('.:0 {\n  bind 127.0.0.1\n  cancel 20ms\n  sleep\n}\n', { directives });
  t.after(() => server.close());
  for (const transport of ['udp', 'tcp'] as const) {
    assert.equal(rcodeOf(await query({ port: server.port() }, 'aaa.example.com', 'TXT', { transport })), 'REFUSED');
  }
});

test('without cancel a query has no deadline, and the default one is far off', async (t) => {
  const server = await startServer('.:0 {\n  bind 127.0.0.1\n  sleep\n}\n', { directives });
  t.after(() => server.close());
  assert.equal(rcodeOf(await query({ port: server.port() }, 'aaa.example.com', 'TXT')), 'SERVFAIL');
  const withDefault = await startServer('.:0 {\n  bind 127.0.0.1\n  cancel\n  sleep\n}\n', { directives });
  t.after(() => withDefault.close());
  assert.equal(rcodeOf(await query({ port: withDefault.port() }, 'aaa.example.com', 'TXT')), 'SERVFAIL');
});

test('forward stops waiting at the deadline: SERVFAIL, one exchange, the timeout logged by errors', async (t) => {
  const upstream = await upstreamFor(t, silent);
  // The read timeout (2 s) and the budget (5 s) are far off: only cancel's 300 ms ends the wait.
  const server = await startServer(`.:0 {\n  bind 127.0.0.1\n  cancel 300ms\n  errors\n  forward . ${upstream.address} {\n    max_fails 0\n  }\n}\n`, { directives });
  t.after(() => server.close());
  const started = performance.now();
  const answer = await query({ port: server.port() }, 'example.org', 'A');
  const elapsed = performance.now() - started;
  assert.equal(rcodeOf(answer), 'SERVFAIL');
  assert.ok(elapsed < 2000, `answered after ${Math.round(elapsed)} ms, not at the deadline`);
  // No second attempt after the deadline (without cancel forward tries again until its budget ends).
  assert.equal(upstream.lookups.length, 1);
  assert.ok(server.lines.some((line) => /^\[ERROR\] plugin\/errors: 2 example\.org\. A: read udp .*: i\/o timeout$/.test(line)), server.lines.join('\n'));
});

test('forward answers as usual when the upstream replies before the deadline', async (t) => {
  const upstream = await upstreamFor(t, async (q) => {
    await sleep(50);
    return [reply(q, { answers: [{ type: 'A', name: q.questions[0]!.name, ttl: 5, data: '192.0.2.1' }] })];
  });
  const server = await startServer(`.:0 {\n  bind 127.0.0.1\n  cancel 2s\n  forward . ${upstream.address}\n}\n`, { directives });
  t.after(() => server.close());
  for (const transport of ['udp', 'tcp'] as const) {
    const answer = await query({ port: server.port() }, 'example.org', 'A', { transport });
    assert.equal(rcodeOf(answer), 'NOERROR');
    assert.equal(answer.answers?.length, 1);
  }
});

test('a deadline passed before forward is entered: no exchange at all, SERVFAIL', async (t) => {
  const upstream = await upstreamFor(t);
  // The sleeper spends 60 ms of a 20 ms deadline, then hands the query to forward.
  const slow = testPlugin('slow', (next) => ({
    name: 'slow',
    async serveDNS(req, w) {
      await sleep(60);
      return next!.serveDNS(req, w);
    },
  }));
  const server = await startServer(`.:0 {\n  bind 127.0.0.1\n  cancel 20ms\n  errors\n  slow\n  forward . ${upstream.address} {\n    max_fails 0\n  }\n}\n`, {
    directives: directivesOf(cancel, bind, errors, slow, forward),
  });
  t.after(() => server.close());
  assert.equal(rcodeOf(await query({ port: server.port() }, 'example.org', 'A')), 'SERVFAIL');
  assert.equal(upstream.lookups.length, 0);
  assert.ok(server.lines.includes('[ERROR] plugin/errors: 2 example.org. A: no healthy proxies'), server.lines.join('\n'));
});
