import { mock, test } from 'node:test';
import assert from 'node:assert/strict';
import type net from 'node:net';
import { FrameReader, TcpGuard } from '../src/tcp-limits.js';
import type { GuardedConnection } from '../src/tcp-limits.js';

const timeouts = { readTimeoutMs: 3000, idleTimeoutMs: 10_000 };

function framed(...messages: string[]): Buffer {
  return Buffer.concat(messages.map((m) => {
    const out = Buffer.alloc(2 + m.length);
    out.writeUInt16BE(m.length, 0);
    out.write(m, 2, 'latin1');
    return out;
  }));
}

function reader(guard = new TcpGuard({ maxConnections: 10, maxBufferedBytes: 1 << 20 })) {
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
  const guard = new TcpGuard({ maxConnections: 10, maxBufferedBytes: 1000 });
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

test('at the connection cap the oldest idle connection makes room; with none idle the new one is refused', () => {
  const guard = new TcpGuard({ maxConnections: 2, maxBufferedBytes: 1000 });
  const make = (idle: boolean): GuardedConnection & { destroyed: boolean } => {
    const c = { idle, destroyed: false, socket: { destroy: () => (c.destroyed = true) } as unknown as net.Socket };
    return c;
  };
  const busy = make(false);
  const idle = make(true);
  assert.equal(guard.admit(busy), true);
  assert.equal(guard.admit(idle), true);
  const third = make(false);
  assert.equal(guard.admit(third), true);
  assert.equal(idle.destroyed, true);
  assert.equal(busy.destroyed, false);
  assert.equal(guard.admit(make(true)), false, 'nobody idle: refused');
  assert.equal(guard.connections, 2);
});
