import { mock, test } from 'node:test';
import assert from 'node:assert/strict';
import type net from 'node:net';
import { budgetFor, ConnectionBudget, FrameReader, TcpGuard } from '../src/tcp-limits.js';

const timeouts = { readTimeoutMs: 3000, idleTimeoutMs: 10_000 };

function framed(...messages: string[]): Buffer {
  return Buffer.concat(messages.map((m) => {
    const out = Buffer.alloc(2 + m.length);
    out.writeUInt16BE(m.length, 0);
    out.write(m, 2, 'latin1');
    return out;
  }));
}

function reader(guard = new TcpGuard({ maxConnections: 10, maxBufferedBytes: 1 << 20 }, budgetFor(100_000))) {
  const frames: string[] = [];
  const timeoutsSeen: boolean[] = [];
  let overflowed = false;
  const r = new FrameReader(guard, timeouts, (msg) => (frames.push(msg.toString('latin1')), true), (partial) => timeoutsSeen.push(partial), () => (overflowed = true));
  return { r, frames, timeoutsSeen, overflowed: () => overflowed, guard };
}

test('frames are found whatever the chunking: whole, pipelined, split at every byte', () => {
  const stream = framed('first', '', 'third message', 'x'.repeat(300));
  for (let cut = 1; cut <= stream.length; cut++) {
    const { r, frames } = reader();
    for (let at = 0; at < stream.length; at += cut) r.push(stream.subarray(at, at + cut));
    assert.deepEqual(frames, ['first', '', 'third message', 'x'.repeat(300)], `chunks of ${cut}`);
    r.close();
  }
});

test('a frame has a deadline from its first byte that trickling does not extend; idle is separate', (t) => {
  mock.timers.enable({ apis: ['setTimeout'] });
  t.after(() => mock.timers.reset());
  const { r, frames, timeoutsSeen } = reader();
  r.push(framed('q1'));
  assert.deepEqual(frames, ['q1']);
  // Idle: 10 s after the last message.
  mock.timers.tick(9_000);
  assert.deepEqual(timeoutsSeen, []);
  // A frame starts: 3 s from its first byte, however many bytes follow.
  const next = framed('a slow query');
  r.push(next.subarray(0, 1));
  for (let i = 1; i < 5; i++) {
    mock.timers.tick(500);
    r.push(next.subarray(i, i + 1));
  }
  assert.deepEqual(timeoutsSeen, []);
  mock.timers.tick(1000);
  assert.deepEqual(timeoutsSeen, [true], 'cut 3 s after the first byte, while still trickling');
  r.close();
});

test('the first message gets the read timeout from the connection start', (t) => {
  mock.timers.enable({ apis: ['setTimeout'] });
  t.after(() => mock.timers.reset());
  const { r, timeoutsSeen } = reader();
  mock.timers.tick(2900);
  r.push(Buffer.from([0]));
  mock.timers.tick(100);
  assert.deepEqual(timeoutsSeen, [true]);
  r.close();
});

test('partial frames count against the listener budget, released when complete or closed', () => {
  const guard = new TcpGuard({ maxConnections: 10, maxBufferedBytes: 1000 }, budgetFor(100_000));
  const a = reader(guard);
  a.r.push(framed('y'.repeat(600)).subarray(0, 10));
  assert.equal(guard.buffered, 600);
  const b = reader(guard);
  b.r.push(framed('z'.repeat(600)).subarray(0, 10));
  assert.equal(b.overflowed(), true, 'the second partial frame would pass the budget');
  a.r.push(framed('y'.repeat(600)).subarray(10));
  assert.equal(guard.buffered, 0);
  assert.equal(a.frames.length, 1);
  const c = reader(guard);
  c.r.push(framed('w'.repeat(900)).subarray(0, 3));
  c.r.close();
  assert.equal(guard.buffered, 0);
});

/** A stand-in for an accepted socket: its descriptor number, and whether the guard destroyed it. */
function fakeSocket(fd = 10): net.Socket & { destroyedByGuard: boolean; bytesRead: number } {
  const socket = { destroyedByGuard: false, bytesRead: 0, _handle: { fd }, destroy: () => (socket.destroyedByGuard = true) };
  return socket as unknown as net.Socket & { destroyedByGuard: boolean; bytesRead: number };
}

test('at the cap a new connection gets in: the one idle the longest goes, else the oldest', () => {
  const reasons: string[] = [];
  const guard = new TcpGuard({ maxConnections: 3, maxBufferedBytes: 1000 }, budgetFor(100_000), (reason) => reasons.push(reason));
  const [a, b, c] = [fakeSocket(), fakeSocket(), fakeSocket()];
  const ca = guard.admit(a, 1024);
  const cb = guard.admit(b, 1024);
  const cc = guard.admit(c, 1024);
  // a sent a query (busy), then b; b's reply went out: b is idle since now, c since its accept.
  guard.touch(ca, false);
  guard.touch(cb, false);
  guard.touch(cb, true);
  const d = fakeSocket();
  const cd = guard.admit(d, 1024);
  assert.deepEqual([a, b, c, d].map((s) => s.destroyedByGuard), [false, false, true, false], 'c never sent anything: idle the longest');
  assert.equal(cc.released, true);
  const x = guard.admit(fakeSocket(), 1024);
  assert.equal(b.destroyedByGuard, true, 'then b, idle since its reply');
  // Everyone busy: the oldest goes; a new client is never refused.
  guard.touch(cd, false);
  guard.touch(x, false);
  guard.admit(fakeSocket(), 1024);
  assert.equal(a.destroyedByGuard, true, 'a, busy the longest');
  assert.equal(guard.connections, 3);
  assert.equal(guard.evicted, 3);
  assert.deepEqual([...new Set(reasons)], ['listener']);
});

test('the process budget spans listeners: past half the descriptor limit the longest-idle connection of any listener goes', () => {
  const budget = new ConnectionBudget(4, Infinity, 100_000, 16);
  const limits = { maxConnections: 1000, maxBufferedBytes: 1000 };
  const first = new TcpGuard(limits, budget);
  const second = new TcpGuard(limits, budget);
  const old = fakeSocket(5);
  first.admit(old, 1024);
  const active = second.admit(fakeSocket(5), 1024);
  second.admit(fakeSocket(5), 1024);
  first.admit(fakeSocket(5), 1024);
  second.touch(active, true);
  assert.equal(budget.connections, 4);
  second.admit(fakeSocket(5), 1024);
  assert.equal(old.destroyedByGuard, true);
  assert.equal(budget.connections, 4);
  assert.deepEqual([first.connections, second.connections], [1, 3]);
  assert.equal(budget.evicted, 1);
});

test('a descriptor within the reserve of the limit closes idle connections before accept can fail', () => {
  const budget = budgetFor(1024);
  assert.equal(budget.reserve, 32);
  const reasons: string[] = [];
  const guard = new TcpGuard({ maxConnections: 1000, maxBufferedBytes: 1000 }, budget, (reason) => reasons.push(reason));
  const held = Array.from({ length: 10 }, (_, i) => fakeSocket(100 + i));
  held.forEach((socket) => guard.admit(socket, 1024));
  // It gets descriptor 993, so every one below is taken (the kernel hands out the lowest free
  // one) and at most 30 are left above it: 2 short of the reserve.
  const late = fakeSocket(993);
  guard.admit(late, 1024);
  assert.deepEqual(held.map((s) => s.destroyedByGuard), [true, true, false, false, false, false, false, false, false, false]);
  assert.equal(late.destroyedByGuard, false, 'never the new one');
  assert.deepEqual(reasons, ['descriptors']);
  // A descriptor well below the limit closes nothing.
  guard.admit(fakeSocket(200), 1024);
  assert.equal(guard.connections, 10);
});

test('connections count their memory: past the budget the longest-idle ones go, and a finished handshake counts more', () => {
  const budget = new ConnectionBudget(Infinity, 100 * 1024, Infinity, 0);
  const guard = new TcpGuard({ maxConnections: 1000, maxBufferedBytes: 1000 }, budget);
  const reasons: string[] = [];
  const other = new TcpGuard({ maxConnections: 1000, maxBufferedBytes: 1000 }, budget, (reason) => reasons.push(reason));
  const sockets = Array.from({ length: 8 }, () => fakeSocket());
  // 8 handshakes of 12 KiB: 96 KiB.
  const connections = sockets.map((socket) => guard.admit(socket, 12 * 1024));
  assert.equal(budget.bytes, 96 * 1024);
  // A TCP connection of 8 KiB on another listener passes 100 KiB: the longest-idle one goes.
  other.admit(fakeSocket(), 8 * 1024);
  assert.deepEqual(sockets.map((s) => s.destroyedByGuard), [true, false, false, false, false, false, false, false]);
  assert.equal(budget.bytes, 92 * 1024);
  // The last handshake finishes (32 KiB now): others make room, never the one that grew.
  guard.secured(connections[7]!, 32 * 1024);
  assert.deepEqual(sockets.map((s) => s.destroyedByGuard), [true, true, false, false, false, false, false, false]);
  assert.equal(budget.bytes, 100 * 1024);
  assert.deepEqual(reasons, ['memory']);
  guard.release(connections[7]!);
  assert.equal(budget.bytes, 68 * 1024);
});

test('a connection whose client has spoken since it went quiet (a TLS handshake, a request on its way) is not closed as idle', () => {
  const guard = new TcpGuard({ maxConnections: 3, maxBufferedBytes: 1000 }, budgetFor(100_000));
  const [hello, silent, later] = [fakeSocket(), fakeSocket(), fakeSocket()];
  guard.admit(hello, 12 * 1024);
  guard.admit(silent, 12 * 1024);
  guard.admit(later, 12 * 1024);
  hello.bytesRead = 349; // its ClientHello arrived
  const fourth = fakeSocket();
  guard.admit(fourth, 12 * 1024);
  assert.deepEqual([hello, silent, later].map((s) => s.destroyedByGuard), [false, true, false], 'the silent one goes, not the one mid-handshake');
  // Every one mid-handshake: the oldest of them goes, as any busy connection.
  later.bytesRead = 349;
  fourth.bytesRead = 349;
  guard.admit(fakeSocket(), 12 * 1024);
  assert.deepEqual([hello, later, fourth].map((s) => s.destroyedByGuard), [true, false, false]);
});

test('release is idempotent and a released connection is not touched back in', () => {
  const guard = new TcpGuard({ maxConnections: 10, maxBufferedBytes: 1000 }, budgetFor(100_000));
  const connection = guard.admit(fakeSocket(), 1024);
  guard.release(connection);
  guard.release(connection);
  guard.touch(connection, false);
  assert.equal(guard.connections, 0);
  assert.equal(guard.budget.connections, 0);
});
