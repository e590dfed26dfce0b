/**
 * A steady UDP load for tests that break things under traffic (a worker killed, a reload): a
 * fixed rate of queries with unique IDs from one socket, each expected back within a deadline.
 * What it counts is what a client would see: answered, lost (no answer in time), and how many
 * were in flight at any moment, the bound on what a crash may lose.
 */
import dgram from 'node:dgram';
import { makeQuery } from './index.js';

export interface SteadyLoad {
  readonly sent: number;
  readonly answered: number;
  /** Queries that got no answer within `lostAfterMs`. */
  readonly lost: number;
  /** Queries sent and not yet answered (nor counted lost). */
  inFlight(): number;
  /** Stops sending, waits `lostAfterMs` for the last answers, and closes the socket. */
  stop(): Promise<void>;
}

/** Sends `qps` queries a second for `name` to 127.0.0.1:`port` until stopped. */
export async function steadyLoad(port: number, qps: number, name = 'example.org', lostAfterMs = 5_000): Promise<SteadyLoad> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  /** Send time by ID, oldest first (a Map keeps insertion order). */
  const outstanding = new Map<number, number>();
  const template = makeQuery(name, 'A');
  let nextId = 0;
  const counts = { sent: 0, answered: 0, lost: 0 };
  socket.on('message', (msg) => {
    if (msg.length >= 2 && outstanding.delete(msg.readUInt16BE(0))) counts.answered++;
  });
  const expire = (now: number): void => {
    for (const [id, at] of outstanding) {
      if (now - at < lostAfterMs) break;
      outstanding.delete(id);
      counts.lost++;
    }
  };
  // Timers fire late on a busy machine: each tick sends what the elapsed time calls for.
  const started = Date.now();
  const tick = setInterval(() => {
    const now = Date.now();
    expire(now);
    const due = Math.floor(((now - started) * qps) / 1000);
    while (counts.sent < due) {
      const id = nextId++ & 0xffff;
      if (outstanding.has(id)) continue;
      const wire = Buffer.from(template);
      wire.writeUInt16BE(id, 0);
      outstanding.set(id, now);
      counts.sent++;
      socket.send(wire, port, '127.0.0.1');
    }
  }, 10);
  return {
    get sent() {
      return counts.sent;
    },
    get answered() {
      return counts.answered;
    },
    get lost() {
      return counts.lost;
    },
    inFlight: () => outstanding.size,
    async stop() {
      clearInterval(tick);
      const deadline = Date.now() + lostAfterMs;
      while (outstanding.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expire(Infinity);
      socket.close();
    },
  };
}
