/**
 * A fake DNS upstream on 127.0.0.1: UDP and TCP (or TLS) on one port, doing what each test tells
 * it per query (answer, stay silent, be slow, fail, truncate, close, send a wrong ID), and
 * recording what it saw. For plugins that talk to other servers (*forward* and friends).
 *
 * @example
 * const upstream = await upstreamFor(t, (q) => [reply(q, { answers: [rr(`${q.questions[0]!.name}. 5 IN A 192.0.2.1`)] })]);
 * const server = await startServer(`.:0 {\n bind 127.0.0.1\n forward . ${upstream.address}\n}\n`, { directives });
 */
import dgram from 'node:dgram';
import net from 'node:net';
import tls from 'node:tls';
import dnsPacket from 'dns-packet';
import type { Answer, Packet } from 'dns-packet';
import { Flags } from '@foghorn/core';

export type Decoded = Packet & { id: number; flags: number; questions: NonNullable<Packet['questions']> };

/** What the upstream does with one query: packets (or raw bytes) to send in order, or null for silence. */

/** A query as the upstream decoded it. */
export type Behaviour = (query: Decoded, transport: 'udp' | 'tcp', raw: Buffer) => Packet[] | Buffer[] | null | Promise<Packet[] | Buffer[] | null>;

export interface SeenQuery {
  readonly id: number;
  readonly name: string;
  readonly type: string;
  readonly transport: 'udp' | 'tcp';
  readonly raw: Buffer;
}

export interface FakeUpstream {
  readonly port: number;
  /** `127.0.0.1:PORT`, as a Corefile TO. */
  readonly address: string;
  readonly queries: SeenQuery[];
  /** Queries other than health probes (`. NS`). */
  readonly lookups: SeenQuery[];
  /** Health probes (`. NS` or the configured domain's NS) seen. */
  readonly probes: SeenQuery[];
  behaviour: Behaviour;
  /** Source ports UDP queries came from. */
  readonly udpPorts: Set<number>;
  /** TCP connections accepted so far. */
  connections: number;
  /** TCP connections open now (a client closing one shows here). */
  readonly open: number;
  /** Close TCP connections right after each reply. */
  closeAfterReply: boolean;
  close(): Promise<void>;
}

/** A reply to `query`: its ID and question, RD copied, QR and RA set, the query's OPT echoed. */
export function reply(query: Decoded, options: { rcode?: number; tc?: boolean; answers?: Answer[]; id?: number; name?: string } = {}): Packet {
  const q = query.questions[0];
  return {
    type: 'response',
    id: options.id ?? query.id,
    flags: (query.flags & Flags.RD) | Flags.QR | Flags.RA | (options.tc ? Flags.TC : 0) | (options.rcode ?? 0),
    questions: q === undefined ? [] : [{ ...q, name: options.name ?? q.name }],
    answers: options.answers ?? [],
    additionals: (query.additionals ?? []).filter((rr) => rr.type === 'OPT'),
  };
}

/** Answers A queries with 192.0.2.1 and everything else with NOERROR/NODATA. */
export function answering(query: Decoded, _transport?: 'udp' | 'tcp', _raw?: Buffer): Packet[] {
  const q = query.questions[0];
  const answers: Answer[] = q?.type === 'A' ? [{ type: 'A', name: q.name, ttl: 60, data: '192.0.2.1' }] : [];
  return [reply(query, { answers })];
}

export const silent: Behaviour = () => null;

/** A health probe as *forward* sends it: `. NS` (or `probe.test. NS` for a configured domain). */
function isProbe(query: Decoded): boolean {
  const q = query.questions[0];
  return q?.type === 'NS' && (q.name === '' || q.name === '.' || q.name === 'probe.test');
}

/** Starts an upstream; with `tlsOptions` its stream side speaks TLS instead of TCP. */
export async function startUpstream(behaviour: Behaviour = answering, tlsOptions?: tls.TlsOptions): Promise<FakeUpstream> {
  let udp = dgram.createSocket('udp4');
  const sockets = new Set<net.Socket>();
  const state: FakeUpstream = {
    port: 0,
    address: '',
    queries: [],
    get lookups() {
      return this.queries.filter((q) => !isProbe(decode(q.raw)));
    },
    get probes() {
      return this.queries.filter((q) => isProbe(decode(q.raw)));
    },
    behaviour,
    udpPorts: new Set(),
    connections: 0,
    get open() {
      return sockets.size;
    },
    closeAfterReply: false,
    close: async () => {
      // Stop listening before cutting what is open: a client still running (a CLI a test kills
      // later) could otherwise connect in between, and server.close would wait on it for good.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => udp.close(() => resolve()));
      await closed;
    },
  };
  const decode = (raw: Buffer): Decoded => dnsPacket.decode(raw) as Decoded;
  const handle = async (raw: Buffer, transport: 'udp' | 'tcp', send: (wire: Buffer) => void): Promise<void> => {
    let query: Decoded;
    try {
      query = decode(raw);
    } catch {
      return;
    }
    const q = query.questions[0];
    state.queries.push({ id: query.id, name: q?.name ?? '', type: q?.type ?? '', transport, raw });
    const out = await state.behaviour(query, transport, raw);
    if (out === null) return;
    for (const packet of out) send(Buffer.isBuffer(packet) ? packet : dnsPacket.encode(packet as Packet));
  };
  const listen = (socket: dgram.Socket): void => {
    socket.on('message', (msg, rinfo) => {
      state.udpPorts.add(rinfo.port);
      void handle(msg, 'udp', (wire) => {
        try {
          socket.send(wire, rinfo.port, rinfo.address);
        } catch {
          // Closed while a slow reply was pending.
        }
      });
    });
  };
  listen(udp);
  const onConnection = (socket: net.Socket): void => {
    state.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 2 && buffered.length >= buffered.readUInt16BE(0) + 2) {
        const length = buffered.readUInt16BE(0);
        const msg = buffered.subarray(2, length + 2);
        buffered = buffered.subarray(length + 2);
        void handle(Buffer.from(msg), 'tcp', (wire) => {
          if (socket.destroyed) return;
          const frame = Buffer.alloc(wire.length + 2);
          frame.writeUInt16BE(wire.length, 0);
          wire.copy(frame, 2);
          socket.write(frame);
          if (state.closeAfterReply) socket.end();
        });
      }
    });
  };
  const server = tlsOptions === undefined ? net.createServer(onConnection) : tls.createServer(tlsOptions, onConnection);
  // UDP and TCP must share the port; retry a few times like CoreDNS's dnstest server.
  for (let attempt = 0; ; attempt++) {
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', () => resolve()));
    const port = udp.address().port;
    const ok = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (ok) {
      Object.assign(state, { port, address: `127.0.0.1:${port}` });
      return state;
    }
    if (attempt >= 5) throw new Error('could not bind UDP and TCP on one port');
    await new Promise<void>((resolve) => udp.close(() => resolve()));
    udp = dgram.createSocket('udp4');
    listen(udp);
  }
}

/** Starts an upstream that is closed after the test. */
export async function upstreamFor(t: { after(fn: () => unknown): void }, behaviour: Behaviour = answering, tlsOptions?: tls.TlsOptions): Promise<FakeUpstream> {
  const upstream = await startUpstream(behaviour, tlsOptions);
  t.after(() => upstream.close());
  return upstream;
}

