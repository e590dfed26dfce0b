/**
 * A hand-written primary for zone-transfer abuse: a TCP server on 127.0.0.1 that answers the
 * SOA check with a chosen serial and hands each AXFR to the test, which sends what a broken or
 * hostile primary would: a transfer cut short, junk frames, a wrong ID, records without end,
 * nothing at all. Writes wait for the connection to drain, so a gigabyte can be streamed without
 * the double holding it; `sent` counts the bytes that went out. For a well-behaved primary use
 * the real one, {@link startKnot}.
 *
 * @example
 * const primary = await startPrimary({ serial: 5, axfr: async (s) => { await s.send([soa], s.id); s.close(); } });
 */
import net from 'node:net';
import dnsPacket from 'dns-packet';
import type { Answer, Packet } from 'dns-packet';
import { Flags } from '@foghorn/core';

/** One AXFR the double was asked for, and how to answer it. */
export interface AxfrSession {
  /** The query's ID. */
  readonly id: number;
  /** The zone asked for, as dns-packet names it (`example.org`). */
  readonly zone: string;
  /** Sends one message with these answers (ID and rcode as given, else the query's and 0). Resolves false once the peer is gone. */
  send(answers: readonly Answer[], options?: { id?: number; rcode?: number }): Promise<boolean>;
  /** Sends bytes as they are: a pre-encoded frame, junk, half a length prefix. Resolves false once the peer is gone. */
  write(bytes: Buffer): Promise<boolean>;
  /** Whether the peer closed the connection. */
  readonly closed: boolean;
  /** Closes the connection (a transfer cut short). */
  close(): void;
}

export interface PrimaryOptions {
  /** The serial the SOA check gets. */
  serial: number;
  /** What each AXFR gets; the connection closes when it resolves unless it is still in use. */
  axfr(session: AxfrSession): Promise<void>;
}

export interface Primary {
  readonly port: number;
  /** `127.0.0.1:PORT`, as a Corefile's `transfer from` takes it. */
  readonly address: string;
  /** Bytes written to AXFR connections so far. */
  readonly sent: number;
  /** AXFR queries received so far. */
  readonly transfers: number;
  /** SOA queries received so far. */
  readonly checks: number;
  /** Connections open now. */
  readonly open: number;
  /** The options are live: change the serial or the behaviour between transfers. */
  readonly options: PrimaryOptions;
  close(): Promise<void>;
}

/** Frames a DNS message for TCP (RFC 1035 §4.2.2). */
export function frame(wire: Buffer): Buffer {
  const out = Buffer.allocUnsafe(wire.length + 2);
  out.writeUInt16BE(wire.length, 0);
  wire.copy(out, 2);
  return out;
}

/** The SOA record of `zone` with `serial`, one-second timers unless given. */
export function soaRecord(zone: string, serial: number, timers: { refresh?: number; retry?: number; expire?: number } = {}): Answer {
  return {
    name: zone,
    type: 'SOA',
    class: 'IN',
    ttl: 60,
    data: { mname: `ns1.${zone}`, rname: `hostmaster.${zone}`, serial, refresh: timers.refresh ?? 3600, retry: timers.retry ?? 600, expire: timers.expire ?? 86400, minimum: 60 },
  };
}

/** Starts the double on 127.0.0.1 and a free port. */
export async function startPrimary(options: PrimaryOptions): Promise<Primary> {
  const sockets = new Set<net.Socket>();
  let sent = 0;
  let transfers = 0;
  let checks = 0;
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 2 && pending.length >= pending.readUInt16BE(0) + 2) {
        const wire = pending.subarray(2, pending.readUInt16BE(0) + 2);
        pending = pending.subarray(wire.length + 2);
        let query: Packet;
        try {
          query = dnsPacket.decode(wire);
        } catch {
          socket.destroy();
          return;
        }
        const question = query.questions?.[0];
        const id = query.id ?? 0;
        const respond = (answers: readonly Answer[], o: { id?: number; rcode?: number } = {}): Buffer =>
          frame(dnsPacket.encode({ type: 'response', id: o.id ?? id, flags: Flags.AA | (o.rcode ?? 0), questions: question ? [question] : [], answers: [...answers] }));
        if (question?.type === 'SOA') {
          checks++;
          socket.write(respond([soaRecord(question.name, options.serial)]));
          continue;
        }
        if (question?.type !== 'AXFR') {
          socket.write(respond([], { rcode: 4 }));
          continue;
        }
        transfers++;
        const write = (bytes: Buffer): Promise<boolean> => {
          if (socket.destroyed) return Promise.resolve(false);
          sent += bytes.length;
          if (socket.write(bytes)) return Promise.resolve(true);
          return new Promise((resolve) => {
            const done = (): void => {
              socket.off('drain', done);
              socket.off('close', done);
              resolve(!socket.destroyed);
            };
            socket.once('drain', done);
            socket.once('close', done);
          });
        };
        const session: AxfrSession = {
          id,
          zone: question.name,
          send: (answers, o) => write(respond(answers, o)),
          write,
          get closed() {
            return socket.destroyed;
          },
          close: () => socket.destroy(),
        };
        void options.axfr(session).then(
          () => socket.end(),
          () => socket.destroy(),
        );
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    address: `127.0.0.1:${port}`,
    options,
    get sent() {
      return sent;
    },
    get transfers() {
      return transfers;
    },
    get checks() {
      return checks;
    },
    get open() {
      return sockets.size;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
