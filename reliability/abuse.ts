/**
 * Hostile TCP clients, as an attacker (or a broken middlebox) drives them: random frames, a
 * length prefix longer than what follows, zero-length frames, 65,535-byte frames, a thousand
 * pipelined queries, thousands of idle connections (held open: each one the server closes is
 * opened again), and slowloris (a partial frame trickled a byte at a time). Each returns what it
 * observed, for the tests (reliability/test/tcp.test.ts, lockout.test.ts), the soak and
 * `npm run abuse` (lockout.ts).
 */
import http2 from 'node:http2';
import net from 'node:net';
import tls from 'node:tls';
import { makeQuery, udpExchange } from '@foghorn/testkit';
import { frame } from './check.js';

/** Opens a connection; resolves once connected (rejects on refusal). */
export function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.off('error', reject);
      socket.on('error', () => {});
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** Resolves with the time until the server closed `socket` (ms), or null after `limitMs`. */
export function closedWithin(socket: net.Socket, limitMs: number): Promise<number | null> {
  const started = Date.now();
  return new Promise((resolve) => {
    if (socket.destroyed || socket.readableEnded) return resolve(0);
    const timer = setTimeout(() => resolve(null), limitMs);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(Date.now() - started);
    });
  });
}

/** Reads length-prefixed replies from `socket` until `count` arrived or it closed. */
export function readReplies(socket: net.Socket, count: number, timeoutMs = 5000): Promise<Buffer[]> {
  return new Promise((resolve) => {
    const replies: Buffer[] = [];
    let pending = Buffer.alloc(0);
    const finish = (): void => {
      clearTimeout(timer);
      socket.off('data', onData);
      resolve(replies);
    };
    const timer = setTimeout(finish, timeoutMs);
    const onData = (chunk: Buffer): void => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 2 && pending.length >= pending.readUInt16BE(0) + 2) {
        replies.push(pending.subarray(2, pending.readUInt16BE(0) + 2));
        pending = pending.subarray(pending.readUInt16BE(0) + 2);
      }
      if (replies.length >= count) finish();
    };
    socket.on('data', onData);
    socket.once('close', finish);
  });
}

/** One plain query on a fresh connection: true when answered within `timeoutMs`. */
export async function freshClientServed(port: number, timeoutMs = 2000): Promise<boolean> {
  let socket: net.Socket;
  try {
    socket = await connect(port);
  } catch {
    return false;
  }
  socket.write(frame(makeQuery('whoami.example.org', 'A', { id: 77 })));
  const replies = await readReplies(socket, 1, timeoutMs);
  socket.destroy();
  return replies.length === 1;
}

/** `count` pipelined queries on one connection, written at once: how many were answered. */
export async function pipelined(port: number, count: number): Promise<number> {
  const socket = await connect(port);
  const wires = Array.from({ length: count }, (_, i) => frame(makeQuery(i % 2 === 0 ? 'whoami.example.org' : 'checkout.shop.svc.clusterset.local', 'A', { id: i })));
  socket.write(Buffer.concat(wires));
  const replies = await readReplies(socket, count, 20_000);
  socket.destroy();
  return new Set(replies.map((r) => r.readUInt16BE(0))).size;
}

/**
 * A real query padded to `size` bytes with trailing zeros (miekg/dns ignores bytes after the
 * last record), `count` of them pipelined: how many were answered.
 */
export async function largeFrames(port: number, size: number, count: number): Promise<number> {
  const socket = await connect(port);
  const frames: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const wire = Buffer.alloc(size);
    makeQuery('whoami.example.org', 'A', { id: i }).copy(wire);
    frames.push(frame(wire));
  }
  socket.write(Buffer.concat(frames));
  const replies = await readReplies(socket, count, 10_000);
  socket.destroy();
  return replies.length;
}

/** Random frames (random length, random bytes) until the server closes: replies seen, closed or not. */
export async function randomFrames(port: number, count: number, random: () => number = Math.random): Promise<{ replies: number; closed: boolean }> {
  const socket = await connect(port);
  const frames: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const body = Buffer.alloc(Math.floor(random() * 512));
    for (let j = 0; j < body.length; j++) body[j] = Math.floor(random() * 256);
    frames.push(frame(body));
  }
  socket.write(Buffer.concat(frames));
  const replies = await readReplies(socket, count, 3000);
  const closed = socket.destroyed || socket.readableEnded || (await closedWithin(socket, 100)) !== null;
  socket.destroy();
  return { replies: replies.length, closed };
}

/** Opens `count` connections that send nothing, `batch` at a time; returns those still open. */
export async function idleConnections(port: number, count: number, batch = 250): Promise<net.Socket[]> {
  const sockets: net.Socket[] = [];
  for (let i = 0; i < count; i += batch) {
    const opened = await Promise.allSettled(Array.from({ length: Math.min(batch, count - i) }, () => connect(port)));
    for (const result of opened) if (result.status === 'fulfilled') sockets.push(result.value);
  }
  return sockets;
}

/** Connections open among `sockets` (the server has not closed them). */
export function stillOpen(sockets: readonly net.Socket[]): number {
  return sockets.filter((s) => !s.destroyed && !s.readableEnded).length;
}

/**
 * Slowloris: `count` connections each announcing a `declared`-byte frame and trickling one byte
 * every `intervalMs`. Returns the sockets and a stop function.
 */
export async function slowloris(port: number, count: number, declared: number, intervalMs: number): Promise<{ sockets: net.Socket[]; stop(): void }> {
  const sockets = await idleConnections(port, count);
  const prefix = Buffer.alloc(2);
  prefix.writeUInt16BE(declared, 0);
  for (const socket of sockets) socket.write(prefix);
  const timer = setInterval(() => {
    for (const socket of sockets) if (!socket.destroyed) socket.write(Buffer.from([0x61]));
  }, intervalMs);
  return {
    sockets,
    stop() {
      clearInterval(timer);
      for (const socket of sockets) socket.destroy();
    },
  };
}

/** A length prefix promising more than is sent: the time until the server closes (ms), or null. */
export async function longPrefix(port: number, limitMs: number): Promise<number | null> {
  const socket = await connect(port);
  const wire = makeQuery('whoami.example.org', 'A');
  const out = Buffer.alloc(2 + wire.length);
  out.writeUInt16BE(wire.length + 100, 0);
  wire.copy(out, 2);
  socket.write(out);
  const closed = await closedWithin(socket, limitMs);
  socket.destroy();
  return closed;
}

/** A zero-length frame then a query: replies seen and whether the server closed the connection. */
export async function zeroLength(port: number): Promise<{ replies: number; closed: boolean }> {
  const socket = await connect(port);
  socket.write(Buffer.concat([Buffer.from([0, 0]), frame(makeQuery('whoami.example.org', 'A'))]));
  const replies = await readReplies(socket, 1, 2000);
  const closed = (await closedWithin(socket, 2000)) !== null;
  socket.destroy();
  return { replies: replies.length, closed };
}

/** Waits (up to `timeoutMs`) until at most `max` of `sockets` are open: closes reach the client a little later. */
export async function openAtMost(sockets: readonly net.Socket[], max: number, timeoutMs = 2000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (stillOpen(sockets) > max && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  return stillOpen(sockets);
}

/** Idle connections kept at `count`: each one the server closes is opened again at once. */
export interface HeldOpen {
  /** Connections open now, as the client sees them (some may still wait in the server's accept queue). */
  open(): number;
  /** Connections opened so far, re-openings included. */
  opened(): number;
  stop(): void;
}

/** Holds `count` idle connections to `port` open, as an attacker keeping the server's slots would. */
export function holdOpen(port: number, count: number): HeldOpen {
  let open = 0;
  let opened = 0;
  let stopped = false;
  const sockets = new Set<net.Socket>();
  const one = (): void => {
    if (stopped) return;
    const socket = net.connect(port, '127.0.0.1');
    sockets.add(socket);
    let connected = false;
    socket.on('error', () => undefined);
    socket.once('connect', () => {
      connected = true;
      open++;
      opened++;
    });
    socket.once('close', () => {
      sockets.delete(socket);
      if (connected) open--;
      // Not in this turn: a refused connection must not spin the loop.
      setImmediate(one);
    });
  };
  for (let i = 0; i < count; i++) one();
  return {
    open: () => open,
    opened: () => opened,
    stop() {
      stopped = true;
      for (const socket of sockets) socket.destroy();
    },
  };
}

/** How a new client asks: plain UDP or TCP, DoT (`tls`) or DoH (`https`, HTTP/2 GET). */
export type ClientKind = 'udp' | 'tcp' | 'tls' | 'https';

/**
 * One query from a new client: the milliseconds until its answer, or null when none came within
 * `timeoutMs` (refused, reset or silent). DoT and DoH trust `ca` for the server name `localhost`.
 */
export async function timeToAnswer(kind: ClientKind, port: number, timeoutMs: number, ca?: string): Promise<number | null> {
  const started = performance.now();
  const query = makeQuery('whoami.example.org', 'A', { id: 4242 });
  let answered: boolean;
  switch (kind) {
    case 'udp':
      answered = (await udpExchange({ port }, query, timeoutMs).catch(() => null)) !== null;
      break;
    case 'tcp':
    case 'tls':
      answered = await streamAnswer(kind === 'tls' ? tls.connect({ port, host: '127.0.0.1', ca, servername: 'localhost' }) : net.connect(port, '127.0.0.1'), kind === 'tls', query, timeoutMs);
      break;
    case 'https':
      answered = await dohAnswer(port, ca, query, timeoutMs);
      break;
  }
  return answered ? performance.now() - started : null;
}

function streamAnswer(socket: net.Socket, secure: boolean, query: Buffer, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    let got = Buffer.alloc(0);
    const finish = (ok: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.once(secure ? 'secureConnect' : 'connect', () => socket.write(frame(query)));
    socket.on('data', (chunk: Buffer) => {
      got = Buffer.concat([got, chunk]);
      if (got.length >= 2 && got.length >= got.readUInt16BE(0) + 2) finish(true);
    });
    socket.on('error', () => finish(false));
    socket.once('close', () => finish(false));
  });
}

function dohAnswer(port: number, ca: string | undefined, query: Buffer, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const session = http2.connect(`https://127.0.0.1:${port}`, { ca, servername: 'localhost' });
    const finish = (ok: boolean): void => {
      clearTimeout(timer);
      session.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    session.on('error', () => finish(false));
    session.on('close', () => finish(false));
    const stream = session.request({ ':path': `/dns-query?dns=${query.toString('base64url')}` });
    stream.on('error', () => finish(false));
    stream.on('response', (headers) => {
      if (headers[':status'] !== 200) finish(false);
    });
    stream.resume();
    stream.on('end', () => finish(true));
    stream.end();
  });
}
