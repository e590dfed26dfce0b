/**
 * The stored-entry builder walks the encoded reply to find every TTL field. A reply the cache is
 * handed can lack a question or end in the middle of a name; the walk must refuse it rather than
 * run on (an unbounded walk spins forever on such bytes and takes the server with it).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import dnsPacket from 'dns-packet';
import { ResponseType } from '@foghorn/core/wire';
import { buildEntry, entryFromWire } from '../src/item.js';
import type { EntryInfo } from '../src/item.js';

const info: EntryInfo = { qname: 'a.example.', qtype: 1, qclass: 1, ttl: 30, nowMs: 0, kind: ResponseType.NoError, answers: true };

test('a reply without a question is not stored (and does not hang)', () => {
  assert.equal(buildEntry({ type: 'response', id: 0, flags: 0, questions: [], answers: [] }, info), undefined);
});

test('a reply whose question name or record runs off the end is not stored', () => {
  const whole = dnsPacket.encode({
    type: 'response',
    id: 0,
    questions: [{ type: 'A', name: 'a.example', class: 'IN' }],
    answers: [{ type: 'A', name: 'a.example', ttl: 30, data: '192.0.2.1' }],
  });
  assert.notEqual(entryFromWire(whole, info), undefined, 'the whole reply is stored');
  // Every cut, from a header alone to one byte short, leaves something that cannot be walked.
  for (let length = 12; length < whole.length; length++) {
    assert.equal(entryFromWire(whole.subarray(0, length), info), undefined, `cut at ${length}`);
  }
});

test('a stored reply comes back with the query ID and the TTL asked for', () => {
  const entry = buildEntry(
    {
      type: 'response',
      id: 0,
      flags: 0,
      questions: [{ type: 'A', name: 'a.example', class: 'IN' }],
      answers: [{ type: 'A', name: 'a.example', ttl: 30, data: '192.0.2.1' }],
    },
    info,
  );
  assert.ok(entry !== undefined);
  const query = dnsPacket.encode({ type: 'query', id: 7, questions: [{ type: 'A', name: 'a.example', class: 'IN' }] });
  const req = { id: 7, flags: 0, raw: query, hasEdns: false, ednsOptions: null, dnssecOk: false, udpSize: 0 } as never;
  const reply = dnsPacket.decode(entry.reply(req, 12));
  assert.equal(reply.id, 7);
  assert.deepEqual(reply.answers?.map((rr) => { const a = rr as { name: string; ttl?: number; data: unknown }; return [a.name, a.ttl, a.data]; }), [['a.example', 12, '192.0.2.1']]);
});
