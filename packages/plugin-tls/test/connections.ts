/**
 * Filling a listener to its connection limit: plain TCP connections count before their TLS
 * handshake, so holding them is enough, and the one past the limit is closed on accept.
 */
import { once } from 'node:events';
import net from 'node:net';
import { whenClosed } from '@foghorn/testkit';

/** Opens `count` plain TCP connections to `port` and keeps them open; they are destroyed after the test. */
export async function holdConnections(t: { after(fn: () => void): void }, port: number, count: number): Promise<net.Socket[]> {
  const held: net.Socket[] = [];
  t.after(() => held.forEach((socket) => socket.destroy()));
  for (let i = 0; i < count; i++) {
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    held.push(socket);
    await once(socket, 'connect');
  }
  return held;
}

/** Opens one more connection and resolves when the server closes it (closed on accept, not by a timeout). */
export async function closedOnAccept(port: number): Promise<void> {
  const extra = net.connect(port, '127.0.0.1');
  extra.on('error', () => undefined);
  await whenClosed(extra);
}
