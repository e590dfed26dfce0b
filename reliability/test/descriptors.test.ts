/**
 * Descriptor exhaustion: under `ulimit -n 1024` (soft and hard), 1,100 idle TCP connections used
 * to take every descriptor, so new TCP clients and forward's upstream sockets failed. The
 * connection cap follows the limit (half of it), the start-up log says so, and both keep working.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import bind from '@foghorn/plugin-bind';
import whoami from '@foghorn/plugin-whoami';
import { directivesOf, makeQuery, startServer, udpExchange } from '@foghorn/testkit';
import { freshClientServed, idleConnections, openAtMost } from '../abuse.js';
import { scratch, startFoghorn } from '../harness.js';
import { freeTcpPort } from '@foghorn/testkit';

test('ulimit -n 1024: 1,100 idle TCP connections leave room for new clients and forward upstream sockets', async (t) => {
  const upstream = await startServer('.:0 {\n    bind 127.0.0.1\n    whoami\n}\n', { directives: directivesOf(bind, whoami) });
  t.after(() => upstream.close());
  const work = await scratch();
  t.after(() => work.close());
  const port = await freeTcpPort();
  const corefile = `.:${port} {\n    bind 127.0.0.1\n    forward . 127.0.0.1:${upstream.port()} {\n        force_tcp\n    }\n}\n`;
  const server = await startFoghorn(corefile, port, work.dir, { keepOutput: true, shell: 'ulimit -n 1024 &&' });
  t.after(() => server.stop());
  assert.ok(
    server.output.some((line) => line.includes('open file limit is 1024 (hard 1024): at most 512 TCP, DoT and DoH connections in all')),
    server.output.join('\n'),
  );
  const idle = await idleConnections(port, 1100);
  t.after(() => idle.forEach((s) => s.destroy()));
  const open = await openAtMost(idle, 512);
  assert.ok(open <= 512, `${open} idle connections open`);
  assert.ok(await freshClientServed(port), 'a new TCP client is served');
  // Forward over TCP opens upstream connections: descriptors are left for them.
  for (let i = 0; i < 20; i++) {
    const reply = await udpExchange({ port }, makeQuery(`q${i}.example.org`, 'A', { id: i }), 2000);
    assert.ok(reply, `forwarded query ${i} answered`);
    assert.equal(reply[3]! & 0x0f, 0, `forwarded query ${i} NOERROR`);
  }
  assert.equal(server.exitCode, undefined);
});
