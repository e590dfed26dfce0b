/**
 * What the rrl tests share: a server with a small zone on loopback, and the blast, which sends
 * many queries at once from one source address (any 127/8 address binds on Linux) and collects
 * the replies until none came for a while; what never comes back was dropped.
 */
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import type { RecordType } from 'dns-packet';
import acl from '@foghorn/plugin-acl';
import bind from '@foghorn/plugin-bind';
import cache from '@foghorn/plugin-cache';
import file from '@foghorn/plugin-file';
import rrl from '@foghorn/plugin-rrl';
import whoami from '@foghorn/plugin-whoami';
import { decodeReply, directivesOf, eventually, makeQuery, query, startServer, tempFile } from '@foghorn/testkit';
import type { QueryOptions, Reply, TestServer } from '@foghorn/testkit';

const directives = directivesOf(bind, rrl, acl, cache, file, whoami);

const zone = [
  '$ORIGIN example.org.',
  '$TTL 300',
  '@ IN SOA ns.example.org. hostmaster.example.org. 1 7200 3600 1209600 60',
  '@ IN NS ns.example.org.',
  'ns IN A 192.0.2.53',
  'www IN A 192.0.2.1',
  'a IN A 192.0.2.2',
  'b IN A 192.0.2.3',
  'c IN A 192.0.2.4',
  'sub IN NS ns.sub.example.org.',
  'ns.sub IN A 192.0.2.54',
  '',
].join('\n');

/** How long a blast waits for its first reply, and after each reply, before it takes the rest as dropped. */
const firstMs = 1000;
const quietMs = 250;

/**
 * Serves `body` (DB stands for the zone file's path) and waits until the zone answers over TCP,
 * which rrl never limits: a blast then meets a loaded server, not one still starting.
 */
export async function serve(t: { after(fn: () => unknown): void }, body: string, key = 'example.org:0'): Promise<TestServer> {
  const db = tempFile(t, zone, 'db.example.org');
  const server = await startServer(`${key} {\n bind 127.0.0.1\n${body.replaceAll('DB', db)}\n}\n`, { directives });
  t.after(() => server.close());
  await eventually(async () => assert.equal((await query({ port: server.port() }, 'ns.example.org', 'A', { transport: 'tcp' })).answers?.length, 1));
  return server;
}

export interface Question {
  readonly name: string;
  readonly type: RecordType;
}

/** Sends every question at once from `source` (one socket, distinct IDs); the replies by question index. */
export async function blast(server: TestServer, source: string, questions: readonly Question[], options: QueryOptions = {}): Promise<(Reply | undefined)[]> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, source, resolve));
  const replies: (Reply | undefined)[] = Array.from({ length: questions.length });
  let timer: NodeJS.Timeout | undefined;
  const done = new Promise<void>((resolve) => {
    const quiet = (ms: number): void => {
      clearTimeout(timer);
      timer = setTimeout(resolve, ms);
    };
    socket.on('message', (msg) => {
      const index = msg.readUInt16BE(0);
      if (index < replies.length) replies[index] = decodeReply(msg);
      quiet(quietMs);
    });
    quiet(firstMs);
  });
  questions.forEach((q, id) => socket.send(makeQuery(q.name, q.type, { ...options, id }), server.port(), '127.0.0.1'));
  await done;
  socket.close();
  return replies;
}

export const repeat = (name: string, type: RecordType, count: number): Question[] => Array.from({ length: count }, () => ({ name, type }));
export const answered = (replies: readonly (Reply | undefined)[]): Reply[] => replies.filter((r): r is Reply => r !== undefined);
export const full = (replies: readonly (Reply | undefined)[]): Reply[] => answered(replies).filter((r) => !r.flag_tc);
export const slipped = (replies: readonly (Reply | undefined)[]): Reply[] => answered(replies).filter((r) => r.flag_tc);

/**
 * At 5 a second an account passes 5 replies at once, and one more per 200 ms the blast takes to
 * be served: 5 to 10 leaves a loaded machine a second, and still shows most of 12 or 20 limited.
 */
export function assertLimited(count: number, what: string): void {
  assert.ok(count >= 5 && count <= 10, `${what}: ${count} replies, expected 5..10`);
}
