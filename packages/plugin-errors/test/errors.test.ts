import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PluginError, Rcode } from '@foghorn/core';
import type { Handler, PluginDefinition, Request, ResponseWriter } from '@foghorn/core';
import { directivesOf, query, rcodeOf, startServer, testPlugin } from '@foghorn/testkit';
import type { TestServer } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import whoami from '@foghorn/plugin-whoami';
import errors, { createErrorsPlugin } from '@foghorn/plugin-errors';
import type { Timers } from '@foghorn/plugin-errors';

/**
 * A test handler that fails by the first label: `boom` throws a PluginError, `later` rejects
 * asynchronously, `refuse` throws one with REFUSED, `timeout` throws an i/o timeout, `panic`
 * throws a plain Error, `quiet` returns SERVFAIL with no error; anything else goes to whoami.
 */
class Failer implements Handler {
  readonly name = 'failer';
  constructor(private readonly next: Handler | null) {}

  serveDNS(req: Request, w: ResponseWriter): number | Promise<number> {
    switch (req.qname.split('.')[0]) {
      case 'boom':
        throw new PluginError('plugin/failer: boom');
      case 'later':
        return new Promise((_, reject) => setImmediate(() => reject(new PluginError('plugin/failer: later'))));
      case 'refuse':
        throw new PluginError('plugin/failer: not here', { rcode: Rcode.REFUSED });
      case 'timeout':
        throw new PluginError('plugin/failer: read udp 127.0.0.1:41209->127.0.0.1:53: i/o timeout');
      case 'panic':
        throw new Error('kaboom');
      case 'quiet':
        return Rcode.SERVFAIL;
      default:
        return this.next!.serveDNS(req, w);
    }
  }
}

const failer = testPlugin('failer', (next) => new Failer(next));

async function start(t: { after(fn: () => Promise<void>): void }, body: string, plugin: PluginDefinition = errors): Promise<TestServer> {
  const server = await startServer(`.:0 {\n bind 127.0.0.1\n ${body}\n failer\n whoami\n}\n`, {
    directives: directivesOf(bind, plugin, failer, whoami),
  });
  t.after(() => server.close());
  return server;
}

/** The lines the errors plugin printed. */
function errorLines(server: TestServer): string[] {
  return server.lines.filter((line) => line.includes('plugin/errors: '));
}

/** Failures from below: the reply's rcode and the one errors line each one logs. */
const logged: { title: string; name: string; type: Parameters<typeof query>[2]; transport?: 'tcp'; rcode: string; line: string }[] = [
  {
    title: 'an error from below is logged in CoreDNS format and the client gets SERVFAIL',
    name: 'BOOM.Example.org.',
    type: 'AAAA',
    rcode: 'SERVFAIL',
    line: '[ERROR] plugin/errors: 2 boom.example.org. AAAA: plugin/failer: boom',
  },
  {
    title: 'an asynchronous rejection is logged as well, over TCP too',
    name: 'later.example.org.',
    type: 'A',
    transport: 'tcp',
    rcode: 'SERVFAIL',
    line: '[ERROR] plugin/errors: 2 later.example.org. A: plugin/failer: later',
  },
  {
    title: "the error's own rcode is logged and answered",
    name: 'refuse.example.org.',
    type: 'MX',
    rcode: 'REFUSED',
    line: '[ERROR] plugin/errors: 5 refuse.example.org. MX: plugin/failer: not here',
  },
];

for (const { title, name, type, transport, rcode, line } of logged) {
  test(title, async (t) => {
    const server = await start(t, 'errors');
    const reply = await query({ port: server.port() }, name, type, transport ? { transport } : {});
    assert.equal(rcodeOf(reply), rcode);
    assert.deepEqual(errorLines(server), [line]);
  });
}

test('answers, plain error rcodes and panics leave no errors line', async (t) => {
  const server = await start(t, 'errors');
  const port = server.port();
  assert.equal(rcodeOf(await query({ port }, 'ok.example.org.', 'A')), 'NOERROR');
  assert.equal(rcodeOf(await query({ port }, 'quiet.example.org.', 'A')), 'SERVFAIL');
  assert.equal(rcodeOf(await query({ port }, 'panic.example.org.', 'A')), 'SERVFAIL');
  assert.deepEqual(errorLines(server), []);
  // The panic is the server's to report, as in CoreDNS.
  assert.ok(server.lines.some((line) => line.startsWith('[ERROR] Recovered from panic') && line.includes('kaboom')));
});

test('errors with nothing after it fails the query with no next plugin found', async (t) => {
  const server = await startServer('.:0 {\n bind 127.0.0.1\n errors\n}\n', { directives: directivesOf(bind, errors) });
  t.after(() => server.close());
  const reply = await query({ port: server.port() }, 'example.org.', 'A');
  assert.equal(rcodeOf(reply), 'SERVFAIL');
  assert.deepEqual(errorLines(server), ['[ERROR] plugin/errors: 2 example.org. A: plugin/errors: no next plugin found']);
});

test('matching errors are counted and summarised once per window; others print at once', async (t) => {
  const { server, timers } = await startWithManualTimers(t, 'errors {\n  consolidate 50ms "i/o timeout$"\n }');
  const port = server.port();
  for (let i = 0; i < 3; i++) assert.equal(rcodeOf(await query({ port }, 'timeout.example.org.', 'A')), 'SERVFAIL');
  await query({ port }, 'boom.example.org.', 'A');
  assert.deepEqual(errorLines(server), ['[ERROR] plugin/errors: 2 boom.example.org. A: plugin/failer: boom']);
  timers.fireAll();
  assert.equal(errorLines(server)[1], "[ERROR] plugin/errors: 3 errors like 'i/o timeout$' occurred in last 50ms");
  // A new window starts with the next error.
  await query({ port }, 'timeout.example.org.', 'A');
  timers.fireAll();
  assert.equal(errorLines(server).length, 3);
  assert.equal(errorLines(server)[2], "[ERROR] plugin/errors: 1 errors like 'i/o timeout$' occurred in last 50ms");
});

test('show_first prints the first error at the pattern level, and a lone error gets no summary', async (t) => {
  const { server, timers } = await startWithManualTimers(t, 'errors {\n  consolidate 40ms timeout warning show_first\n }');
  const port = server.port();
  await query({ port }, 'timeout.example.org.', 'A');
  assert.deepEqual(errorLines(server), [
    '[WARNING] plugin/errors: 2 timeout.example.org. A: plugin/failer: read udp 127.0.0.1:41209->127.0.0.1:53: i/o timeout',
  ]);
  timers.fireAll();
  assert.equal(errorLines(server).length, 1, 'a window with one error ends without a summary');
  await query({ port }, 'timeout.example.org.', 'A');
  await query({ port }, 'timeout.example.org.', 'TXT');
  timers.fireAll();
  assert.equal(errorLines(server).length, 3);
  assert.equal(errorLines(server)[1]?.startsWith('[WARNING] plugin/errors: 2 timeout.example.org. A: '), true);
  assert.equal(errorLines(server)[2], "[WARNING] plugin/errors: 2 errors like 'timeout' occurred in last 40ms");
});

/** Starts errors (with `body` as its lines) on timers the test fires by hand. */
async function startWithManualTimers(t: { after(fn: () => Promise<void>): void }, body: string): Promise<{ server: TestServer; timers: ManualTimers }> {
  const timers = new ManualTimers();
  return { server: await start(t, body, createErrorsPlugin({ timers })), timers };
}

test('only the first matching pattern counts an error', async (t) => {
  const { server, timers } = await startWithManualTimers(t, 'errors {\n  consolidate 1m timeout info\n  consolidate 1m failer\n }');
  const port = server.port();
  await query({ port }, 'timeout.example.org.', 'A');
  await query({ port }, 'boom.example.org.', 'A');
  timers.fireAll();
  assert.deepEqual(errorLines(server), [
    "[INFO] plugin/errors: 1 errors like 'timeout' occurred in last 1m0s",
    "[ERROR] plugin/errors: 1 errors like 'failer' occurred in last 1m0s",
  ]);
});

test('shutdown prints pending counts, cancels the window, and later errors print as they come', async (t) => {
  const { server, timers } = await startWithManualTimers(t, 'errors {\n  consolidate 1h timeout\n }');
  const port = server.port();
  await query({ port }, 'timeout.example.org.', 'A');
  await query({ port }, 'timeout.example.org.', 'A');
  assert.equal(timers.pending, 1);
  await server.close();
  assert.equal(timers.pending, 0);
  assert.deepEqual(errorLines(server), ["[ERROR] plugin/errors: 2 errors like 'timeout' occurred in last 1h0m0s"]);
});

test('a debug-level summary is dropped unless debug logging is on', async (t) => {
  const { server, timers } = await startWithManualTimers(t, 'errors {\n  consolidate 1s timeout debug\n }');
  await query({ port: server.port() }, 'timeout.example.org.', 'A');
  timers.fireAll();
  assert.deepEqual(errorLines(server), []);
});

/** Timers that fire only when told to. */
class ManualTimers implements Timers {
  private readonly callbacks = new Map<number, () => void>();
  private nextId = 1;

  get pending(): number {
    return this.callbacks.size;
  }

  set(callback: () => void): unknown {
    const id = this.nextId++;
    this.callbacks.set(id, callback);
    return id;
  }

  clear(handle: unknown): void {
    this.callbacks.delete(handle as number);
  }

  fireAll(): void {
    const callbacks = [...this.callbacks.values()];
    this.callbacks.clear();
    for (const callback of callbacks) callback();
  }
}
