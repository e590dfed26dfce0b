/**
 * Test upstreams on 127.0.0.1: UDP and TCP (or TLS) on one port, answering, silent, slow,
 * failing, truncating, closing or sending wrong IDs, as each test tells them. Not a test file
 * itself; `node --test` runs it and finds no tests.
 */
import dgram from 'node:dgram';
import net from 'node:net';
import tls from 'node:tls';
import dnsPacket from 'dns-packet';
import type { Answer, Packet } from 'dns-packet';
import type { TestContext } from 'node:test';
import { directivesOf, startServer } from '@foghorn/testkit';
import type { TestServer } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import whoami from '@foghorn/plugin-whoami';
import { createForwardPlugin } from '@foghorn/plugin-forward';
import type { ForwardRuntime } from '@foghorn/plugin-forward';

export type Decoded = Packet & { id: number; flags: number; questions: NonNullable<Packet['questions']> };

/** What the upstream does with one query: packets to send (in order), or null for silence. */
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
  /** Close TCP connections right after each reply. */
  closeAfterReply: boolean;
  close(): Promise<void>;
}

/** A reply to `query`: its ID and question, RD copied, QR and RA set. */
export function reply(query: Decoded, options: { rcode?: number; tc?: boolean; answers?: Answer[]; id?: number; name?: string } = {}): Packet {
  const q = query.questions[0];
  return {
    type: 'response',
    id: options.id ?? query.id,
    flags: (query.flags & 0x0100) | 0x8080 | (options.tc ? 0x0200 : 0) | (options.rcode ?? 0),
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
    closeAfterReply: false,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => udp.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
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

/** Waits until `check` holds, polling every 5 ms, or fails after `timeoutMs`. */
export async function eventually(check: () => boolean, timeoutMs = 3000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Starts Foghorn with `body` then `whoami` in a `.:0` block bound to 127.0.0.1, closed after the test. */
export async function serve(t: TestContext, body: string, runtime: Partial<ForwardRuntime> = {}): Promise<TestServer> {
  const server = await startServer(`.:0 {\n bind 127.0.0.1\n ${body}\n whoami\n}\n`, { directives: directivesOf(bind, createForwardPlugin(runtime), whoami) });
  t.after(() => server.close());
  return server;
}

/** Starts an upstream that is closed after the test. */
export async function upstreamFor(t: TestContext, behaviour: Behaviour = answering, tlsOptions?: tls.TlsOptions): Promise<FakeUpstream> {
  const upstream = await startUpstream(behaviour, tlsOptions);
  t.after(() => upstream.close());
  return upstream;
}

/** The sum of a metric's samples whose labels include `labels` (a histogram's count; 0 when absent). */
export async function metric(server: TestServer, name: string, labels: Record<string, string> = {}): Promise<number> {
  const collector = server.server.registry.getSingleMetric(name);
  if (collector === undefined) return 0;
  const { values } = await collector.get();
  let total = 0;
  for (const sample of values) {
    // A histogram counts its observations in the `_count` sample.
    const sampleName = (sample as { metricName?: string }).metricName;
    if (sampleName !== undefined && sampleName !== name && sampleName !== `${name}_count`) continue;
    const sampleLabels = sample.labels as Record<string, string | number>;
    if (Object.entries(labels).every(([k, v]) => String(sampleLabels[k]) === v)) total += sample.value;
  }
  return total;
}

/** Resolves after `ms` milliseconds. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
