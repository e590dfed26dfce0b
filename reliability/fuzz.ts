/**
 * `npm run fuzz [-- PACKETS [SEED]]`: the request path under a million mutated packets (default),
 * the way trusted DNS servers are tested from outside. The `foghorn` CLI serves Corefile.example
 * (log included) in a child process; packets of every class from reliability/packets.ts go over
 * UDP in windows, and one in ten over TCP, pipelined on short connections. After every window a
 * plain query must be answered (else a hang); the child must stay up (else a crash).
 *
 * Prints: packets sent per class, crashes, hangs, the valid-answer rate (a valid reply to every
 * packet that must be answered), replies that break the rules, lost replies, and RSS over time.
 */
import dgram from 'node:dgram';
import net from 'node:net';
import fc from 'fast-check';
import { makeQuery, udpExchange } from '@foghorn/testkit';
import { frame, replyProblem } from './check.js';
import { examplePorts, exampleCorefile, mib, sampleProcess, scratch, startFoghorn } from './harness.js';
import type { Child } from './harness.js';
import { expectsReply, mutated, mutationClasses } from './packets.js';
import type { MutationClass, Mutated } from './packets.js';

export interface ClassCount {
  sent: number;
  mustAnswer: number;
  valid: number;
  invalid: number;
  lost: number;
}

export interface FuzzReport {
  readonly packets: number;
  /** TCP packets pipelined behind one the server drops: sent, but never read. */
  readonly unread: number;
  readonly crashes: number;
  readonly hangs: number;
  readonly byClass: Record<MutationClass, ClassCount>;
  readonly invalidExamples: string[];
  readonly rss: { readonly at: number; readonly bytes: number }[];
  readonly seconds: number;
  readonly errors: string[];
}

const WINDOW = 200;
const TCP_EVERY = 10;

/** Fuzzes the server on `port` (process `child`) with `total` packets drawn from `seed`. */
export async function fuzz(child: Child, total: number, seed: number, progress: (line: string) => void = () => {}): Promise<FuzzReport> {
  const started = Date.now();
  const byClass = Object.fromEntries(mutationClasses.map((k) => [k, { sent: 0, mustAnswer: 0, valid: 0, invalid: 0, lost: 0 }])) as Record<MutationClass, ClassCount>;
  const invalidExamples: string[] = [];
  const rss: { at: number; bytes: number }[] = [{ at: 0, bytes: (await sampleProcess(child.process.pid!)).rssBytes }];
  let crashes = 0;
  let hangs = 0;
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  socket.setRecvBufferSize(8 * 1024 * 1024);
  let window: (Mutated | undefined)[] = [];
  let waiting = 0;
  let wake: (() => void) | undefined;
  socket.on('message', (msg) => {
    if (msg.length < 2) return;
    const packet = window[msg.readUInt16BE(0)];
    if (!packet) return;
    window[msg.readUInt16BE(0)] = undefined;
    record(packet, msg);
    if (--waiting === 0) wake?.();
  });
  const record = (packet: Mutated, reply: Buffer | undefined): void => {
    const count = byClass[packet.kind];
    if (!reply) {
      count.lost++;
      return;
    }
    const problem = expectsReply(packet.wire) ? replyProblem(packet.wire, reply) : 'a dropped packet was answered';
    if (problem === undefined) count.valid++;
    else {
      count.invalid++;
      if (invalidExamples.length < 20) invalidExamples.push(`${packet.kind}: ${problem}: ${packet.wire.toString('hex')}`);
    }
  };

  let sent = 0;
  let draw = seed;
  let tcpSkipped = 0;
  while (sent < total && child.exitCode === undefined) {
    const batch = fc.sample(mutated, { numRuns: Math.min(WINDOW * 50, total - sent), seed: draw++ });
    for (let i = 0; i < batch.length && child.exitCode === undefined; i += WINDOW) {
      const slice = batch.slice(i, i + WINDOW);
      const udp: Mutated[] = [];
      const tcp: Mutated[] = [];
      slice.forEach((p, j) => ((sent + j) % TCP_EVERY === 0 ? tcp : udp).push(p));
      // Each packet gets its index in the window as ID, so replies are matched exactly.
      window = [];
      waiting = 0;
      udp.forEach((packet, id) => {
        if (packet.wire.length >= 2) packet.wire.writeUInt16BE(id, 0);
        byClass[packet.kind].sent++;
        if (expectsReply(packet.wire)) {
          byClass[packet.kind].mustAnswer++;
          window[id] = packet;
          waiting++;
        }
        socket.send(packet.wire, child.port, '127.0.0.1');
      });
      const replied = waiting === 0 ? Promise.resolve() : new Promise<void>((resolve) => (wake = resolve));
      const [, tcpResults] = await Promise.all([Promise.race([replied, delay(1000)]), tcpRound(child.port, tcp)]);
      wake = undefined;
      for (const packet of window) if (packet) record(packet, undefined);
      window = [];
      tcpSkipped += tcp.length - tcpResults.length;
      for (const [packet, reply] of tcpResults) {
        byClass[packet.kind].sent++;
        if (expectsReply(packet.wire)) byClass[packet.kind].mustAnswer++;
        if (reply !== null || expectsReply(packet.wire)) record(packet, reply ?? undefined);
      }
      sent += slice.length;
      // A plain query after every window: no answer within 2 s is a hang.
      const canary = await udpExchange({ port: child.port }, makeQuery('whoami.example.org', 'A', { id: 4242 }), 2000).catch(() => null);
      if (canary === null && child.exitCode === undefined) hangs++;
    }
    if (child.exitCode === undefined) rss.push({ at: sent, bytes: (await sampleProcess(child.process.pid!)).rssBytes });
    progress(`${sent} packets, ${((Date.now() - started) / 1000).toFixed(0)} s, RSS ${mib(rss.at(-1)!.bytes)}`);
  }
  if (child.exitCode !== undefined) crashes++;
  socket.close();
  return { packets: sent, unread: tcpSkipped, crashes, hangs, byClass, invalidExamples, rss, seconds: (Date.now() - started) / 1000, errors: [...child.errors] };
}

/**
 * Sends `packets` over TCP, pipelined ten to a connection, and pairs each with its reply (null
 * when none came: after a packet miekg/dns drops, the connection ends).
 */
async function tcpRound(port: number, packets: Mutated[]): Promise<[Mutated, Buffer | null][]> {
  const out: [Mutated, Buffer | null][] = [];
  const sessions: Promise<void>[] = [];
  for (let i = 0; i < packets.length; i += 10) {
    const group = packets.slice(i, i + 10);
    sessions.push(
      tcpSession(port, group.map((p) => p.wire)).then((replies) => {
        // Replies come in order for the packets answered before any drop.
        // Packets behind one the server drops are never read: they are not counted.
        const drop = group.findIndex((p) => !expectsReply(p.wire));
        const read = drop < 0 ? group : group.slice(0, drop + 1);
        read.forEach((packet, r) => out.push([packet, expectsReply(packet.wire) ? (replies[r] ?? null) : null]));
      }),
    );
  }
  await Promise.all(sessions);
  return out;
}

function tcpSession(port: number, wires: Buffer[]): Promise<Buffer[]> {
  return new Promise((resolve) => {
    const replies: Buffer[] = [];
    let pending = Buffer.alloc(0);
    const expected = wires.findIndex((w) => !expectsReply(w));
    const want = expected < 0 ? wires.length : expected;
    const socket = net.connect(port, '127.0.0.1', () => socket.write(Buffer.concat(wires.map(frame))));
    const finish = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(replies);
    };
    const timer = setTimeout(finish, 2000);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 2 && pending.length >= pending.readUInt16BE(0) + 2) {
        replies.push(pending.subarray(2, pending.readUInt16BE(0) + 2));
        pending = pending.subarray(pending.readUInt16BE(0) + 2);
      }
      if (replies.length >= want) finish();
    });
    socket.on('close', finish);
    socket.on('error', finish);
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The report as printed by `npm run fuzz` and quoted in docs/reliability.md. */
export function formatReport(report: FuzzReport): string {
  const lines: string[] = [];
  let mustAnswer = 0;
  let valid = 0;
  let invalid = 0;
  let lost = 0;
  lines.push('class            sent  must-answer    valid  invalid   lost');
  for (const kind of mutationClasses) {
    const c = report.byClass[kind];
    mustAnswer += c.mustAnswer;
    valid += c.valid;
    invalid += c.invalid;
    lost += c.lost;
    lines.push(`${kind.padEnd(14)} ${String(c.sent).padStart(7)} ${String(c.mustAnswer).padStart(12)} ${String(c.valid).padStart(8)} ${String(c.invalid).padStart(8)} ${String(c.lost).padStart(6)}`);
  }
  const rss = report.rss.map((s) => s.bytes);
  lines.push(
    `packets fuzzed: ${report.packets} in ${report.seconds.toFixed(0)} s (${report.unread} of them over TCP behind a dropped one, never read)`,
    `crashes: ${report.crashes}, hangs: ${report.hangs}, errors logged: ${report.errors.length}`,
    `valid-answer rate: ${((100 * valid) / Math.max(1, mustAnswer)).toFixed(3)} % (${valid} of ${mustAnswer} that must be answered; ${invalid} invalid, ${lost} lost)`,
    `RSS: start ${mib(rss[0]!)}, peak ${mib(Math.max(...rss))}, end ${mib(rss.at(-1)!)}`,
  );
  for (const example of report.invalidExamples) lines.push(`invalid: ${example}`);
  for (const error of report.errors.slice(0, 10)) lines.push(`error: ${error}`);
  return lines.join('\n');
}

async function main(): Promise<void> {
  const total = Number(process.argv[2] ?? 1_000_000);
  const seed = Number(process.argv[3] ?? Date.now() % 2 ** 31);
  const work = await scratch();
  const ports = await examplePorts();
  const child = await startFoghorn(await exampleCorefile(ports, work.manifests), ports.dns, work.dir);
  console.log(`fuzzing foghorn (pid ${child.process.pid}, Corefile.example on port ${ports.dns}) with ${total} packets, seed ${seed}`);
  try {
    const report = await fuzz(child, total, seed, (line) => console.log(line));
    console.log(formatReport(report));
    process.exitCode = report.crashes + report.hangs + report.invalidExamples.length > 0 ? 1 : 0;
  } finally {
    await child.stop();
    await work.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
