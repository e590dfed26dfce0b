/**
 * An upstream socket that cannot even be set up (source_address names an address this machine
 * does not have) is a failed exchange, not a crashed process: SERVFAIL, and the server lives on.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { query, rcodeOf, upstreamFor } from '@foghorn/testkit';
import { serve } from './serve.js';

test('a source_address that cannot be bound gives SERVFAIL and the server keeps answering', async (t) => {
  const upstream = await upstreamFor(t);
  // 192.0.2.1 (TEST-NET-1, RFC 5737) is never local: binding to it fails before anything is sent.
  const server = await serve(t, `forward example.org ${upstream.address} {\n source_address 192.0.2.1\n max_fails 0\n }`);
  const target = { port: server.port() };
  for (let i = 0; i < 3; i++) assert.equal(rcodeOf(await query(target, 'www.example.org', 'A')), 'SERVFAIL');
  assert.equal(rcodeOf(await query(target, 'other.test', 'A')), 'NOERROR', 'names outside FROM still reach whoami');
});
