import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RecordType } from 'dns-packet';
import bind from '@foghorn/plugin-bind';
import whoami from '@foghorn/plugin-whoami';
import { directivesOf, query, rcodeOf, startServer } from '@foghorn/testkit';
import any from '../src/index.js';

const directives = directivesOf(bind, any, whoami);
/** dns-packet encodes ANY (255) but its RecordType leaves it out. */
const ANY = 'ANY' as RecordType;

for (const transport of ['udp', 'tcp'] as const) {
  test(`any answers ANY with the HINFO of RFC 8482 over ${transport} (CoreDNS TestAny)`, async (t) => {
    const server = await startServer('example.org:0 {\n    bind 127.0.0.1\n    any\n    whoami\n}\n', { directives });
    t.after(() => server.close());
    const reply = await query({ port: server.port() }, 'Example.ORG', ANY, { transport });
    assert.equal(rcodeOf(reply), 'NOERROR');
    assert.equal(reply.flag_aa, false);
    assert.deepEqual(reply.answers, [
      { name: 'Example.ORG', type: 'HINFO', class: 'IN', ttl: 8482, flush: false, data: { cpu: 'ANY obsoleted', os: 'See RFC 8482' } },
    ]);
    // whoami was not reached: it would have added the client's address.
    assert.deepEqual(reply.additionals, []);
  });
}

test('any passes every other type to the next plugin (CoreDNS TestAnyNonANYQuery)', async (t) => {
  const server = await startServer('example.org:0 {\n    bind 127.0.0.1\n    any\n    whoami\n}\n', { directives });
  t.after(() => server.close());
  for (const type of ['A', 'AAAA', 'MX', 'TXT', 'CNAME'] satisfies RecordType[]) {
    const reply = await query({ port: server.port() }, 'example.org', type);
    assert.equal(rcodeOf(reply), 'NOERROR', type);
    assert.deepEqual(reply.answers, [], type);
    assert.deepEqual(reply.additionals?.map((rr) => rr.type), ['A', 'SRV'], `${type} reached whoami`);
  }
});

test('any alone in a block fails a non-ANY query with SERVFAIL, as NextOrFailure does', async (t) => {
  const server = await startServer('example.org:0 {\n    bind 127.0.0.1\n    any\n}\n', { directives });
  t.after(() => server.close());
  assert.equal(rcodeOf(await query({ port: server.port() }, 'example.org', 'A')), 'SERVFAIL');
  assert.equal(rcodeOf(await query({ port: server.port() }, 'example.org', ANY)), 'NOERROR');
});
