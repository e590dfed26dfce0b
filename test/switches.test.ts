/**
 * FOGHORN_DISABLE (core's switches.ts, docs/performance.md "Switches"): each hot-path trick turned
 * off still serves correctly, over real sockets, and the switch really turns it off. The server
 * runs in a child process (switches-server.ts), since core reads the variable when it loads.
 * `v8-flags` is the CLI's and is tested with its workers (workers.test.ts).
 */
import { spawn } from 'node:child_process';
import dgram from 'node:dgram';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { decodeReply, makeQuery, query, rcodeOf } from '@foghorn/testkit';
import { repoRoot } from './cli-helpers.js';

const script = fileURLToPath(new URL('./switches-server.js', import.meta.url));

interface Child {
  readonly port: number;
  output(): string;
}

async function serve(t: { after(fn: () => void): void }, disable: string): Promise<Child> {
  const env = { ...process.env, FOGHORN_DISABLE: disable };
  const child = spawn(process.execPath, [script], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => void child.kill('SIGKILL'));
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    const collect = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /^port (\d+)$/m.exec(output);
      if (match) resolve(Number(match[1]));
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('exit', (code) => reject(new Error(`the server exited ${code}:\n${output}`)));
  });
  return { port, output: () => output };
}

function txt(reply: Awaited<ReturnType<typeof query>>): string {
  return ((reply.answers?.[0] as { data?: Buffer[] } | undefined)?.data ?? []).map((part) => part.toString()).join('');
}

/** What arrives at a client socket after one query: `reply` (the DNS reply) and `after` (probe's datagram), in order. */
async function arrivals(port: number): Promise<string[]> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  try {
    const seen: string[] = [];
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`only ${seen.join(', ')} arrived`)), 5_000);
      socket.on('message', (msg) => {
        seen.push(msg.toString() === 'after' ? 'after' : `reply ${rcodeOf(decodeReply(msg))}`);
        if (seen.length === 2) {
          clearTimeout(timer);
          resolve();
        }
      });
      socket.send(makeQuery('order.test', 'TXT'), port, '127.0.0.1');
    });
    return seen;
  } finally {
    socket.close();
  }
}

/** Answers over UDP and TCP through log, probe and whoami, and log's line for each. */
async function answersCorrectly(server: Child): Promise<void> {
  for (const transport of ['udp', 'tcp'] as const) {
    const reply = await query({ port: server.port }, 'who.example.org', 'A', { transport });
    assert.equal(rcodeOf(reply), 'NOERROR');
    assert.deepEqual(reply.additionals?.filter((rr) => rr.type === 'A').map((rr) => (rr as { data?: unknown }).data), ['127.0.0.1']);
  }
  // log's line, written by its format's writer: generated code or the loop over the part writers.
  const line = /^\[INFO\] 127\.0\.0\.1:\d+ - \d+ "A IN who\.example\.org\. tcp \d+ false \d+" NOERROR qr,aa,rd \d+ \d+(\.\d+)?s$/m;
  for (let i = 0; !line.test(server.output()) && i < 100; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.match(server.output(), line);
}

test('with every trick on, chain links are generated code and UDP replies wait for the end of the turn', async (t) => {
  const server = await serve(t, '');
  await answersCorrectly(server);
  assert.match(txt(await query({ port: server.port }, 'caller.test', 'TXT')), /^(Object\.)?link\d+$/);
  assert.deepEqual(await arrivals(server.port), ['after', 'reply NOERROR']);
});

test('FOGHORN_DISABLE=codegen: the shared link and log format loop serve the same answers', async (t) => {
  const server = await serve(t, 'codegen');
  await answersCorrectly(server);
  assert.equal(txt(await query({ port: server.port }, 'caller.test', 'TXT')), 'NamedLink.serveDNS');
  assert.deepEqual(await arrivals(server.port), ['after', 'reply NOERROR'], 'the outbox is still on');
});

test('FOGHORN_DISABLE=outbox: each UDP reply leaves as it is written, and a burst is answered in full', async (t) => {
  const server = await serve(t, 'outbox');
  await answersCorrectly(server);
  assert.deepEqual(await arrivals(server.port), ['reply NOERROR', 'after']);
  assert.match(txt(await query({ port: server.port }, 'caller.test', 'TXT')), /^(Object\.)?link\d+$/, 'codegen is still on');
  const ids = await Promise.all(Array.from({ length: 100 }, (_, id) => query({ port: server.port }, `n${id}.example.org`, 'A', { id }).then((r) => r.id)));
  assert.deepEqual(ids, Array.from({ length: 100 }, (_, id) => id));
});

test('FOGHORN_DISABLE takes a list, and a name that is no switch is named in a warning', async (t) => {
  const server = await serve(t, 'outbox, codegen,bogus');
  await answersCorrectly(server);
  assert.equal(txt(await query({ port: server.port }, 'caller.test', 'TXT')), 'NamedLink.serveDNS');
  assert.deepEqual(await arrivals(server.port), ['reply NOERROR', 'after']);
  assert.match(server.output(), /^\[WARNING\] FOGHORN_DISABLE: ignoring 'bogus': the switches are codegen, outbox, v8-flags$/m);
});
