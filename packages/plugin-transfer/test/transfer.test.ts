import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import dnsPacket from 'dns-packet';
import type { Answer } from 'dns-packet';
import { definePlugin, Transferers } from '@foghorn/core';
import { decodeReply, delay, directivesOf, eventually, makeQuery, rcodeOf, startServer, testPlugin } from '@foghorn/testkit';
import type { Reply } from '@foghorn/testkit';
import { hostPort } from '@foghorn/core/wire';
import transfer, { allowed, longestMatch } from '@foghorn/plugin-transfer';

const soa: Answer = { name: 'example.org', type: 'SOA', ttl: 300, data: { mname: 'ns.example.org', rname: 'admin.example.org', serial: 9, refresh: 1, retry: 1, expire: 1, minimum: 1 } };
const hosts = Array.from({ length: 2500 }, (_, i): Answer => ({ name: `h${i}.example.org`, type: 'TXT', ttl: 300, data: ['x'.repeat(40)] }));

/** A zone owner that offers example.org through core's Transferer, in batches and asynchronously. */
const owner = definePlugin({
  name: 'owner',
  setup(c) {
    c.next();
    c.provide(Transferers, {
      name: 'owner',
      transfer(zone, serial) {
        if (zone !== 'example.org.') return null;
        return (async function* (): AsyncGenerator<readonly Answer[]> {
          if (serial === 9) {
            yield [soa];
            return;
          }
          yield [soa];
          for (let i = 0; i < hosts.length; i += 100) {
            await Promise.resolve();
            yield hosts.slice(i, i + 100);
          }
          yield [soa];
        })();
      },
    });
  },
});
/** The next plugin: NOTIMP, an rcode nobody else here gives. */
const answerer = testPlugin('whoami', () => ({ name: 'whoami', serveDNS: () => 4 }));

/** Sends several framed queries on one connection and reads replies until `done` says so. */
function exchange(port: number, queries: Buffer[], done: number | ((replies: Reply[]) => boolean)): Promise<Reply[]> {
  const enough = typeof done === 'number' ? (replies: Reply[]) => replies.length >= done : done;
  return new Promise((resolve, reject) => {
    const replies: Reply[] = [];
    let pending = Buffer.alloc(0);
    const socket = net.connect(port, '127.0.0.1', () => {
      for (const q of queries) {
        const length = Buffer.alloc(2);
        length.writeUInt16BE(q.length);
        socket.write(Buffer.concat([length, q]));
      }
    });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`only ${replies.length} replies`));
    }, 5000);
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 2 && pending.length >= pending.readUInt16BE(0) + 2) {
        replies.push(decodeReply(pending.subarray(2, pending.readUInt16BE(0) + 2)));
        pending = pending.subarray(pending.readUInt16BE(0) + 2);
      }
      if (enough(replies)) {
        clearTimeout(timer);
        socket.destroy();
        resolve(replies);
      }
    });
  });
}

test('transfer streams a transferer’s records over one TCP connection in envelopes under 64 kB, and answers a query pipelined on it', async (t) => {
  const server = await startServer('example.org:0 {\n transfer {\n  to *\n }\n owner\n}\n', { directives: directivesOf(transfer, owner) });
  t.after(() => server.close());
  const axfr = makeQuery('example.org.', 'AXFR', { id: 1 });
  // An ordinary query pipelined behind the AXFR on the same connection: it is answered too, maybe
  // between two envelopes (RFC 5936 §4.1.2 lets a client see other replies interleaved).
  const closingSoa = (r: Reply[]): boolean => r.filter((m) => m.id === 1).flatMap((m) => m.answers ?? []).filter((rr) => rr.type === 'SOA').length >= 2;
  const replies = await exchange(server.port(), [axfr, makeQuery('example.org.', 'SOA', { id: 2 })], (r) => closingSoa(r) && r.some((m) => m.id === 2));
  const transferred = replies.filter((r) => r.id === 1);
  assert.ok(transferred.length >= 2, `${transferred.length} envelopes`);
  const rrs = transferred.flatMap((r) => r.answers ?? []);
  assert.equal(rrs.length, hosts.length + 2);
  assert.deepEqual([rrs[0]!.type, rrs.at(-1)!.type], ['SOA', 'SOA']);
  for (const r of transferred) {
    assert.equal(r.flag_aa, true);
    assert.ok(dnsPacket.encodingLength(r) < 65_535);
  }
  // The pipelined query went down the chain: nobody after owner answers, so SERVFAIL.
  assert.deepEqual(replies.filter((r) => r.id === 2).map(rcodeOf), ['SERVFAIL']);
});

test('an IXFR at the zone’s serial gets the SOA alone, not authoritative, as CoreDNS answers it', async (t) => {
  const server = await startServer('example.org:0 {\n transfer {\n  to *\n }\n owner\n}\n', { directives: directivesOf(transfer, owner) });
  t.after(() => server.close());
  const ixfr = dnsPacket.encode({ type: 'query', id: 7, questions: [{ name: 'example.org', type: 'IXFR', class: 'IN' }], authorities: [{ ...soa }] });
  const [reply] = await exchange(server.port(), [ixfr], 1);
  assert.deepEqual(reply!.answers?.map((rr) => rr.type), ['SOA']);
  assert.equal(reply!.flag_aa, false);
  // An IXFR without the client's SOA is a SERVFAIL (plugin/transfer/transfer.go).
  const [bare] = await exchange(server.port(), [makeQuery('example.org.', 'IXFR', { id: 8 })], 1);
  assert.equal(rcodeOf(bare!), 'SERVFAIL');
});

test('transfer passes other queries and zones no transferer owns to the next plugin', async (t) => {
  const server = await startServer('example.org:0 {\n transfer {\n  to *\n }\n owner\n whoami\n}\n', { directives: directivesOf(transfer, owner, answerer) });
  t.after(() => server.close());
  const [sub] = await exchange(server.port(), [makeQuery('sub.example.org.', 'AXFR', { id: 3 })], 1);
  assert.equal(rcodeOf(sub!), 'NOTIMP', 'answered by the next plugin');
  const [a] = await exchange(server.port(), [makeQuery('example.org.', 'A', { id: 4 })], 1);
  assert.equal(rcodeOf(a!), 'NOTIMP');
});

test('to addresses: host and port forms, longest zone wins, ports do not restrict transfers', () => {
  assert.equal(hostPort('192.0.2.1'), '192.0.2.1:53');
  assert.equal(hostPort('[2001:db8::1]:5300'), '[2001:db8::1]:5300');
  assert.equal(hostPort('2001:db8::1'), '[2001:db8::1]:53');
  assert.throws(() => hostPort('ns.example.org'), /must specify an IP address: `ns.example.org'/);
  const outer = { zones: ['example.org.'], to: ['*'] };
  const inner = { zones: ['sub.example.org.'], to: ['192.0.2.1:5300', '[2001:db8::1]:53'] };
  assert.equal(longestMatch([outer, inner], 'a.sub.example.org.'), inner);
  assert.equal(longestMatch([outer, inner], 'example.org.'), outer);
  assert.equal(longestMatch([outer, inner], 'example.net.'), undefined);
  assert.ok(allowed(inner, '192.0.2.1'));
  assert.ok(allowed(inner, '2001:db8::1'));
  assert.ok(!allowed(inner, '192.0.2.2'));
});

test('a transfer to a client that does not read waits for the connection to drain, then completes', async (t) => {
  const total = 400;
  let pulled = 0;
  // 400 batches of 100 records of ~260 bytes: about 10 MB, more than loopback socket buffers hold.
  const big = definePlugin({
    name: 'owner',
    setup(c) {
      c.next();
      c.provide(Transferers, {
        name: 'owner',
        transfer: (zone) =>
          zone !== 'example.org.'
            ? null
            : (function* (): Generator<readonly Answer[]> {
                yield [soa];
                for (; pulled < total; ) {
                  pulled++;
                  yield Array.from({ length: 100 }, (_, i): Answer => ({ name: `h${pulled}-${i}.example.org`, type: 'TXT', ttl: 300, data: ['y'.repeat(230)] }));
                }
                yield [soa];
              })(),
      });
    },
  });
  const server = await startServer('example.org:0 {\n transfer {\n  to *\n }\n owner\n}\n', { directives: directivesOf(transfer, big) });
  t.after(() => server.close());
  const socket = net.connect(server.port(), '127.0.0.1');
  t.after(() => socket.destroy());
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  socket.pause();
  const q = makeQuery('example.org.', 'AXFR', { id: 9 });
  const length = Buffer.alloc(2);
  length.writeUInt16BE(q.length);
  socket.write(Buffer.concat([length, q]));
  await eventually(() => pulled > 0, 5000);
  // While nothing is read, the producer stops well short of the end.
  // Settled: nothing more was produced in 100 ms.
  for (let last = -1; pulled !== last && pulled !== total; ) {
    last = pulled;
    await delay(100);
  }
  assert.ok(pulled < total, `the whole zone (${pulled} batches) was produced for a client that reads nothing`);
  // Reading resumes: every record arrives.
  let received = 0;
  let pending = Buffer.alloc(0);
  await new Promise<void>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 2 && pending.length >= pending.readUInt16BE(0) + 2) {
        received += decodeReply(pending.subarray(2, pending.readUInt16BE(0) + 2)).answers?.length ?? 0;
        pending = pending.subarray(pending.readUInt16BE(0) + 2);
      }
      if (received === total * 100 + 2) resolve();
    });
    socket.resume();
  });
  assert.equal(pulled, total);
});

test('a client that closes in the middle of a transfer stops it: the rest of the zone is not walked', async (t) => {
  const total = 400;
  let pulled = 0;
  let finished = false;
  const big = definePlugin({
    name: 'owner',
    setup(c) {
      c.next();
      c.provide(Transferers, {
        name: 'owner',
        transfer: (zone) =>
          zone !== 'example.org.'
            ? null
            : (function* (): Generator<readonly Answer[]> {
                try {
                  yield [soa];
                  for (; pulled < total; ) {
                    pulled++;
                    yield Array.from({ length: 100 }, (_, i): Answer => ({ name: `h${pulled}-${i}.example.org`, type: 'TXT', ttl: 300, data: ['y'.repeat(230)] }));
                  }
                  yield [soa];
                } finally {
                  finished = true;
                }
              })(),
      });
    },
  });
  const server = await startServer('example.org:0 {\n transfer {\n  to *\n }\n owner\n}\n', { directives: directivesOf(transfer, big) });
  t.after(() => server.close());
  // Read the first envelope, then hang up.
  await exchange(server.port(), [makeQuery('example.org.', 'AXFR', { id: 9 })], 1);
  // The producer was closed (its finally ran) well before the end of the zone.
  await eventually(() => finished, 5000, 'the transfer to stop');
  assert.ok(pulled < total, `${pulled} of ${total} batches were produced for a client that left`);
  // The server goes on answering.
  const [reply] = await exchange(server.port(), [makeQuery('example.org.', 'AXFR', { id: 10 })], 1);
  assert.equal(rcodeOf(reply!), 'NOERROR');
});
