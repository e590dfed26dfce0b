/**
 * One DNS listener: a UDP socket and a TCP server on the same address and port, shared by every
 * server block that serves a zone there. It decodes each query once and hands it to
 * {@link dispatch}, which picks the zone's chain and makes sure every accepted query gets exactly
 * one reply, whatever the chain does.
 *
 *   socket ─► readQuery (accept filter) ─► Request ─► dispatch (dispatch.ts) ─► writer
 *                  │ drop / FORMERR / NOTIMP
 *                  ▼ rejectReply
 */
import dgram from 'node:dgram';
import net from 'node:net';
import { listenError } from './address.js';
import { dispatch, rejectReply, ReplyWriter } from './dispatch.js';
import type { DispatchContext } from './dispatch.js';
import { serverLabel } from './keys.js';
import { raiseReceiveBuffer, UDP_RECEIVE_BUFFER } from './limits.js';
import { defaultTcpLimits, FrameReader, TCP_CONNECTION_BYTES, TcpGuard } from './tcp-limits.js';
import type { ConnectionBudget, EvictionReason, GuardedConnection, TcpLimits } from './tcp-limits.js';
import type { ReceiveBuffer } from './limits.js';
import type { Logger } from './logger.js';
import type { KeyTransport, ServerSettings } from './plugin.js';
import { Request } from './request.js';
import type { Transport } from './request.js';
import { RouteTable } from './routes.js';
import { isDisabled } from './switches.js';
import { sharedHandles } from './workers.js';
import { emptyHeader, readQuery, Verdict } from './wire.js';
import type { QueryHeader } from './wire.js';

/**
 * CoreDNS's timeouts of connection-oriented transports (core/dnsserver/server.go `NewServer`),
 * changed per block with *timeouts*: 3 s to read a query (the first one on a TCP connection),
 * 5 s for a blocked reply to drain, 10 s idle between queries.
 */
export const defaultStreamTimeouts = { readTimeoutMs: 3_000, writeTimeoutMs: 5_000, idleTimeoutMs: 10_000 } as const;
/** How long a graceful stop waits for TCP connections before cutting them (docs/compatibility.md, "TCP"). */
export const GRACEFUL_STOP_MS = 5_000;

/** Counters the listener reports to whoever observes the process (prometheus). */
export interface ListenerEvents {
  /** A handler threw something that is not a PluginError (CoreDNS's recovered panic). */
  panic(server: string, error: unknown): void;
  /** A DoH listener answered with this HTTP status (`coredns_dns_https_responses_total`). */
  httpsResponse?(server: string, status: number): void;
}

/** Options for {@link Listener}. */
export interface ListenerOptions {
  /** `dns` (UDP and TCP, the default), `tls` or `https`: the scheme of the `server` label. */
  readonly transport?: KeyTransport;
  /** Address to bind; '' listens on every address, IPv6 and IPv4. */
  readonly host: string;
  /** Port; 0 picks a free one (the same for UDP and TCP). */
  readonly port: number;
  readonly logger: Logger;
  readonly events?: ListenerEvents;
  /** Caps of TCP connections and buffered bytes (default: {@link defaultTcpLimits}). */
  readonly tcpLimits?: TcpLimits;
  /** The connection budget this listener shares with the others (default: the process's, tcp-limits.ts `processBudget`). */
  readonly budget?: ConnectionBudget;
}

/**
 * The UDP replies of one turn of the event loop, sent together once its I/O is done. libuv reads
 * up to 32 datagrams from a socket before the loop moves on, and `setImmediate` runs after that.
 * Sending a datagram runs the kernel's whole UDP output path, on loopback the receiver's input path
 * and its wake-up too, and on a kernel with page-table isolation and no PCID (the benchmark's VM)
 * every system call empties the TLB. Sent as it was written, each reply evicts from the CPU's
 * caches what the next query needs. Sent in a row, the kernel's
 * path stays warm for the next send and the queries are answered back to back (docs/performance.md,
 * "Switches": `FOGHORN_DISABLE=outbox` sends each reply as it is written, {@link DirectSender}, to
 * measure it again). A reply leaves at most one turn later than it was written. Its time
 * (Request.replySent) is still taken at the write, as CoreDNS takes it when `WriteMsg` returns.
 * The order of writes is kept, within a query and across queries.
 */
class UdpOutbox {
  /** Parallel lists rather than a list of objects: a reply costs no allocation here. */
  private readonly wires: (Buffer | undefined)[] = [];
  private readonly ports: number[] = [];
  private readonly addresses: string[] = [];
  private count = 0;

  constructor(private readonly socket: dgram.Socket) {}

  add(wire: Buffer, port: number, address: string): void {
    const i = this.count++;
    this.wires[i] = wire;
    this.ports[i] = port;
    this.addresses[i] = address;
    if (i === 0) setImmediate(this.flush);
    // A bound on what waits, should some turn answer a flood (replies of many upstreams at once).
    else if (i + 1 === MAX_WAITING_REPLIES) this.flush();
  }

  /** Sends what waits; the listener calls it before closing the socket, so nothing is lost. */
  readonly flush = (): void => {
    const n = this.count;
    this.count = 0;
    for (let i = 0; i < n; i++) {
      const wire = this.wires[i]!;
      this.wires[i] = undefined;
      try {
        this.socket.send(wire, this.ports[i], this.addresses[i]);
      } catch {
        // Nobody to send it to: the socket was closed under the reply (ERR_SOCKET_DGRAM_NOT_RUNNING),
        // or the query came from port 0 (ERR_SOCKET_BAD_PORT). Either used to throw into the chain.
      }
    }
  };
}

/** See {@link UdpOutbox.add}: twice what libuv reads from a socket in one turn. */
const MAX_WAITING_REPLIES = 64;

/** {@link UdpOutbox}'s stand-in under `FOGHORN_DISABLE=outbox`: each reply leaves as it is written. */
class DirectSender {
  constructor(private readonly socket: dgram.Socket) {}

  add(wire: Buffer, port: number, address: string): void {
    try {
      this.socket.send(wire, port, address);
    } catch {
      // As UdpOutbox.flush: a closed socket or a query from port 0 has nobody to answer.
    }
  }

  flush(): void {}
}

/** How UDP replies leave, chosen once per process so the writer's call has one target. */
const UdpSender: typeof UdpOutbox | typeof DirectSender = isDisabled('outbox') ? DirectSender : UdpOutbox;

class UdpWriter extends ReplyWriter {
  constructor(
    req: Request,
    private readonly outbox: UdpOutbox | DirectSender,
    private readonly address: string,
  ) {
    super(req);
  }

  protected send(wire: Buffer): number {
    this.answered();
    this.outbox.add(wire, this.req.remotePort, this.address);
    return wire.length;
  }
}

/**
 * Per TCP or DoT connection: queries still being answered, so a graceful stop ends the connection
 * after its last reply rather than dropping it, and whether reading is paused because the
 * client does not read its replies (backpressure), for at most the write timeout.
 */
class TcpConnection {
  inFlight = 0;
  /** Queries read so far, for *timeouts*' `maxtcpqueries`. */
  queries = 0;
  closing = false;
  private paused = false;
  reader: FrameReader | undefined;

  constructor(
    readonly socket: net.Socket,
    private readonly writeTimeoutMs: number,
    /** Its place in the connection caps (for DoT, of the TCP socket under the TLS one). */
    readonly guarded: GuardedConnection,
  ) {}

  /** Nothing half-read and nothing being answered: among the first to close at a connection cap. */
  get idle(): boolean {
    return this.inFlight === 0 && !(this.reader?.partial ?? false);
  }

  /** Tells the caps whether it is idle now, and that it was active. */
  touch(): void {
    this.guarded.guard.touch(this.guarded, this.idle);
  }

  /** Frames and sends `wire`; false when the connection is gone and nothing was sent. */
  send(wire: Buffer): boolean {
    const socket = this.socket;
    if (!socket.writable) return false;
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
      // A client that stops reading its replies is cut after the write timeout (miekg's WriteTimeout).
      const stuck = setTimeout(() => socket.destroy(), this.writeTimeoutMs);
      socket.once('drain', () => {
        clearTimeout(stuck);
        this.paused = false;
        socket.resume();
      });
      socket.once('close', () => clearTimeout(stuck));
    }
    return true;
  }

  /** Resolves once the socket's buffer has drained (or the socket closed). */
  drained(): Promise<void> {
    const socket = this.socket;
    if (!socket.writableNeedDrain || !socket.writable) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        socket.off('drain', done);
        socket.off('close', done);
        resolve();
      };
      socket.once('drain', done);
      socket.once('close', done);
    });
  }

  /** A query finished; a closing connection ends after the last one. */
  finished(): void {
    this.inFlight--;
    this.touch();
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
    this.answered();
    // 0 tells a streaming handler (a zone transfer) that the client is gone: stop producing.
    return this.connection.send(wire) ? wire.length : 0;
  }

  drained(): Promise<void> {
    return this.connection.drained();
  }

  override done(): void {
    this.connection.finished();
  }
}

/** IPv4 clients of a dual-stack socket show up as `::ffff:a.b.c.d`; CoreDNS shows `a.b.c.d`. */
export function clientAddress(address: string): string {
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

/**
 * A plain DNS listener (UDP and TCP). {@link TlsListener} (DoT) and {@link DohListener} (DoH)
 * extend it: they bind their own socket in {@link Listener.bind} and hand queries to the same
 * {@link Listener.serve}, DoT through the same TCP framing ({@link Listener.onConnection}).
 */
export class Listener {
  /** CoreDNS's `server` label: `dns://:53`, `dns://127.0.0.1:1053`, `tls://:853`. */
  readonly server: string;
  /** What {@link dispatch} routes this listener's queries by: its zones, chains and class rule; a reload swaps them. */
  readonly routing: DispatchContext;
  /** Timeouts and TLS of the blocks served here; see {@link Listener.configure}. */
  protected settings: ServerSettings = {};
  private udp: dgram.Socket | undefined;
  private outbox: UdpOutbox | DirectSender | undefined;
  /** The stream server: TCP here, TLS for DoT (DoH keeps its HTTP/2 server itself). */
  protected tcp: net.Server | undefined;
  private readonly connections = new Set<TcpConnection>();
  /** This listener's connection caps; DoT and DoH admit their connections through it too. */
  protected readonly guard: TcpGuard;
  private readonly evictionsReported = new Set<EvictionReason>();
  private readonly header: QueryHeader = emptyHeader();
  protected boundPort = 0;

  constructor(protected readonly options: ListenerOptions) {
    this.server = serverLabel(options.host, options.port, options.transport);
    const events = options.events;
    this.routing = {
      server: this.server,
      routes: new RouteTable([]),
      acceptAnyClass: false,
      logger: options.logger,
      stacktrace: false,
      ...(events ? { onPanic: (server: string, error: unknown) => events.panic(server, error) } : {}),
    };
    this.guard = new TcpGuard(options.tcpLimits ?? defaultTcpLimits(), options.budget, (reason) => this.reportEviction(reason));
  }

  /** Takes the settings of the blocks served here: before {@link listen}, and again on every reload. */
  configure(settings: ServerSettings): void {
    this.settings = settings;
    this.routing.stacktrace = settings.debug === true || settings.stacktrace === true;
  }

  get host(): string {
    return this.options.host;
  }

  get transport(): KeyTransport {
    return this.options.transport ?? 'dns';
  }

  /** The settings in force, to reopen the listener as it was. */
  get currentSettings(): ServerSettings {
    return this.settings;
  }

  /** The port actually bound (differs from the configured one for port 0). */
  get port(): number {
    return this.boundPort;
  }

  /** Binds the listener's sockets; port 0 retries when the picked port is taken for TCP. */
  async listen(): Promise<void> {
    const attempts = this.options.port === 0 ? 5 : 1;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.bind();
        return;
      } catch (error) {
        await this.close(0);
        if (attempt >= attempts || codeOf(error) !== 'EADDRINUSE') throw error;
      }
    }
  }

  /** Where the listener binds, as Go prints it in listen errors: `127.0.0.1:53`, `[::1]:53`, `:53`. */
  protected where(port: number): string {
    return `${this.options.host.includes(':') ? `[${this.options.host}]` : this.options.host}:${port}`;
  }

  /** Binds UDP and TCP on the same port; with port 0 the TCP port follows the UDP one. */
  protected async bind(): Promise<void> {
    const wildcard = this.options.host === '';
    const family = wildcard || this.options.host.includes(':') ? 'udp6' : 'udp4';
    const where = (port: number): string => this.where(port);
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
    const outbox = (this.outbox = new UdpSender(udp));
    udp.on('message', (msg, rinfo) => this.onDatagram(outbox, msg, rinfo));
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
    this.outbox?.flush();
    this.outbox = undefined;
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

  private onDatagram(outbox: UdpOutbox | DirectSender, msg: Buffer, rinfo: dgram.RemoteInfo): void {
    const verdict = readQuery(msg, this.header);
    if (verdict !== Verdict.Accept) {
      const reply = rejectReply(msg, verdict, this.header);
      if (reply) outbox.add(reply, rinfo.port, rinfo.address);
      return;
    }
    const req = new Request(msg, this.header, 'udp', clientAddress(rinfo.address), rinfo.port);
    dispatch(this.routing, req, new UdpWriter(req, outbox, rinfo.address));
  }

  /**
   * One stream connection carrying RFC 1035 §4.2.2 / RFC 7858 §3.3 framing: TCP, or DoT once its
   * handshake is done. A message has the read timeout from its first byte (the first one from
   * the connection's start); between messages the connection waits at most the idle timeout.
   * Bytes trickling in extend neither (tcp-limits.ts), and the listener's caps apply.
   */
  protected onConnection(socket: net.Socket, guarded?: GuardedConnection): void {
    socket.on('error', () => socket.destroy());
    const { readTimeoutMs, writeTimeoutMs, idleTimeoutMs } = { ...defaultStreamTimeouts, ...this.settings };
    const maxQueries = this.settings.maxQueries ?? 0;
    // A DoT connection was admitted when its TCP connection was accepted, before the handshake.
    const connection = new TcpConnection(socket, writeTimeoutMs, guarded ?? this.guard.admit(socket, TCP_CONNECTION_BYTES));
    this.connections.add(connection);
    socket.setNoDelay(true);
    // Several queries may arrive in one chunk (pipelining), or one query over several chunks.
    const reader = new FrameReader(
      this.guard,
      { readTimeoutMs, idleTimeoutMs },
      (msg) => {
        connection.queries++;
        this.onFrame(connection, msg);
        // maxtcpqueries: the connection ends after the replies to the queries it was allowed.
        if (connection.queries === maxQueries) connection.close();
        return !connection.closing;
      },
      // A message past its deadline is cut; an idle connection ends after its replies in flight.
      (partial) => (partial ? socket.destroy() : connection.close()),
      () => socket.destroy(),
    );
    connection.reader = reader;
    socket.on('close', () => {
      this.connections.delete(connection);
      this.guard.release(connection.guarded);
      reader.close();
    });
    socket.on('data', (chunk: Buffer) => {
      reader.push(chunk);
      connection.touch();
    });
  }

  /** Says once per listener and reason that connections are being closed to make room. */
  private reportEviction(reason: EvictionReason): void {
    if (this.evictionsReported.has(reason)) return;
    this.evictionsReported.add(reason);
    const budget = this.guard.budget;
    const log = this.options.logger;
    const each = 'closing the connection idle the longest for each new one';
    switch (reason) {
      case 'listener':
        return log.warning(`${this.server}: ${this.guard.limits.maxConnections} connections open on this listener, its cap: ${each}`);
      case 'connections':
        return log.warning(`${this.server}: ${budget.maxConnections} connections open in all, half the open file limit of ${budget.descriptorLimit}: ${each}`);
      case 'memory':
        return log.warning(`${this.server}: connections hold ${budget.maxBytes / 1024 / 1024} MiB in all, their cap: ${each}`);
      case 'descriptors':
        return log.warning(`${this.server}: fewer than ${budget.reserve} of ${budget.descriptorLimit} descriptors free: closing idle connections`);
    }
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
    dispatch(this.routing, req, new TcpWriter(req, connection));
  }
}

function codeOf(error: unknown): string | undefined {
  return (error as { cause?: NodeJS.ErrnoException; code?: string }).cause?.code ?? (error as NodeJS.ErrnoException).code;
}

/** A listen error in CoreDNS's words that keeps Node's code (EADDRINUSE) for retries. */
export function wrapListenError(message: string, error: unknown): Error {
  return new Error(message, { cause: error });
}

function isNoIpv6(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'EAFNOSUPPORT' || code === 'EADDRNOTAVAIL' || code === 'EINVAL';
}

/**
 * The address lookup of a listener's UDP socket. Replies go to the address a query came from,
 * an IP literal, for which dgram's default (`dns.lookup`) answers on the next tick: a tick, a
 * closure and a deferred send per reply. The socket sends to nothing else (the bind address was
 * resolved by *bind*), so the literal is handed back at once, with the socket's family (dgram
 * passes 4 or 6), and the reply goes out synchronously.
 */
function literalLookup(address: string, family: number, callback: (error: null, address: string, family: number) => void): void {
  callback(null, address, family);
}

function bindUdp(type: 'udp4' | 'udp6', host: string, port: number): Promise<dgram.Socket> {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket({ type, ipv6Only: false, lookup: literalLookup as unknown as dgram.SocketOptions['lookup'] });
    const onError = (error: Error): void => {
      socket.close();
      reject(error);
    };
    socket.once('error', onError);
    socket.bind({ address: host, port, exclusive: !sharedHandles }, () => {
      socket.off('error', onError);
      resolve(socket);
    });
  });
}

function listenTcp(host: string, port: number, onConnection: (socket: net.Socket) => void): Promise<net.Server> {
  return listenServer(net.createServer(onConnection), host, port);
}

/** Listens with `server` (TCP, TLS or HTTP/2) on one address and port: exclusively, or through the cluster primary in a worker (workers.ts). */
export function listenServer<S extends net.Server>(server: S, host: string, port: number): Promise<S> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port, ipv6Only: false, exclusive: !sharedHandles }, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/**
 * Listens with a stream server (DoT, DoH) on a listener's host: '' is every address, IPv6 and
 * IPv4, or IPv4 only on a machine without IPv6.
 */
export async function bindStream<S extends net.Server>(server: S, host: string, port: number): Promise<S> {
  if (host !== '') return listenServer(server, host, port);
  try {
    return await listenServer(server, '::', port);
  } catch (error) {
    if (!isNoIpv6(error)) throw error;
    return listenServer(server, '0.0.0.0', port);
  }
}
