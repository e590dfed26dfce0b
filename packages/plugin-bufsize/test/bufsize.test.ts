import { test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import dnsPacket from 'dns-packet';
import type { Answer, OptAnswer, Packet } from 'dns-packet';
import bind from '@foghorn/plugin-bind';
import forward from '@foghorn/plugin-forward';
import { createLogPlugin } from '@foghorn/plugin-log';
import whoami from '@foghorn/plugin-whoami';
import { directivesOf, query, rcodeOf, reply, startServer, testPlugin, upstreamFor } from '@foghorn/testkit';
import bufsize from '../src/index.js';

/** A large answer: 100 A records, 16 bytes each once the owner is compressed: over 1024 bytes in all. */
const big = testPlugin('big', () => ({
  name: 'big',
  serveDNS(req, w) {
    const answers: Answer[] = Array.from({ length: 100 }, (_, i) => ({ type: 'A', name: req.name, ttl: 60, data: `192.0.2.${i + 1}` }));
    w.write({ type: 'response', id: req.id, flags: 0x8400, questions: [{ name: req.name, type: 'A', class: 'IN' }], answers });
    return 0;
  },
}));
/** Lines the log plugin writes. */
const logged: string[] = [];
const directives = directivesOf(bind, bufsize, createLogPlugin({ sink: (line) => logged.push(line) }), forward, big, whoami);

/** The OPT record of a message, if any. */
const optOf = (msg: Packet): OptAnswer | undefined => msg.additionals?.find((rr): rr is OptAnswer => rr.type === 'OPT');

/**
 * testkit's upstream, answering with one A record and echoing the query's OPT; `sizes` is the
 * OPT size of every query it got (health probes aside).
 */
async function upstream(t: TestContext): Promise<{ port: number; readonly sizes: (number | undefined)[] }> {
  const up = await upstreamFor(t, (q) => [reply(q, { answers: [{ type: 'A', name: q.questions[0]?.name ?? '.', ttl: 5, data: '192.0.2.53' }] })]);
  return {
    port: up.port,
    get sizes() {
      return up.lookups.map((seen) => optOf(dnsPacket.decode(seen.raw))?.udpPayloadSize);
    },
  };
}

// CoreDNS's plugin/bufsize/bufsize_test.go table (limit 1024), checked where it matters: in the
// query forward sends upstream, and in the OPT of the reply the client gets.
const table = [
  { title: 'limits a larger buffer size', client: 1024 + 128, upstream: 1024 },
  { title: 'does not increase a smaller buffer size', client: 1024 - 128, upstream: 1024 - 128 },
  { title: 'adds no OPT to a query without one', client: undefined, upstream: undefined },
];

for (const transport of ['udp', 'tcp'] as const) {
  for (const { title, client, upstream: wanted } of table) {
    test(`bufsize ${title} in the query forwarded over ${transport}`, async (t) => {
      const up = await upstream(t);
      const server = await startServer(`.:0 {\n    bind 127.0.0.1\n    bufsize 1024\n    forward . 127.0.0.1:${up.port}\n}\n`, { directives });
      t.after(() => server.close());
      const reply = await query({ port: server.port() }, 'example.org', 'A', { transport, ...(client === undefined ? {} : { udpSize: client }) });
      assert.equal(rcodeOf(reply), 'NOERROR');
      assert.deepEqual(up.sizes, [wanted]);
      assert.equal(optOf(reply)?.udpPayloadSize, wanted);
    });
  }
}

test('bufsize defaults to 1232', async (t) => {
  const up = await upstream(t);
  const server = await startServer(`.:0 {\n    bind 127.0.0.1\n    bufsize\n    forward . 127.0.0.1:${up.port}\n}\n`, { directives });
  t.after(() => server.close());
  await query({ port: server.port() }, 'example.org', 'A', { udpSize: 4096 });
  assert.deepEqual(up.sizes, [1232]);
});

test('bufsize cuts UDP replies to the limited size, not the size the client asked for', async (t) => {
  const server = await startServer('.:0 {\n    bind 127.0.0.1\n    bufsize 1024\n    big\n}\n', { directives });
  t.after(() => server.close());
  const cut = await query({ port: server.port() }, 'example.org', 'A', { udpSize: 4096 });
  assert.equal(cut.flag_tc, true);
  // 1024 less header and question (29) and OPT (11) holds 61 records of 16 bytes.
  assert.equal(cut.answers?.length, 61);
  const whole = await query({ port: server.port() }, 'example.org', 'A', { udpSize: 4096, transport: 'tcp' });
  assert.equal(whole.flag_tc, false);
  assert.equal(whole.answers?.length, 100);
});

test('bufsize last in its block fails with SERVFAIL, as NextOrFailure does', async (t) => {
  const server = await startServer('.:0 {\n    bind 127.0.0.1\n    bufsize\n}\n', { directives });
  t.after(() => server.close());
  assert.equal(rcodeOf(await query({ port: server.port() }, 'example.org', 'A', { udpSize: 4096 })), 'SERVFAIL');
});

test('bufsize: log, after it in the chain, prints the limited size as {>bufsize}', async (t) => {
  const server = await startServer('.:0 {\n    bind 127.0.0.1\n    bufsize 1100\n    log . "{>bufsize}"\n    whoami\n}\n', { directives });
  t.after(() => server.close());
  logged.length = 0;
  await query({ port: server.port() }, 'example.org', 'A', { udpSize: 4096 });
  assert.deepEqual(logged, ['[INFO] 1100']);
});
