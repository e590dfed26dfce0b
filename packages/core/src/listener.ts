/**
 * One DNS listener: a UDP socket and a TCP server on the same address and port, shared by every
 * server block that serves a zone there. It decodes each query once, picks the zone's chain and
 * makes sure every accepted query gets exactly one reply, whatever the chain does.
 *
 *   socket ─► readQuery (accept filter) ─► Request ─► RouteTable.match ─► chain.serveDNS ─► writer
 *                  │ drop / FORMERR / NOTIMP            │ no zone: REFUSED      │ error rcode, nothing
 *                  ▼                                    ▼                       ▼ written: server writes it
 */
import dgram from 'node:dgram';
import net from 'node:net';
import dnsPacket from 'dns-packet';
import type { OptAnswer, Packet } from 'dns-packet';
import { listenError } from './address.js';
import { PluginError } from './errors.js';
import { serverLabel } from './keys.js';
import { raiseReceiveBuffer, UDP_RECEIVE_BUFFER } from './limits.js';
import { defaultTcpLimits, FrameReader, TcpGuard } from './tcp-limits.js';
import type { FrameTimeouts, GuardedConnection, TcpLimits } from './tcp-limits.js';
import type { ReceiveBuffer } from './limits.js';
import type { Logger } from './logger.js';
import { clientWrote, Rcode } from './rcode.js';
import { Request } from './request.js';
import type { Transport } from './request.js';
import { encodeReply, errorReply, replyTo } from './response.js';
import type { ResponseWriter } from './response.js';
import { RouteTable } from './routes.js';
import { emptyHeader, headerOnlyReply, readQuery, Verdict } from './wire.js';
import type { QueryHeader } from './wire.js';

/**
 * TCP timeouts of CoreDNS (core/dnsserver/server.go): 3 s to read a message (the first one of a
 * connection too), 10 s idle between messages; see tcp-limits.ts for how they are kept.
 */
const TCP_TIMEOUTS: FrameTimeouts = { readTimeoutMs: 3_000, idleTimeoutMs: 10_000 };
/** How long a graceful stop waits for TCP connections before cutting them (spec 2.6). */
const GRACEFUL_STOP_MS = 5_000;
const CLASS_IN = 1;

/** Counters the listener reports to whoever observes the process (prometheus). */
export interface ListenerEvents {
  /** A handler threw something that is not a PluginError (CoreDNS's recovered panic). */
  panic(server: string, error: unknown): void;
}

/** Options for {@link Listener}. */
export interface ListenerOptions {
  /** Address to bind; '' listens on every address, IPv6 and IPv4. */
  readonly host: string;
  /** Port; 0 picks a free one (the same for UDP and TCP). */
  readonly port: number;
  readonly logger: Logger;
  readonly events?: ListenerEvents;
  /** Caps of TCP connections and buffered bytes (default: {@link defaultTcpLimits}). */
  readonly tcpLimits?: TcpLimits;
}

/** What a query needs from its listener, split out so writers stay small. */
abstract class ReplyWriter implements ResponseWriter {
  written = false;
  constructor(protected readonly req: Request) {}

  /** Called once when the chain is done with the query, written or not. */
  done(): void {}

  write(msg: Packet): number {
    return this.send(encodeReply(this.req, msg));
  }

  writeWire(wire: Buffer): number {
    // Only an oversized wire reply is decoded again, to be truncated like any other.
    if (wire.length > this.req.maxResponseSize) return this.write(dnsPacket.decode(wire));
    return this.send(wire);
  }

  protected abstract send(wire: Buffer): number;
}

class UdpWriter extends ReplyWriter {
  constructor(
    req: Request,
    private readonly socket: dgram.Socket,
    private readonly address: string,
  ) {
    super(req);
  }

  protected send(wire: Buffer): number {
    this.written = true;
    if (this.req.writtenBy === '') this.req.writtenBy = this.req.handler;
    this.socket.send(wire, this.req.remotePort, this.address);
    return wire.length;
  }
}

/**
 * Per TCP connection: queries still being answered, so a graceful stop ends the connection
 * after its last reply rather than dropping it, and whether reading is paused because the
 * client does not read its replies (backpressure).
 */
class TcpConnection implements GuardedConnection {
  inFlight = 0;
  closing = false;
  private paused = false;
  reader: FrameReader | undefined;

  constructor(readonly socket: net.Socket) {}

  /** Nothing half-read and nothing being answered: the first to close at the connection cap. */
  get idle(): boolean {
    return this.inFlight === 0 && !(this.reader?.partial ?? false);
  }

  send(wire: Buffer): void {
    const socket = this.socket;
    if (!socket.writable) return;
    const length = Buffer.allocUnsafe(2);
    length.writeUInt16BE(wire.length, 0);
    // One segment for prefix and message, without copying the message into a new frame.
    socket.cork();
    socket.write(length);
    const flushed = socket.write(wire);
    socket.uncork();
    if (!flushed && !this.paused) {
      this.paused = true;
      socket.pause();
      socket.once('drain', () => {
        this.paused = false;
        socket.resume();
      });
    }
  }

  /** A query finished; a closing connection ends after the last one. */
  finished(): void {
    this.inFlight--;
    if (this.closing && this.inFlight === 0) this.socket.end();
  }

  /** Graceful stop: end now when idle, else after the replies in flight. */
  close(): void {
    this.closing = true;
    if (this.inFlight === 0) this.socket.end();
  }
}

class TcpWriter extends ReplyWriter {
  constructor(
    req: Request,
    private readonly connection: TcpConnection,
  ) {
    super(req);
  }

  protected send(wire: Buffer): number {
    this.written = true;
    if (this.req.writtenBy === '') this.req.writtenBy = this.req.handler;
    this.connection.send(wire);
    return wire.length;
  }

  override done(): void {
    this.connection.finished();
  }
}

/** IPv4 clients of a dual-stack socket show up as `::ffff:a.b.c.d`; CoreDNS shows `a.b.c.d`. */
function clientAddress(address: string): string {
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

export class Listener {
  /** CoreDNS's `server` label: `dns://:53`, `dns://127.0.0.1:1053`. */
  readonly server: string;
  routes: RouteTable = new RouteTable([]);
  /** Set when some block here uses a plugin that answers any class (forward). */
  acceptAnyClass = false;
  private udp: dgram.Socket | undefined;
  private tcp: net.Server | undefined;
  private readonly connections = new Set<TcpConnection>();
  private readonly guard: TcpGuard;
  private capReported = false;
  private readonly header: QueryHeader = emptyHeader();
  private boundPort = 0;

  constructor(private readonly options: ListenerOptions) {
    this.server = serverLabel(options.host, options.port);
    this.guard = new TcpGuard(options.tcpLimits ?? defaultTcpLimits());
  }

  get host(): string {
    return this.options.host;
  }

  /** The port actually bound (differs from the configured one for port 0). */
  get port(): number {
    return this.boundPort;
  }

  /** Binds UDP and TCP on the same port; with port 0 the TCP port follows the UDP one. */
  async listen(): Promise<void> {
    const attempts = this.options.port === 0 ? 5 : 1;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.bindBoth();
        return;
      } catch (error) {
        await this.close(0);
        if (attempt >= attempts || codeOf(error) !== 'EADDRINUSE') throw error;
      }
    }
  }

  private async bindBoth(): Promise<void> {
    const wildcard = this.options.host === '';
    const family = wildcard || this.options.host.includes(':') ? 'udp6' : 'udp4';
    const where = (port: number): string => `${this.options.host.includes(':') ? `[${this.options.host}]` : this.options.host}:${port}`;
    try {
      try {
        this.udp = await bindUdp(family, wildcard ? '::' : this.options.host, this.options.port);
      } catch (error) {
        // A machine without IPv6 still serves IPv4 on the wildcard address.
        if (!wildcard || !isNoIpv6(error)) throw error;
        this.udp = await bindUdp('udp4', '0.0.0.0', this.options.port);
      }
    } catch (error) {
      throw wrapListenError(`ListenPacket: ${listenError(where(this.options.port), error, 'udp').message}`, error);
    }
    const udp = this.udp;
    this.reportReceiveBuffer(raiseReceiveBuffer(udp));
    this.boundPort = udp.address().port;
    udp.on('message', (msg, rinfo) => this.onDatagram(udp, msg, rinfo));
    udp.on('error', (error) => this.options.logger.error(`${this.server}: UDP: ${error.message}`));
    const tcpHost = family === 'udp4' && wildcard ? '0.0.0.0' : wildcard ? '::' : this.options.host;
    try {
      this.tcp = await listenTcp(tcpHost, this.boundPort, (socket) => this.onConnection(socket));
    } catch (error) {
      throw wrapListenError(`Listen: ${listenError(where(this.boundPort), error).message}`, error);
    }
    this.tcp.on('error', (error) => this.options.logger.error(`${this.server}: TCP: ${error.message}`));
  }

  /** A burst larger than the buffer is dropped by the kernel: say so once, at start-up. */
  private reportReceiveBuffer(buffer: ReceiveBuffer): void {
    if (buffer.capped) {
      this.options.logger.warning(`${this.server}: UDP receive buffer is ${buffer.size} bytes, less than the ${UDP_RECEIVE_BUFFER} asked for: raise net.core.rmem_max`);
    }
  }

  /** Stops accepting; open TCP connections get `graceMs` to finish before they are cut. */
  async close(graceMs = GRACEFUL_STOP_MS): Promise<void> {
    const udp = this.udp;
    const tcp = this.tcp;
    this.udp = undefined;
    this.tcp = undefined;
    if (udp) await new Promise<void>((resolve) => udp.close(() => resolve()));
    if (tcp) {
      const closed = new Promise<void>((resolve) => tcp.close(() => resolve()));
      for (const connection of this.connections) connection.close();
      const timer = setTimeout(() => {
        for (const connection of this.connections) connection.socket.destroy();
      }, graceMs);
      await closed;
      clearTimeout(timer);
    }
  }

  private onDatagram(socket: dgram.Socket, msg: Buffer, rinfo: dgram.RemoteInfo): void {
    const verdict = readQuery(msg, this.header);
    if (verdict !== Verdict.Accept) {
      const reply = rejectReply(msg, verdict, this.header);
      if (reply) socket.send(reply, rinfo.port, rinfo.address);
      return;
    }
    const req = new Request(msg, this.header, 'udp', clientAddress(rinfo.address), rinfo.port);
    this.serve(req, new UdpWriter(req, socket, rinfo.address));
  }

  private onConnection(socket: net.Socket): void {
    socket.on('error', () => socket.destroy());
    const connection = new TcpConnection(socket);
    const evicted = this.guard.evicted;
    if (!this.guard.admit(connection)) {
      this.reportCap();
      socket.destroy();
      return;
    }
    if (this.guard.evicted !== evicted) this.reportCap();
    this.connections.add(connection);
    socket.setNoDelay(true);
    // Several queries may arrive in one chunk (pipelining), or one query over several chunks.
    const reader = new FrameReader(
      this.guard,
      TCP_TIMEOUTS,
      (msg) => {
        this.onFrame(connection, msg);
        return !connection.closing;
      },
      // A frame past its deadline is cut; an idle connection ends after its replies in flight.
      (partial) => (partial ? socket.destroy() : connection.close()),
      () => socket.destroy(),
    );
    connection.reader = reader;
    socket.on('close', () => {
      this.connections.delete(connection);
      this.guard.release(connection);
      reader.close();
    });
    socket.on('data', (chunk: Buffer) => reader.push(chunk));
  }

  /** Says once per listener that the TCP connection cap was reached. */
  private reportCap(): void {
    if (this.capReported) return;
    this.capReported = true;
    this.options.logger.warning(`${this.server}: ${this.guard.limits.maxConnections} TCP connections open (the cap): closing the oldest idle one for each new one, refusing new ones when none is idle`);
  }

  private onFrame(connection: TcpConnection, msg: Buffer): void {
    const socket = connection.socket;
    const verdict = readQuery(msg, this.header);
    if (verdict !== Verdict.Accept) {
      const reply = rejectReply(msg, verdict, this.header);
      if (reply) connection.send(reply);
      // A dropped message ends the connection, after the replies already written or in flight.
      else connection.close();
      return;
    }
    const req = new Request(msg, this.header, 'tcp' satisfies Transport, clientAddress(socket.remoteAddress ?? ''), socket.remotePort ?? 0);
    connection.inFlight++;
    this.serve(req, new TcpWriter(req, connection));
  }

  /** Routes one accepted query through its chain and guarantees a reply (spec 2.3, 2.4). */
  private serve(req: Request, w: ReplyWriter): void {
    req.server = this.server;
    if (req.qclass !== CLASS_IN && !this.acceptAnyClass) return this.finish(req, w, Rcode.REFUSED);
    if (req.hasEdns && req.ednsVersion !== 0) {
      this.badVersion(req, w);
      return w.done();
    }
    const route = this.routes.match(req.qname, req.qtype);
    if (route === undefined || route.chain === null) return this.finish(req, w, Rcode.REFUSED);
    req.zone = route.zone;
    let result: number | Promise<number>;
    try {
      result = route.chain.serveDNS(req, w);
    } catch (error) {
      return this.failed(req, w, error);
    }
    if (typeof result === 'number') this.finish(req, w, result);
    else
      result.then(
        (rcode) => this.finish(req, w, rcode),
        (error: unknown) => this.failed(req, w, error),
      );
  }

  /** The chain returned `rcode`: write it if nobody wrote (spec 2.4), then release the query. */
  private finish(req: Request, w: ReplyWriter, rcode: number): void {
    if (!clientWrote(rcode) && !w.written) this.reply(req, w, rcode);
    w.done();
  }

  private failed(req: Request, w: ReplyWriter, error: unknown): void {
    if (error instanceof PluginError) return this.finish(req, w, error.rcode);
    this.options.logger.error(`Recovered from panic in server: "${this.server}" ${describe(error)}`);
    this.options.events?.panic(this.server, error);
    this.finish(req, w, Rcode.SERVFAIL);
  }

  private reply(req: Request, w: ReplyWriter, rcode: number): void {
    // The server writes this one, not the plugin that returned the rcode.
    req.handler = '';
    try {
      w.writeWire(errorReply(req, rcode));
    } catch (error) {
      this.options.logger.error(`${this.server}: writing ${rcode} reply: ${describe(error)}`);
    }
  }

  /** RFC 6891 §6.1.3: an unknown EDNS version gets BADVERS and an OPT of version 0. */
  private badVersion(req: Request, w: ReplyWriter): void {
    const msg = replyTo(req);
    const opt: OptAnswer = {
      type: 'OPT',
      name: '.',
      udpPayloadSize: req.udpSize,
      extendedRcode: Rcode.BADVERS >> 4,
      ednsVersion: 0,
      flags: 0,
      flag_do: false,
      options: [],
    };
    msg.additionals = [opt];
    w.write(msg);
  }
}

function rejectReply(msg: Buffer, verdict: Verdict, header: QueryHeader): Buffer | undefined {
  if (verdict === Verdict.Drop) return undefined;
  if (verdict === Verdict.FormErr) return headerOnlyReply(msg, Rcode.FORMERR);
  // NOTIMP keeps the question when it could be read.
  const reply = headerOnlyReply(msg, Rcode.NOTIMP);
  if (header.questionEnd > 12 && header.questionEnd <= msg.length) {
    const withQuestion = Buffer.concat([reply, msg.subarray(12, header.questionEnd)]);
    withQuestion.writeUInt16BE(1, 4);
    return withQuestion;
  }
  return reply;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function codeOf(error: unknown): string | undefined {
  return (error as { cause?: NodeJS.ErrnoException; code?: string }).cause?.code ?? (error as NodeJS.ErrnoException).code;
}

/** A listen error in CoreDNS's words that keeps Node's code (EADDRINUSE) for retries. */
function wrapListenError(message: string, error: unknown): Error {
  return new Error(message, { cause: error });
}

function isNoIpv6(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'EAFNOSUPPORT' || code === 'EADDRNOTAVAIL' || code === 'EINVAL';
}

function bindUdp(type: 'udp4' | 'udp6', host: string, port: number): Promise<dgram.Socket> {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket({ type, ipv6Only: false });
    const onError = (error: Error): void => {
      socket.close();
      reject(error);
    };
    socket.once('error', onError);
    socket.bind({ address: host, port, exclusive: true }, () => {
      socket.off('error', onError);
      resolve(socket);
    });
  });
}

function listenTcp(host: string, port: number, onConnection: (socket: net.Socket) => void): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer(onConnection);
    server.once('error', reject);
    server.listen({ host, port, ipv6Only: false, exclusive: true }, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
