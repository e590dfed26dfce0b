/**
 * A query carrying a malformed record in its answer, authority or additional section (a
 * self-referencing compression pointer, an A record of 3 octets) is answered FORMERR with its
 * question, as CoreDNS does, and never reaches forward's upstream.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import bind from '@foghorn/plugin-bind';
import forward from '@foghorn/plugin-forward';
import { directivesOf, makeQuery, startServer, startUpstream, tcpExchange, udpExchange } from '@foghorn/testkit';

function withRecord(section: 6 | 8 | 10, record: Buffer): Buffer {
  const query = makeQuery('www.example.org', 'A', { id: 99 });
  const wire = Buffer.concat([query, record]);
  wire.writeUInt16BE(1, section);
  return wire;
}

test('forward: a query with a malformed record gets FORMERR with its question and is not sent upstream', async (t) => {
  const upstream = await startUpstream();
  t.after(() => upstream.close());
  const server = await startServer(`.:0 {\n    bind 127.0.0.1\n    forward . 127.0.0.1:${upstream.port}\n}\n`, { directives: directivesOf(bind, forward) });
  t.after(() => server.close());
  const target = { port: server.port() };
  const threeOctetA = Buffer.from([0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 3, 192, 0, 2]);
  const query = makeQuery('www.example.org', 'A');
  const selfPointer = Buffer.from([0xc0, query.length, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 192, 0, 2, 1]);
  for (const section of [6, 8, 10] as const) {
    for (const record of [threeOctetA, selfPointer]) {
      const wire = withRecord(section, record);
      for (const reply of [await udpExchange(target, wire), (await tcpExchange(target, wire))[0]]) {
        assert.ok(reply, 'answered');
        assert.equal(reply[3]! & 0x0f, 1, 'FORMERR');
        assert.equal(reply.readUInt16BE(4), 1, 'with the question');
        assert.equal(reply.readUInt16BE(6) + reply.readUInt16BE(8) + reply.readUInt16BE(10), 0, 'and no records');
      }
    }
  }
  assert.equal(upstream.lookups.length, 0, 'nothing reached the upstream');
  const good = await udpExchange(target, makeQuery('www.example.org', 'A'));
  assert.equal(good![3]! & 0x0f, 0);
  assert.equal(upstream.lookups.length, 1);
});
