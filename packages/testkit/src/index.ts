/**
 * Test helpers for Foghorn and its plugins: start a real server from Corefile text on loopback,
 * send queries over real UDP and TCP sockets, capture log lines. Product code never imports this.
 * @module
 */
import dgram from 'node:dgram';
import net from 'node:net';
import tls from 'node:tls';
import dnsPacket from 'dns-packet';
import type { Packet, RecordType } from 'dns-packet';
import { createLogger, definePlugin } from '@foghorn/core';
import type { HandlerFactory, Logger, PluginDefinition } from '@foghorn/core';
import { Server } from '@foghorn/core/server';
import type { DirectiveEntry, TcpLimits } from '@foghorn/core/server';

/** A logger that keeps its lines in memory. */
export interface CapturedLog {
  readonly logger: Logger;
  readonly lines: string[];
}

export function captureLog(): CapturedLog {
  const lines: string[] = [];
  return { logger: createLogger((line) => lines.push(line)), lines };
}

/** A directive list from plugin definitions, in the order given. */
export function directivesOf(...plugins: PluginDefinition[]): DirectiveEntry[] {
  return plugins.map((plugin) => ({ name: plugin.name, load: () => plugin }));
}

/**
 * A plugin for tests whose handler `create(next)` makes: its directive takes any arguments on any
 * number of lines, and one handler serves the block.
 */
export function testPlugin(name: string, create: HandlerFactory): PluginDefinition {
  return definePlugin({
    name,
    setup(c) {
      while (c.next()) c.remainingArgs();
      c.addHandler(create);
    },
  });
}

/** A started server plus what tests need to reach it. */
export interface TestServer {
  readonly server: Server;
  readonly lines: string[];
  /** Messages of fatal errors plugins raised (`Controller.fatal`); the test process never exits. */
  readonly fatals: string[];
  /** Port of the first listener (or the one serving `zone`). */
  port(zone?: string): number;
  /** Reloads the server, with `corefile` as the new Corefile text when given. */
  reload(corefile?: string): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Starts a server from Corefile text. Use port 0 in keys (`example.org:0`) with `bind 127.0.0.1`,
 * or let `defaultPort` 0 apply to keys without a port. `reload(text)` swaps the text and reloads.
 */
export async function startServer(
  corefile: string,
  options: { directives: readonly DirectiveEntry[]; env?: Record<string, string | undefined>; file?: string; tcpLimits?: Partial<TcpLimits> },
): Promise<TestServer> {
  const { logger, lines } = captureLog();
  const fatals: string[] = [];
  let contents = corefile;
  const server = new Server({
    directives: options.directives,
    dnsPort: 0,
    logger,
    loadCorefile: () => ({ path: options.file ?? 'Corefile', contents }),
    onFatal: (message) => fatals.push(message),
    ...(options.env ? { env: options.env } : {}),
    ...(options.tcpLimits ? { tcpLimits: options.tcpLimits } : {}),
  });
  await server.start();
  return {
    server,
    lines,
    fatals,
    port(zone?: string): number {
      const listener = zone === undefined ? server.addresses[0] : server.addresses.find((l) => l.zones.includes(zone));
      if (!listener) throw new Error(`no listener${zone ? ` for ${zone}` : ''}`);
      return listener.port;
    },
    reload(next?: string): Promise<boolean> {
      if (next !== undefined) contents = next;
      return server.reload();
    },
    async close(): Promise<void> {
      await server.stop({ graceful: false });
    },
  };
}

/** A decoded reply with the header fields dns-packet adds on decode. */
export type Reply = Packet & { flag_aa: boolean; flag_tc: boolean; flag_rd: boolean; flag_ra: boolean; flag_ad: boolean; flag_cd: boolean; rcode: string };

/** Decodes a reply (throws on malformed bytes, which a test should treat as a failure). */
export function decodeReply(wire: Buffer): Reply {
  return dnsPacket.decode(wire) as unknown as Reply;
}

/** Options for {@link makeQuery}. */
export interface QueryOptions {
  id?: number;
  /** Adds an OPT record with this UDP size. */
  udpSize?: number;
  /** Sets the DO bit (implies OPT). */
  dnssecOk?: boolean;
  /** EDNS options of the OPT record (implies OPT): `{ code: 3, data: Buffer.alloc(0) }` asks for NSID. */
  ednsOptions?: readonly { readonly code: number; readonly data: Buffer }[];
  /** Header flags, RD by default. */
  flags?: number;
  class?: 'IN' | 'CH' | 'HS' | 'ANY';
}

/** Encodes a query for `name` and `type`. */
export function makeQuery(name: string, type: RecordType, options: QueryOptions = {}): Buffer {
  const packet: Packet = {
    type: 'query',
    id: options.id ?? Math.floor(Math.random() * 65536),
    flags: options.flags ?? dnsPacket.RECURSION_DESIRED,
    questions: [{ name, type, class: options.class ?? 'IN' }],
  };
  if (options.udpSize !== undefined || options.dnssecOk || options.ednsOptions !== undefined) {
    packet.additionals = [
      {
        type: 'OPT',
        name: '.',
        udpPayloadSize: options.udpSize ?? 1232,
        extendedRcode: 0,
        ednsVersion: 0,
        flags: options.dnssecOk ? dnsPacket.DNSSEC_OK : 0,
        flag_do: options.dnssecOk ?? false,
        // dns-packet encodes any option given as a raw { code, data }.
        options: (options.ednsOptions ?? []) as never,
      },
    ];
  }
  return dnsPacket.encode(packet);
}

/** Where to send: `127.0.0.1` unless said otherwise. */
export interface Target {
  readonly port: number;
  readonly host?: string;
  /** Local address UDP queries are sent from (another loopback address, for source rules). */
  readonly source?: string;
  /** When set, TCP exchanges run over TLS (DNS over TLS) with these client options. */
  readonly tls?: tls.ConnectionOptions;
}

/** Sends raw bytes over UDP and resolves with the first datagram back, or null on timeout. */
export function udpExchange(target: Target, wire: Buffer, timeoutMs = 2000): Promise<Buffer | null> {
  const host = target.host ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket(host.includes(':') ? 'udp6' : 'udp4');
    const timer = setTimeout(() => {
      socket.close();
      resolve(null);
    }, timeoutMs);
    socket.once('message', (msg) => {
      clearTimeout(timer);
      socket.close();
      resolve(msg);
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      socket.close();
      reject(error);
    });
    const send = (): void => socket.send(wire, target.port, host);
    if (target.source === undefined) send();
    else socket.bind(0, target.source, send);
  });
}

/** Sends length-framed messages over one TCP (or, with `target.tls`, TLS) connection and resolves with the replies read. */
export function tcpExchange(target: Target, wires: Buffer | readonly Buffer[], timeoutMs = 2000, frames?: Buffer): Promise<Buffer[]> {
  const list = Buffer.isBuffer(wires) ? [wires] : wires;
  return new Promise((resolve, reject) => {
    const replies: Buffer[] = [];
    let pending = Buffer.alloc(0);
    const host = target.host ?? '127.0.0.1';
    const socket = target.tls ? tls.connect({ port: target.port, host, ...target.tls }) : net.connect(target.port, host);
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(replies);
    };
    const timer = setTimeout(done, timeoutMs);
    socket.on(target.tls ? 'secureConnect' : 'connect', () => {
      if (frames) socket.write(frames);
      for (const wire of list) {
        const frame = Buffer.alloc(wire.length + 2);
        frame.writeUInt16BE(wire.length, 0);
        wire.copy(frame, 2);
        socket.write(frame);
      }
    });
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 2 && pending.length >= pending.readUInt16BE(0) + 2) {
        const length = pending.readUInt16BE(0);
        replies.push(pending.subarray(2, length + 2));
        pending = pending.subarray(length + 2);
      }
      if (replies.length >= list.length && !frames) done();
    });
    socket.on('close', done);
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

/** Queries `name`/`type` over `transport` and decodes the reply (throws on timeout). */
export async function query(
  target: Target,
  name: string,
  type: RecordType,
  options: QueryOptions & { transport?: 'udp' | 'tcp' } = {},
): Promise<Reply> {
  const wire = makeQuery(name, type, options);
  const reply = options.transport === 'tcp' ? (await tcpExchange(target, wire))[0] : await udpExchange(target, wire);
  if (!reply) throw new Error(`no reply to ${name} ${type} over ${options.transport ?? 'udp'}`);
  return decodeReply(reply);
}

/** The rcode of a decoded reply as text (`NOERROR`, `REFUSED`). */
export function rcodeOf(packet: Packet): string {
  return (packet as Packet & { rcode?: string }).rcode ?? 'NOERROR';
}
export { parseDirective, setupTable } from './setup-table.js';
export type { BadCase, GoodCase, ParseContext, SetupCases } from './setup-table.js';
export { freeDnsPort, freeTcpPort, holdTcpPort, httpGet } from './http.js';
export type { HeldPort, HttpGetOptions, HttpReply } from './http.js';
export { checkPluginReadme, listedMetrics } from './readme.js';
export type { ReadmeCheck } from './readme.js';
export { rr, formatRr, sortedSection, checkResponse, checkCases } from './records.js';
export type { Case, CheckOptions, ResourceRecord } from './records.js';
export { startUpstream, upstreamFor, reply, answering, silent } from './upstream.js';
export type { Behaviour, Decoded, FakeUpstream, SeenQuery } from './upstream.js';
export { FakeBackend, answerWith } from './backend.js';
export type { Answerer } from './backend.js';
export { delay, eventually, histogramSum, metric, whenClosed } from './wait.js';
export { steadyLoad } from './load.js';
export type { SteadyLoad } from './load.js';
export { hasTool, repositoryRoot, requireFixture, sharedPath } from './fixtures.js';
export { tempFile } from './files.js';
export { startDnstapCollector } from './dnstap.js';
export type { DnstapCollector, DnstapCollectorOptions, DnstapRecord } from './dnstap.js';
export { delv, delvTrustAnchors, drill, writeDnssecKey } from './dnssec.js';
export type { TestKey, TestKeyAlgorithm, TrustAnchor, Validation } from './dnssec.js';
export { dohRequest, kdig, makeTestPki } from './tls.js';
export type { DohReply, DohRequest, TestCert, TestPki } from './tls.js';
export { startKnot } from './knot.js';
export type { Knot, KnotOptions } from './knot.js';
export { frame, soaRecord, startPrimary } from './primary.js';
export type { AxfrSession, Primary, PrimaryOptions } from './primary.js';
export { answeringFrom, grpcUpstreamFor, GrpcStatus, RawResponse, startGrpcUpstream } from './grpc.js';
export type { GrpcBehaviour, GrpcCall, GrpcTlsOptions, GrpcUpstream, GrpcUpstreamOptions } from './grpc.js';
export { startEtcd } from './etcd.js';
export type { EtcdTls, TestEtcd } from './etcd.js';
export { startRoute53 } from './route53.js';
export type { FakeRecordSet, FakeRoute53 } from './route53.js';
