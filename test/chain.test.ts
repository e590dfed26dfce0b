/**
 * The chain contract of CoreDNS (docs/compatibility.md, "Setup order" and "Who writes the reply"): directive-list order, the server writing
 * error rcodes nobody wrote, "no next plugin", errors and panics, configuration errors, and when UDP replies leave (at the end of the event loop's turn).
 */
import dgram from 'node:dgram';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { definePlugin, nextOrFailure, PluginError, Rcode, replyTo } from '@foghorn/core';
import type { HandlerResult, PluginDefinition, Request, ResponseWriter } from '@foghorn/core';
import { validateCorefile } from '@foghorn/core/server';
import type { DirectiveEntry } from '@foghorn/core/server';
import whoami from '@foghorn/plugin-whoami';
import bind from '@foghorn/plugin-bind';
import { decodeReply, directivesOf, eventually, makeQuery, query, rcodeOf, startServer, tcpExchange } from '@foghorn/testkit';

/** A plugin that records its name in `order` on every query and passes on. */
function tracer(name: string, order: string[]): PluginDefinition {
  return definePlugin({
    name,
    setup(c) {
      c.next();
      c.addHandler((next) => ({
        name,
        serveDNS(req, w) {
          order.push(name);
          return nextOrFailure(name, next, req, w);
        },
      }));
    },
  });
}

/** A plugin whose handler `serve` is told the directive's one argument, its mode. */
function modal(name: string, serve: (mode: string | undefined, req: Request, w: ResponseWriter) => HandlerResult): PluginDefinition {
  return definePlugin({
    name,
    setup(c) {
      c.next();
      const mode = c.remainingArgs()[0];
      c.addHandler(() => ({ name, serveDNS: (req, w) => serve(mode, req, w) }));
    },
  });
}

/** A plugin whose behaviour is chosen by its argument: refuse, error, panic, asyncpanic. */
const trouble = modal('trouble', (mode) => {
  if (mode === 'refuse') return Rcode.REFUSED;
  if (mode === 'error') throw new PluginError('plugin/trouble: upstream went away', { rcode: Rcode.SERVFAIL });
  if (mode === 'asyncpanic') return Promise.reject(new TypeError('boom later'));
  throw new TypeError('boom');
});

test('the chain runs in directive-list order, whatever the Corefile order', async (t) => {
  const order: string[] = [];
  const directives = directivesOf(bind, tracer('first', order), tracer('second', order), whoami);
  const server = await startServer('.:0 {\n    whoami\n    second\n    first\n    bind 127.0.0.1\n}\n', { directives });
  t.after(() => server.close());
  assert.equal(rcodeOf(await query({ port: server.port() }, 'example.org', 'A')), 'NOERROR');
  assert.deepEqual(order, ['first', 'second']);
});

test('a plugin with no next plugin fails with SERVFAIL', async (t) => {
  const order: string[] = [];
  const server = await startServer('.:0 {\n    bind 127.0.0.1\n    lonely\n}\n', { directives: directivesOf(bind, tracer('lonely', order)) });
  t.after(() => server.close());
  assert.equal(rcodeOf(await query({ port: server.port() }, 'example.org', 'A')), 'SERVFAIL');
});

test('error rcodes returned without a write are written by the server; panics become SERVFAIL', async (t) => {
  const directives = directivesOf(bind, trouble);
  const cases: [string, string][] = [['refuse', 'REFUSED'], ['error', 'SERVFAIL'], ['panic', 'SERVFAIL'], ['asyncpanic', 'SERVFAIL']];
  for (const [mode, rcode] of cases) {
    const server = await startServer(`.:0 {\n    bind 127.0.0.1\n    trouble ${mode}\n}\n`, { directives });
    t.after(() => server.close());
    for (const transport of ['udp', 'tcp'] as const) {
      const reply = await query({ port: server.port() }, 'Example.org', 'A', { transport });
      assert.equal(rcodeOf(reply), rcode, `${mode} over ${transport}`);
      assert.equal(reply.questions?.[0]?.name, 'Example.org');
    }
    if (mode.endsWith('panic')) {
      assert.ok(server.lines.some((line) => line.startsWith('[ERROR] Recovered from panic in server: "dns://127.0.0.1:0"')), server.lines.join('\n'));
      const panics = await server.server.registry.getSingleMetricAsString('coredns_panics_total');
      assert.match(panics, /coredns_panics_total 2/);
    }
  }
});

/**
 * A plugin that writes a reply and goes on: `twice` writes a second one (NXDOMAIN), `many` 69
 * more with IDs 1 to 69 (more than the listener keeps waiting in one turn), `panic` throws, `wait`
 * returns a promise the test settles with {@link settle}.
 */
let settle = (): void => {};
const writer = modal('writer', (mode, req, w) => {
  w.write(replyTo(req));
  if (mode === 'twice') w.write(replyTo(req, Rcode.NXDOMAIN));
  if (mode === 'many') for (let id = 1; id < 70; id++) w.write({ ...replyTo(req), id });
  if (mode === 'panic') throw new TypeError('boom after the write');
  if (mode === 'wait') return new Promise<number>((resolve) => (settle = () => resolve(Rcode.NOERROR)));
  return Rcode.NOERROR;
});

/** Sends the `wires` at once, from one socket, and collects the datagrams that come back within `ms`. */
function datagrams(port: number, wires: Buffer[], ms: number): Promise<Buffer[]> {
  const socket = dgram.createSocket('udp4');
  const got: Buffer[] = [];
  socket.on('message', (msg) => got.push(msg));
  for (const wire of wires) socket.send(wire, port, '127.0.0.1');
  return new Promise((resolve) => setTimeout(() => socket.close(() => resolve(got)), ms));
}

test('UDP replies leave at the end of the turn: every write, in order, none lost', async (t) => {
  const start = async (mode: string): Promise<number> => {
    const server = await startServer(`.:0 {\n    bind 127.0.0.1\n    writer ${mode}\n}\n`, { directives: directivesOf(bind, writer) });
    t.after(() => server.close());
    return server.port();
  };
  const rcodes = async (mode: string): Promise<string[]> => {
    const replies = await datagrams(await start(mode), [makeQuery('example.org', 'A')], 300);
    settle();
    return replies.map((wire) => rcodeOf(decodeReply(wire)));
  };
  assert.deepEqual(await rcodes('once'), ['NOERROR']);
  assert.deepEqual(await rcodes('twice'), ['NOERROR', 'NXDOMAIN']);
  // Written before the panic: no SERVFAIL follows it.
  assert.deepEqual(await rcodes('panic'), ['NOERROR']);
  // The chain still waits when the reply arrives: it was not held until the chain settled.
  assert.deepEqual(await rcodes('wait'), ['NOERROR']);
  // More writes in one turn than the listener keeps waiting: all of them, in the order written.
  const many = await datagrams(await start('many'), [makeQuery('example.org', 'A', { id: 0 })], 300);
  assert.deepEqual(many.map((wire) => decodeReply(wire).id), Array.from({ length: 70 }, (_, id) => id));
  // A burst of queries, read in one turn or a few: one reply each.
  const burst = Array.from({ length: 200 }, (_, id) => makeQuery('example.org', 'A', { id }));
  const ids = (await datagrams(await start('once'), burst, 500)).map((wire) => decodeReply(wire).id ?? -1);
  assert.deepEqual(ids.sort((x, y) => x - y), Array.from({ length: 200 }, (_, id) => id));
});

async function configError(corefile: string, directives: DirectiveEntry[] = directivesOf(bind, whoami)): Promise<string> {
  try {
    await validateCorefile({ path: 'Corefile', contents: corefile }, { directives, dnsPort: 1053 });
  } catch (error) {
    return (error as Error).message;
  }
  return 'accepted';
}

test('configuration errors name the place, and a duplicate names both places', async () => {
  assert.equal(await configError('example.org {\n  whoami\n}\nexample.org:1053 {\n  whoami\n}\n'), 'Corefile:4:1 - Error during parsing: cannot serve dns://example.org.:1053 - it is already defined at Corefile:1:1');
  assert.equal(await configError('a.org B.org {\n  whoami\n}\nb.org {\n  whoami\n}\n'), 'Corefile:4:1 - Error during parsing: cannot serve dns://b.org.:1053 - it is already defined at Corefile:1:7');
  assert.match(await configError('a.org {\n  bind 127.0.0.1\n  whoami\n}\nb.org {\n  whoami\n}\n'), /^Corefile:5:1 - Error during parsing: cannot serve dns:\/\/b.org.:1053 - port 1053 is also served on a specific address at Corefile:1:1/);
  assert.equal(await configError('a.org {\n  bind 127.0.0.1\n  whoami\n}\na.org {\n  bind 127.0.0.2\n  whoami\n}\n'), 'accepted', 'the same zone on two addresses is fine');
  assert.equal(await configError('. {\n  whoami\n  forward . 1.1.1.1\n}\n'), "Corefile:3:3 - Error during parsing: Unknown directive 'forward'");
  assert.equal(await configError('. {\n  bind nosuchif0\n}\n'), 'plugin/bind: Corefile:2:8 - Error during parsing: not a valid IP address or interface name: "nosuchif0"');
  assert.equal(await configError('. {\n  bind\n}\n'), 'plugin/bind: Corefile:2:3 - Error during parsing: at least one address or interface name is expected');
  assert.equal(await configError('10.0.0.0/33 {\n  whoami\n}\n'), 'Corefile:1:1 - Error during parsing: invalid CIDR 10.0.0.0/33');
});

/** Answers after `ms` milliseconds: an asynchronous data source. */
/** Queries the slow plugin holds right now. */
let slowInFlight = 0;

const slow = definePlugin({
  name: 'slow',
  setup(c) {
    c.next();
    const ms = Number(c.remainingArgs()[0] ?? '100');
    c.addHandler(() => ({
      name: 'slow',
      serveDNS: (req, w) => {
        slowInFlight++;
        return new Promise<number>((resolve) =>
          setTimeout(() => {
            slowInFlight--;
            w.write(replyTo(req));
            resolve(Rcode.NOERROR);
          }, ms),
        );
      },
    }));
  },
});

test('a graceful stop still answers TCP queries in flight', async () => {
  const server = await startServer('.:0 {\n    bind 127.0.0.1\n    slow 300\n}\n', { directives: directivesOf(bind, slow) });
  const pending = tcpExchange({ port: server.port() }, makeQuery('example.org', 'A', { id: 5 }), 3000);
  await eventually(() => slowInFlight === 1);
  await server.server.stop();
  const [reply] = await pending;
  assert.ok(reply, 'the reply came before the connection closed');
  assert.equal(decodeReply(reply).id, 5);
});

test('a reload moves a port from every address to a bind address and back', async (t) => {
  const { port } = await (async () => {
    const probe = await startServer('.:0 {\n    bind 127.0.0.1\n    whoami\n}\n', { directives: directivesOf(bind, whoami) });
    const found = probe.port();
    await probe.close();
    return { port: found };
  })();
  const wildcard = `.:${port} {\n    whoami\n}\n`;
  const bound = `.:${port} {\n    bind 127.0.0.1\n    whoami\n}\n`;
  const server = await startServer(wildcard, { directives: directivesOf(bind, whoami) });
  t.after(() => server.close());
  for (const corefile of [bound, wildcard]) {
    assert.equal(await server.reload(corefile), true, server.lines.join('\n'));
    assert.equal(rcodeOf(await query({ port }, 'example.org', 'A')), 'NOERROR');
  }
});
