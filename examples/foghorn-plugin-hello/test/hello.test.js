// The plugin's own tests, as its author would run them with `npm test`: a real Foghorn server
// from Corefile text, queried over UDP and TCP through @foghorn/testkit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { directivesOf, query, rcodeOf, startServer } from '@foghorn/testkit';
import hello from '../index.js';

test('hello answers TXT in its zone with the greeting, over UDP and TCP', async (t) => {
  const server = await startServer('example.org:0 {\n    hello "hi there"\n}\n', { directives: directivesOf(hello) });
  t.after(() => server.close());
  for (const transport of ['udp', 'tcp']) {
    const reply = await query({ port: server.port() }, 'Example.org', 'TXT', { transport });
    assert.equal(rcodeOf(reply), 'NOERROR');
    assert.equal(reply.flag_aa, true);
    assert.deepEqual(reply.answers?.map((rr) => [rr.name, String(rr.data)]), [['Example.org', 'hi there']]);
  }
});

test('hello passes other types on, and fails when nothing comes after it', async (t) => {
  const server = await startServer('example.org:0 {\n    hello\n}\n', { directives: directivesOf(hello) });
  t.after(() => server.close());
  assert.equal(rcodeOf(await query({ port: server.port() }, 'example.org', 'A')), 'SERVFAIL');
});

test('hello takes at most one argument', async () => {
  await assert.rejects(startServer('example.org:0 {\n    hello a b\n}\n', { directives: directivesOf(hello) }), {
    message: "plugin/hello: Corefile:2:13 - Error during parsing: Wrong argument count or unexpected line ending after 'b'",
  });
});
