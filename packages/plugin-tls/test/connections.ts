/**
 * Filling a listener past its connection cap: plain TCP connections count from their accept,
 * before any TLS handshake, so holding them is enough. A new client must still get in, and the
 * connections idle the longest (these, never having sent anything) are the ones closed for it.
 */
import { once } from 'node:events';
import net from 'node:net';

/** A held connection and when the server closed it (ms since the epoch; undefined while open). */
export interface Held {
  readonly socket: net.Socket;
  closedAt: number | undefined;
}

/** Opens `count` plain TCP connections to `port`, one after another, and keeps them open; destroyed after the test. */
export async function holdConnections(t: { after(fn: () => void): void }, port: number, count: number): Promise<Held[]> {
  const held: Held[] = [];
  t.after(() => held.forEach(({ socket }) => socket.destroy()));
  for (let i = 0; i < count; i++) {
    const socket = net.connect(port, '127.0.0.1');
    const entry: Held = { socket, closedAt: undefined };
    socket.on('error', () => undefined);
    socket.once('close', () => (entry.closedAt = Date.now()));
    held.push(entry);
    await once(socket, 'connect');
  }
  return held;
}

/**
 * Waits until the first `evicted` of `held` are closed, and checks they closed before any of
 * the others (which the handshake timeout ends later): the ones idle the longest made room.
 */
export async function firstClosed(held: readonly Held[], evicted: number): Promise<void> {
  await Promise.all(held.slice(0, evicted).map(({ socket, closedAt }) => (closedAt === undefined ? once(socket, 'close') : undefined)));
  const lastEvicted = Math.max(...held.slice(0, evicted).map((h) => h.closedAt!));
  const survivors = held.slice(evicted).filter((h) => h.closedAt !== undefined && h.closedAt < lastEvicted);
  if (survivors.length > 0) throw new Error(`${survivors.length} newer connections closed before the oldest ones`);
}
