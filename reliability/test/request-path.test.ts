/**
 * Property-based tests of the request path: the `foghorn` CLI serving Corefile.example gets real
 * queries mutated in every class (bit flips, truncations, count lies, compression loops, label
 * overflows, bad and repeated OPT, odd classes and types, QR=1, other opcodes, malformed records
 * in the other sections, random bytes) over UDP and TCP. Every packet that miekg/dns would not
 * drop gets exactly one valid reply, the classes with a known verdict get that verdict, and the
 * server answers a plain query afterwards. fast-check shrinks a failure to a minimal packet.
 */
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import net from 'node:net';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { makeQuery } from '@foghorn/testkit';
import { frame, rcodeOf, replyProblem } from '../check.js';
import { examplePorts, exampleCorefile, scratch, startFoghorn } from '../harness.js';
import type { Child } from '../harness.js';
import { expectsReply, mutatedOf, mutationClasses } from '../packets.js';
import type { MutationClass } from '../packets.js';

const RUNS = 120;
let server: Child;
let client: dgram.Socket;
let close: () => Promise<void>;

before(async () => {
  const work = await scratch();
  const ports = await examplePorts();
  // Without `log`: one line per query would only slow the run down.
  const corefile = (await exampleCorefile(ports, work.manifests)).replaceAll(/^\s+log$/gm, '');
  server = await startFoghorn(corefile, ports.dns, work.dir);
  client = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => client.bind(0, '127.0.0.1', resolve));
  close = async () => {
    client.close();
    await server.stop();
    await work.close();
  };
});

after(() => close());

/**
 * Sends `wire`, then a plain query with ID `canaryId`; resolves with the replies to `wire` once
 * the plain one is answered (and, when `wire` must be answered, its reply came too).
 */
function udpRoundTrip(wire: Buffer, canaryId: number): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const replies: Buffer[] = [];
    let canary = false;
    const settle = (): void => {
      clearTimeout(timer);
      client.off('message', onMessage);
      resolve(replies);
    };
    const timer = setTimeout(() => {
      if (canary) return settle();
      client.off('message', onMessage);
      reject(new Error(`no answer to a plain query after the packet ${wire.toString('hex')}: the server hangs or died (exit ${server.exitCode})`));
    }, 2000);
    const onMessage = (msg: Buffer): void => {
      if (msg.length >= 2 && msg.readUInt16BE(0) === canaryId) canary = true;
      else replies.push(msg);
      if (canary && (replies.length > 0 || !expectsReply(wire))) settle();
    };
    client.on('message', onMessage);
    client.send(wire, server.port, '127.0.0.1');
    client.send(makeQuery('whoami.example.org', 'A', { id: canaryId }), server.port, '127.0.0.1');
  });
}

/** The verdict a class must get whatever the mutation drew, where miekg/dns's rules fix it. */
const knownVerdict: Partial<Record<MutationClass, (wire: Buffer, reply: Buffer | undefined) => string | undefined>> = {
  response: (_, reply) => (reply ? 'a response (QR=1) was answered' : undefined),
  opcode: (wire, reply) => {
    const opcode = (wire[2]! >> 3) & 0xf;
    if (opcode === 4) return undefined;
    return reply && rcodeOf(reply) === 4 ? undefined : `opcode ${opcode} not answered NOTIMP`;
  },
  multipleOpt: (_, reply) => (reply && rcodeOf(reply) === 1 ? undefined : 'two OPT records not answered FORMERR'),
  pointerLoop: (wire, reply) => (reply && (rcodeOf(reply) === 1 || wire.length < 12) ? undefined : 'a compression loop not answered FORMERR'),
};

for (const kind of mutationClasses) {
  test(`UDP: ${kind} packets get one valid reply (or none when miekg/dns drops them), and the server keeps answering`, async () => {
    let canaryId = 0;
    await fc.assert(
      fc.asyncProperty(mutatedOf(kind), async ({ wire }) => {
        canaryId = (canaryId + 1) & 0xffff;
        // A mutated packet with the canary's ID would be mistaken for it.
        if (wire.length >= 2 && wire.readUInt16BE(0) === canaryId) canaryId = (canaryId + 1) & 0xffff;
        const replies = await udpRoundTrip(wire, canaryId);
        if (!expectsReply(wire)) {
          assert.equal(replies.length, 0, 'a packet miekg/dns drops got a reply');
          return;
        }
        assert.equal(replies.length, 1, `${replies.length} replies`);
        const problem = replyProblem(wire, replies[0]!);
        assert.equal(problem, undefined, problem);
        const verdict = knownVerdict[kind]?.(wire, replies[0]);
        assert.equal(verdict, undefined, verdict);
      }),
      { numRuns: RUNS },
    );
    assert.equal(server.exitCode, undefined, 'the server exited');
  });
}

/** Sends frames over one connection; resolves with the replies and whether the server closed it. */
function tcpSession(frames: Buffer, expected: number): Promise<{ replies: Buffer[]; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const replies: Buffer[] = [];
    let pending = Buffer.alloc(0);
    const socket = net.connect(server.port, '127.0.0.1', () => socket.write(frames));
    const finish = (closed: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ replies, closed });
    };
    const timer = setTimeout(() => finish(false), 2000);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 2 && pending.length >= pending.readUInt16BE(0) + 2) {
        replies.push(pending.subarray(2, pending.readUInt16BE(0) + 2));
        pending = pending.subarray(pending.readUInt16BE(0) + 2);
      }
      if (replies.length === expected) finish(false);
    });
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('error', reject);
  });
}

test('TCP: mutated queries of every class, pipelined with a plain query behind them, get valid replies', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.oneof(...mutationClasses.map(mutatedOf)), { minLength: 1, maxLength: 6 }), async (packets) => {
      const wires = packets.map((p) => p.wire);
      const canary = makeQuery('whoami.example.org', 'A', { id: 7 });
      const { replies, closed } = await tcpSession(Buffer.concat([...wires.map(frame), frame(canary)]), wires.filter(expectsReply).length + 1);
      // miekg/dns closes a TCP connection on a packet it drops; up to there every query is answered in order.
      const dropAt = wires.findIndex((w) => !expectsReply(w));
      const answered = dropAt < 0 ? wires : wires.slice(0, dropAt);
      for (let i = 0; i < Math.min(answered.length, replies.length); i++) {
        const problem = replyProblem(answered[i]!, replies[i]!);
        assert.equal(problem, undefined, `${packets[i]!.kind}: ${problem}`);
      }
      if (dropAt < 0) {
        assert.equal(replies.length, wires.length + 1, `closed=${closed}`);
        assert.equal(rcodeOf(replies.at(-1)!), 0, 'the plain query behind them was answered NOERROR');
      } else {
        assert.equal(replies.length, answered.length, 'the connection ends at the dropped packet');
      }
    }),
    { numRuns: RUNS },
  );
  // And a fresh connection is served after all that.
  const { replies } = await tcpSession(frame(makeQuery('whoami.example.org', 'A', { id: 9 })), 1);
  assert.equal(replies.length, 1);
  assert.equal(server.exitCode, undefined, 'the server exited');
});

test('the server logged no error and no panic under the mutated packets', () => {
  assert.deepEqual(server.errors, []);
});
