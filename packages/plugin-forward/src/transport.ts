/**
 * Connections to one upstream: connected UDP sockets, and pooled TCP or TLS connections
 * (CoreDNS's plugin/forward). A reply is taken only when its ID and question match a query
 * in flight on that connection; anything else (a stray, late or spoofed datagram) is dropped and
 * the query keeps waiting until its read timeout.
 *
 *   UDP: one connected socket carries up to MAX_UDP_IN_FLIGHT queries, told apart by ID; a busy
 *        socket makes the pool open another one. The kernel already drops datagrams from any
 *        other address and port because the socket is connected.
 *   TCP/TLS: one query at a time per connection (no pipelining assumptions about upstreams).
 *        Idle connections wait in a FIFO; a query takes the oldest one that has not expired.
 *
 * Idle sockets are unref'd and closed by their own idle timer after `expire`, so an idle pool
 * neither keeps the process alive nor needs a janitor interval.
 */
// Bindings, not globals: per query (docs/architecture.md, "Per-query code").
import { Buffer } from 'node:buffer';
import { performance } from 'node:perf_hooks';
import { randomFillSync } from 'node:crypto';
import dgram from 'node:dgram';
import net from 'node:net';
import tls from 'node:tls';
import { WaiterTable } from './waiters.js';
import { answersQuestion, readId, withId } from './wire.js';

/** Pool settings shared by every transport of one upstream. */
export interface PoolOptions {
  /** Idle lifetime in ms; 0 closes a connection as soon as it is idle. */
  readonly expireMs: number;
  /** Absolute lifetime in ms; 0 = unlimited. */
  readonly maxAgeMs: number;
  /** Idle connections kept; 0 = unlimited. */
  readonly maxIdleConns: number;
  /** Local address to bind, if any. */
  readonly sourceAddress?: string | undefined;
  /** Connection cache hit or miss, for `coredns_proxy_conn_cache_*`. */
  readonly onCache?: ((hit: boolean) => void) | undefined;
}

/** A reused TCP connection that the upstream had closed: retry on a new one at once. */
export class CachedClosedError extends Error {}

/** Queries one UDP socket carries at once before the pool opens another. */
const MAX_UDP_IN_FLIGHT = 128;
/** Tries at a free random ID before giving up on a socket (it is nearly full). */
const ID_TRIES = 8;

interface Waiter {
  readonly question: Uint8Array;
  resolve(reply: Buffer): void;
  reject(error: Error): void;
  readonly timer: NodeJS.Timeout;
}

/**
 * Query IDs from the system's CSPRNG, as CoreDNS takes them from crypto/rand: a reused UDP
 * socket keeps its source port, so the ID is what stands between a spoofed reply and the cache.
 * Drawn in batches so a query costs an array read, not a syscall.
 */
const idPool = new Uint16Array(1024);
let idNext = idPool.length;
function randomId(): number {
  if (idNext === idPool.length) {
    randomFillSync(idPool);
    idNext = 0;
  }
  return idPool[idNext++]!;
}

function describeAddress(local: net.AddressInfo | Record<string, never> | undefined, host: string, port: number): string {
  const remote = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  if (local === undefined || !('address' in local)) return `->${remote}`;
  const address = local.address.includes(':') ? `[${local.address}]` : local.address;
  return `${address}:${local.port}->${remote}`;
}

/** Go's wording for a failed read, which CoreDNS's errors carry: `read udp A->B: i/o timeout`. */
function timeoutError(proto: string, where: string): Error {
  return new Error(`read ${proto} ${where}: i/o timeout`);
}

function socketError(op: string, proto: string, where: string, error: Error): Error {
  const code = (error as NodeJS.ErrnoException).code;
  const reason = code === 'ECONNREFUSED' ? 'connection refused' : code === 'ECONNRESET' ? 'connection reset by peer' : error.message;
  return new Error(`${op} ${proto} ${where}: ${reason}`, { cause: error });
}

/**
 * A query in flight, told of its reply or failure. On a UDP socket the socket's sweep times it
 * out (see {@link UdpConn}); its calls come from the socket's events, timers and `close`, never
 * from inside {@link UdpPool.send}.
 */
export interface ReplyWaiter {
  /** The query's question bytes: a reply must carry the same. */
  readonly question: Uint8Array;
  /** When its UDP read times out, in `performance.now()` time (streams take a timeout per exchange). */
  readonly deadline: number;
  /**
   * The matching reply, still carrying the pool's ID; `local` is the UDP socket's own address
   * (for dnstap's FORWARDER_* messages).
   */
  resolve(reply: Buffer, local?: net.AddressInfo): void;
  /** The read timed out or the socket failed or closed. */
  reject(error: Error): void;
}

/**
 * One connected UDP socket and its queries in flight. Their read timeouts share one timer, due
 * at the earliest deadline, instead of a timer set and cleared per query: most replies come long
 * before their deadline, and each sweep times out what is due and re-arms for the next deadline.
 */
class UdpConn {
  /** By ID; not a Map (waiters.ts says why). */
  readonly waiters = new WaiterTable<ReplyWaiter>(MAX_UDP_IN_FLIGHT);
  sweepTimer: NodeJS.Timeout | undefined;
  /** When {@link sweepTimer} is due, Infinity when unarmed. */
  sweepAt = Infinity;
  readonly createdAt = Date.now();
  lastUsed = Date.now();
  closed = false;
  connected = false;
  idleTimer: NodeJS.Timeout | undefined;
  where: string;
  /** The socket's own address once connected. */
  local: net.AddressInfo | undefined;

  constructor(
    readonly socket: dgram.Socket,
    readonly ready: Promise<void>,
    host: string,
    port: number,
  ) {
    this.where = describeAddress(undefined, host, port);
  }
}

/** Connected UDP sockets to one upstream, each multiplexing queries by ID. */
export class UdpPool {
  private conns: UdpConn[] = [];

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly options: PoolOptions,
  ) {}

  /** Sockets open now (for tests and leak checks). */
  get size(): number {
    return this.conns.length;
  }

  /**
   * Sends `query` with a fresh ID and tells `waiter` the matching reply or the failure. forward's
   * attempt is the waiter itself: over UDP a forwarded query makes no promise of its own
   * (handler.ts says why).
   */
  send(query: Uint8Array, waiter: ReplyWaiter): void {
    const conn = this.pick();
    let id = randomId();
    for (let i = 0; conn.waiters.has(id) && i < ID_TRIES; i++) id = randomId();
    while (conn.waiters.has(id)) id = (id + 1) & 0xffff;
    const wire = withId(query, id);
    conn.waiters.set(id, waiter);
    // The timer of an earlier query may still be armed (release leaves it): it is due no later
    // than this query's deadline, unless this query's budget is shorter.
    if (waiter.deadline < conn.sweepAt) this.armSweep(conn, waiter.deadline);
    else conn.sweepTimer!.ref();
    if (conn.connected) conn.socket.send(wire);
    // A socket still connecting queues nothing itself, so the first queries wait for it. One that
    // fails before it is up (bind to a source_address that is not local) fails them through close().
    else
      void conn.ready.then(() => {
        if (!conn.closed) conn.socket.send(wire);
      });
  }

  /** {@link send} as a promise of the reply, for the health probes. */
  exchange(query: Uint8Array, question: Uint8Array, timeoutMs: number): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) => this.send(query, { question, deadline: performance.now() + timeoutMs, resolve, reject }));
  }

  private pick(): UdpConn {
    // The clock is read only when an age matters: a busy socket under no max_age needs none.
    let now = 0;
    for (const conn of this.conns) {
      if (conn.closed || conn.waiters.size >= MAX_UDP_IN_FLIGHT) continue;
      if (this.options.maxAgeMs > 0 && (now ||= Date.now()) - conn.createdAt > this.options.maxAgeMs) continue;
      if (conn.waiters.size === 0 && (now ||= Date.now()) - conn.lastUsed > this.options.expireMs) continue;
      this.options.onCache?.(true);
      return conn;
    }
    this.options.onCache?.(false);
    return this.open();
  }

  private open(): UdpConn {
    const socket = dgram.createSocket(this.host.includes(':') ? 'udp6' : 'udp4');
    const ready = new Promise<void>((resolve) => {
      const connect = (): void =>
        socket.connect(this.port, this.host, () => {
          const local = socket.address();
          conn.local = local;
          conn.where = describeAddress(local, this.host, this.port);
          conn.connected = true;
          resolve();
        });
      // exclusive: a cluster worker (foghorn -workers N) must get a socket of its own, not one
      // shared through the primary, or the upstream's replies would reach any worker.
      if (this.options.sourceAddress !== undefined) socket.bind({ address: this.options.sourceAddress, port: 0, exclusive: true }, connect);
      else connect();
    });
    const conn: UdpConn = new UdpConn(socket, ready, this.host, this.port);
    socket.on('message', (msg) => {
      const id = readId(msg);
      const waiter = conn.waiters.get(id);
      if (waiter === undefined || !answersQuestion(msg, waiter.question)) return;
      conn.waiters.delete(id);
      this.release(conn);
      waiter.resolve(msg, conn.local);
    });
    socket.on('error', (error) => {
      // ICMP port unreachable shows up here on a connected socket: fail everything in flight.
      const failure = socketError('read', 'udp', conn.where, error);
      this.close(conn, failure);
    });
    socket.unref();
    this.conns.push(conn);
    return conn;
  }

  /** Sets the socket's read-timeout timer to `at` (`performance.now()` time). */
  private armSweep(conn: UdpConn, at: number): void {
    if (conn.sweepTimer !== undefined) clearTimeout(conn.sweepTimer);
    conn.sweepAt = at;
    conn.sweepTimer = setTimeout(() => this.sweep(conn), Math.max(1, at - performance.now()));
  }

  private stopSweep(conn: UdpConn): void {
    if (conn.sweepTimer !== undefined) clearTimeout(conn.sweepTimer);
    conn.sweepTimer = undefined;
    conn.sweepAt = Infinity;
  }

  /** Fails the queries whose read timeout ran out and re-arms for the earliest one left. */
  private sweep(conn: UdpConn): void {
    conn.sweepTimer = undefined;
    conn.sweepAt = Infinity;
    const now = performance.now();
    let next = Infinity;
    let failed = false;
    for (const [id, waiter] of conn.waiters.entries()) {
      if (waiter.deadline <= now) {
        conn.waiters.delete(id);
        waiter.reject(timeoutError('udp', conn.where));
        failed = true;
      } else if (waiter.deadline < next) {
        next = waiter.deadline;
      }
    }
    if (next !== Infinity) this.armSweep(conn, next);
    // Firing on an idle socket (release leaves the timer armed) ends no query: no new stamp.
    if (failed) this.release(conn);
  }

  /**
   * Stamps the socket idle when its last query is done, and sees to its expiry.
   *
   * No timer is set or cleared here per query: at 10,000 QPS the socket empties between most
   * queries, and a read-timeout timer stopped here and a new one armed by the next query, plus an
   * idle timer armed here and cleared by it, were two timers per query. The read-timeout timer
   * stays armed, unreferenced so an idle socket keeps nobody alive, and fires once to find
   * nothing; one idle timer per idle spell checks the stamp when it fires.
   */
  private release(conn: UdpConn): void {
    // Only an idle socket's age is ever read (pick, expiry), so a busy one needs no stamp.
    if (conn.waiters.size > 0 || conn.closed) return;
    conn.sweepTimer?.unref();
    const now = Date.now();
    conn.lastUsed = now;
    const { expireMs, maxIdleConns, maxAgeMs } = this.options;
    if (expireMs === 0) return this.close(conn);
    if (maxIdleConns > 0 && this.conns.filter((c) => c !== conn && c.waiters.size === 0).length >= maxIdleConns) return this.close(conn);
    if (maxAgeMs > 0 && now - conn.createdAt > maxAgeMs) return this.close(conn);
    if (conn.idleTimer === undefined) this.armIdle(conn, expireMs);
  }

  /** Closes the socket once it has been idle for `expire`, looking again if it was used since. */
  private armIdle(conn: UdpConn, ms: number): void {
    conn.idleTimer = setTimeout(() => {
      conn.idleTimer = undefined;
      // Busy: the release that empties it arms the next check.
      if (conn.closed || conn.waiters.size > 0) return;
      const idleMs = Date.now() - conn.lastUsed;
      if (idleMs >= this.options.expireMs) this.close(conn);
      else this.armIdle(conn, this.options.expireMs - idleMs);
    }, ms);
    conn.idleTimer.unref();
  }

  private close(conn: UdpConn, error?: Error): void {
    if (conn.closed) return;
    conn.closed = true;
    if (conn.idleTimer !== undefined) clearTimeout(conn.idleTimer);
    this.stopSweep(conn);
    this.conns = this.conns.filter((c) => c !== conn);
    for (const [, waiter] of conn.waiters.entries()) {
      waiter.reject(error ?? new Error(`read udp ${conn.where}: use of closed network connection`));
    }
    conn.waiters.clear();
    try {
      conn.socket.close();
    } catch {
      // Already closed by an error: nothing left to release.
    }
  }

  /** Closes every socket, failing queries in flight. */
  closeAll(): void {
    for (const conn of [...this.conns]) this.close(conn);
  }
}

/** Dial settings for TCP and TLS. */
export interface DialOptions {
  /** TLS options for `tls://` upstreams; undefined = plain TCP. */
  readonly tls?: tls.ConnectionOptions | undefined;
}

class StreamConn {
  readonly createdAt = Date.now();
  lastUsed = Date.now();
  closed = false;
  reused = false;
  idleTimer: NodeJS.Timeout | undefined;
  private buffered: Buffer | undefined;
  private waiter: (Waiter & { id: number; gotBytes: boolean }) | undefined;
  readonly where: string;

  constructor(
    readonly socket: net.Socket,
    readonly proto: 'tcp' | 'tcp-tls',
    host: string,
    port: number,
    private readonly onClose: (conn: StreamConn) => void,
  ) {
    this.where = describeAddress(socket.address() as net.AddressInfo, host, port);
    socket.on('data', (chunk: Buffer) => this.read(chunk));
    socket.on('error', (error) => this.fail(socketError('read', 'tcp', this.where, error)));
    socket.on('close', () => this.fail(new Error(`read tcp ${this.where}: EOF`)));
    socket.on('end', () => socket.destroy());
  }

  exchange(query: Uint8Array, question: Uint8Array, timeoutMs: number): Promise<Buffer> {
    const id = randomId();
    const wire = withId(query, id);
    return new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = undefined;
        // After a timeout the stream's state is unknown: never reuse it.
        this.destroy();
        reject(timeoutError('tcp', this.where));
      }, timeoutMs);
      this.waiter = { id, question, resolve, reject, timer, gotBytes: false };
      const frame = Buffer.allocUnsafe(wire.length + 2);
      frame.writeUInt16BE(wire.length, 0);
      frame.set(wire, 2);
      this.socket.ref();
      this.socket.write(frame);
    });
  }

  private read(chunk: Buffer): void {
    if (this.waiter) this.waiter.gotBytes = true;
    let data = this.buffered === undefined ? chunk : Buffer.concat([this.buffered, chunk]);
    while (data.length >= 2) {
      const length = data.readUInt16BE(0);
      if (data.length < length + 2) break;
      const msg = Buffer.from(data.subarray(2, length + 2));
      data = data.subarray(length + 2);
      const waiter = this.waiter;
      // A frame for another ID or question is a stray; keep reading (CoreDNS's plugin/forward).
      if (waiter === undefined || readId(msg) !== waiter.id || !answersQuestion(msg, waiter.question)) continue;
      this.waiter = undefined;
      clearTimeout(waiter.timer);
      this.socket.unref();
      waiter.resolve(msg);
    }
    this.buffered = data.length === 0 ? undefined : data;
  }

  private fail(error: Error): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    this.destroy();
    if (waiter === undefined) return;
    clearTimeout(waiter.timer);
    // A pooled connection the upstream closed while idle: the caller retries on a new one.
    waiter.reject(this.reused && !waiter.gotBytes ? new CachedClosedError(error.message) : error);
  }

  destroy(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    this.socket.destroy();
    this.onClose(this);
  }
}

/** CoreDNS's dial timeout bounds (plugin/pkg/proxy): adaptive between 1 s and 30 s. */
const MIN_DIAL_TIMEOUT_MS = 1_000;
const MAX_DIAL_TIMEOUT_MS = 30_000;

/** Pooled TCP or TLS connections to one upstream. */
export class StreamPool {
  /** Idle connections, oldest first. */
  private idle: StreamConn[] = [];
  private busy = new Set<StreamConn>();
  /** Moving average of dial times (weight 1/4), starting where the timeout is the maximum. */
  private avgDialMs = MAX_DIAL_TIMEOUT_MS / 2;

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly options: PoolOptions & DialOptions,
  ) {}

  /** Connections open now, idle or busy. */
  get size(): number {
    return this.idle.length + this.busy.size;
  }

  private get proto(): 'tcp' | 'tcp-tls' {
    return this.options.tls === undefined ? 'tcp' : 'tcp-tls';
  }

  /** Sends `query` with a fresh ID over a pooled or new connection; resolves with the reply. */
  async exchange(query: Uint8Array, question: Uint8Array, timeoutMs: number): Promise<Buffer> {
    for (;;) {
      const cached = this.take();
      this.options.onCache?.(cached !== undefined);
      const conn = cached ?? (await this.dial());
      this.busy.add(conn);
      try {
        const reply = await conn.exchange(query, question, timeoutMs);
        this.busy.delete(conn);
        this.release(conn);
        return reply;
      } catch (error) {
        this.busy.delete(conn);
        if (error instanceof CachedClosedError) continue;
        throw error;
      }
    }
  }

  private take(): StreamConn | undefined {
    const now = Date.now();
    while (this.idle.length > 0) {
      const conn = this.idle.shift() as StreamConn;
      if (conn.idleTimer !== undefined) clearTimeout(conn.idleTimer);
      conn.idleTimer = undefined;
      const expired = now - conn.lastUsed > this.options.expireMs || (this.options.maxAgeMs > 0 && now - conn.createdAt > this.options.maxAgeMs);
      if (conn.closed || expired) {
        conn.destroy();
        continue;
      }
      conn.reused = true;
      return conn;
    }
    return undefined;
  }

  private release(conn: StreamConn): void {
    if (conn.closed) return;
    conn.lastUsed = Date.now();
    const tooOld = this.options.maxAgeMs > 0 && conn.lastUsed - conn.createdAt > this.options.maxAgeMs;
    const full = this.options.maxIdleConns > 0 && this.idle.length >= this.options.maxIdleConns;
    if (this.options.expireMs === 0 || tooOld || full) return conn.destroy();
    conn.idleTimer = setTimeout(() => conn.destroy(), this.options.expireMs);
    conn.idleTimer.unref();
    this.idle.push(conn);
  }

  private dialTimeoutMs(): number {
    return Math.min(MAX_DIAL_TIMEOUT_MS, Math.max(MIN_DIAL_TIMEOUT_MS, 2 * this.avgDialMs));
  }

  private dial(): Promise<StreamConn> {
    const started = Date.now();
    const timeoutMs = this.dialTimeoutMs();
    const where = describeAddress(undefined, this.host, this.port).slice(2);
    return new Promise<StreamConn>((resolve, reject) => {
      const base = { host: this.host, port: this.port, ...(this.options.sourceAddress === undefined ? {} : { localAddress: this.options.sourceAddress }) };
      const secure = this.options.tls;
      const socket: net.Socket = secure === undefined ? net.connect(base) : tls.connect({ ...secure, ...base });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`dial tcp ${where}: i/o timeout`));
      }, timeoutMs);
      const onError = (error: Error): void => {
        clearTimeout(timer);
        socket.destroy();
        reject(socketError('dial', 'tcp', where, error));
      };
      socket.once('error', onError);
      socket.once(secure === undefined ? 'connect' : 'secureConnect', () => {
        clearTimeout(timer);
        socket.off('error', onError);
        this.avgDialMs += (Date.now() - started - this.avgDialMs) / 4;
        socket.setNoDelay(true);
        resolve(new StreamConn(socket, this.proto, this.host, this.port, (conn) => this.forget(conn)));
      });
    });
  }

  private forget(conn: StreamConn): void {
    this.busy.delete(conn);
    const at = this.idle.indexOf(conn);
    if (at >= 0) this.idle.splice(at, 1);
  }

  /** Closes every connection, idle or busy. */
  closeAll(): void {
    for (const conn of [...this.idle, ...this.busy]) conn.destroy();
    this.idle = [];
    this.busy.clear();
  }
}
