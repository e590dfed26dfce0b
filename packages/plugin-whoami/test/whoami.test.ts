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
