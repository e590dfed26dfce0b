import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import type { Packet, TxtAnswer } from 'dns-packet';
import { appVersion } from '@foghorn/core/wire';
import bind from '@foghorn/plugin-bind';
import { directivesOf, query, rcodeOf, startServer, testPlugin } from '@foghorn/testkit';
import type { TestServer } from '@foghorn/testkit';
import chaos from '../src/index.js';
import { owners } from '../src/owners.js';

/** The next plugin: answers every query it gets with one A record, so a test sees it was reached. */
const next = testPlugin('next', () => ({
  name: 'next',
  serveDNS(req, w) {
    w.write({ type: 'response', id: req.id, flags: 0x8000, questions: [{ name: req.name, type: 'A', class: 'IN' }], answers: [{ type: 'A', name: 'next.', ttl: 1, data: '192.0.2.1' }] });
    return 0;
  },
}));
const directives = directivesOf(bind, chaos, next);

async function serve(t: { after(fn: () => Promise<void>): void }, body: string, key = '.'): Promise<TestServer> {
  const server = await startServer(`${key}:0 {\n    bind 127.0.0.1\n${body}\n}\n`, { directives });
  t.after(() => server.close());
  return server;
}

/** The TXT strings of the answer section, one per record. */
function txts(reply: Packet): string[] {
  return (reply.answers ?? []).map((rr) => {
    assert.equal(rr.type, 'TXT');
    assert.equal(rr.class, 'CH');
    assert.equal(rr.ttl, 0);
    return ((rr as TxtAnswer).data as Buffer[]).map((b) => b.toString()).join('');
  });
}

const reachedNext = (reply: Packet): boolean => reply.answers?.[0]?.name === 'next';

// CoreDNS's plugin/chaos/chaos_test.go table, over both transports.
for (const transport of ['udp', 'tcp'] as const) {
  test(`chaos answers version.bind and authors.bind over ${transport}, and passes SRV on (CoreDNS TestChaos)`, async (t) => {
    const server = await serve(t, '    chaos CoreDNS-001 "Miek Gieben"\n    next');
    const target = { port: server.port() };
    const version = await query(target, 'version.bind', 'TXT', { class: 'CH', transport });
    assert.equal(rcodeOf(version), 'NOERROR');
    assert.equal(version.flag_aa, false);
    assert.equal(version.answers?.[0]?.name, 'version.bind');
    assert.deepEqual(txts(version), ['CoreDNS-001']);
    assert.deepEqual(txts(await query(target, 'authors.bind', 'TXT', { class: 'CH', transport })), ['Miek Gieben']);
    assert.ok(reachedNext(await query(target, 'authors.bind', 'SRV', { class: 'CH', transport })));
  });
}

test('chaos answers version.server with the version and hostname.bind, id.server with the host name', async (t) => {
  const server = await serve(t, '    chaos v9\n    next');
  const target = { port: server.port() };
  assert.deepEqual(txts(await query(target, 'version.server', 'TXT', { class: 'CH' })), ['v9']);
  for (const name of ['hostname.bind', 'id.server', 'HostName.Bind']) {
    const reply = await query(target, name, 'TXT', { class: 'CH' });
    assert.equal(reply.answers?.[0]?.name, name, 'the owner is the name as asked');
    assert.deepEqual(txts(reply), [hostname().slice(0, 255)], name);
  }
});

test('chaos without arguments answers the version banner and the maintainers', async (t) => {
  const server = await serve(t, '    chaos');
  const target = { port: server.port() };
  assert.deepEqual(txts(await query(target, 'version.bind', 'TXT', { class: 'CH' })), [`Foghorn-${appVersion()}`]);
  assert.deepEqual(txts(await query(target, 'authors.bind', 'TXT', { class: 'CH' })).sort(), [...owners].sort());
});

test('chaos answers every author, one TXT record each', async (t) => {
  const server = await serve(t, '    chaos v1 carol alice bob alice');
  const reply = await query({ port: server.port() }, 'authors.bind', 'TXT', { class: 'CH', transport: 'tcp' });
  assert.deepEqual(txts(reply).sort(), ['alice', 'bob', 'carol']);
});

test('chaos passes class IN, other names and other types to the next plugin', async (t) => {
  const server = await serve(t, '    chaos\n    next');
  const target = { port: server.port() };
  assert.ok(reachedNext(await query(target, 'version.bind', 'TXT')), 'class IN');
  assert.ok(reachedNext(await query(target, 'example.org', 'TXT', { class: 'CH' })), 'other name');
  assert.ok(reachedNext(await query(target, 'version.bind', 'A', { class: 'CH' })), 'other type');
});

test('chaos last in its block fails what it does not answer with SERVFAIL', async (t) => {
  const server = await serve(t, '    chaos');
  assert.equal(rcodeOf(await query({ port: server.port() }, 'version.bind', 'A', { class: 'CH' })), 'SERVFAIL');
});

test('class CH reaches chaos served by zone keys, and is refused where no block uses chaos', async (t) => {
  const server = await startServer(
    'version.bind:0 version.server:0 authors.bind:0 hostname.bind:0 id.server:0 {\n    bind 127.0.0.1\n    chaos CoreDNS-001 info@coredns.io\n}\n' +
      'example.org:0 {\n    bind 127.0.0.2\n    next\n}\n',
    { directives },
  );
  t.after(() => server.close());
  const chaosPort = server.port('version.bind.');
  assert.deepEqual(txts(await query({ port: chaosPort }, 'version.bind', 'TXT', { class: 'CH' })), ['CoreDNS-001']);
  assert.deepEqual(txts(await query({ port: chaosPort }, 'authors.bind', 'TXT', { class: 'CH', transport: 'tcp' })), ['info@coredns.io']);
  const other = { port: server.port('example.org.'), host: '127.0.0.2' };
  assert.equal(rcodeOf(await query(other, 'example.org', 'TXT', { class: 'CH' })), 'REFUSED');
  assert.ok(reachedNext(await query(other, 'example.org', 'TXT')));
});
