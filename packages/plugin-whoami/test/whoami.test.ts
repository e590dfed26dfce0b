import { test } from 'node:test';
import assert from 'node:assert/strict';
import bind from '@foghorn/plugin-bind';
import { directivesOf, query, rcodeOf, startServer } from '@foghorn/testkit';
import whoami from '../src/index.js';

test('whoami answers the root with _udp. and its client port', async (t) => {
  const server = await startServer('.:0 {\n    bind 127.0.0.1\n    whoami\n}\n', { directives: directivesOf(bind, whoami) });
  t.after(() => server.close());
  const reply = await query({ port: server.port() }, '.', 'NS');
  assert.equal(rcodeOf(reply), 'NOERROR');
  assert.equal(reply.answers?.length, 0);
  assert.deepEqual(reply.additionals?.map((rr) => [rr.type, rr.name]), [['A', '.'], ['SRV', '_udp']]);
});

test('a name too long for `_udp.` in front gets its address without the SRV record, never a malformed reply', async (t) => {
  const server = await startServer('.:0 {\n    bind 127.0.0.1\n    whoami\n}\n', { directives: directivesOf(bind, whoami) });
  t.after(() => server.close());
  const label = (c: string): string => c.repeat(62);
  const longest = [label('a'), label('b'), label('c'), label('d')].join('.'); // 4 x 63 + 1 = 253 octets
  const reply = await query({ port: server.port() }, longest, 'A', { udpSize: 4096 });
  assert.deepEqual(reply.additionals?.map((rr) => rr.type), ['A', 'OPT']);
  const fits = [label('a'), label('b'), label('c'), 'd'.repeat(57)].join('.'); // 248 octets: _udp. makes 253
  assert.deepEqual((await query({ port: server.port() }, fits, 'A', { udpSize: 4096 })).additionals?.map((rr) => rr.type), ['A', 'SRV', 'OPT']);
});
