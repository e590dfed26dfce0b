/**
 * One upstream: its connection pools, its failure counter and its health check loop (CoreDNS's
 * plugin/pkg/proxy). There is no periodic probing of a healthy upstream: a failed query starts
 * the loop, which probes at once and then every `health_check` interval until a probe gets any
 * reply at all (CoreDNS's plugin/forward).
 */
// Bindings, not globals: per query (docs/architecture.md, "Per-query code").
import { performance } from 'node:perf_hooks';
import type tls from 'node:tls';
import dnsPacket from 'dns-packet';
import { rcodeToString } from '@foghorn/core';
import type { CounterCell, HistogramCell } from '@foghorn/core';
import { questionEnd, wireRcode } from '@foghorn/core/wire';
import { DohClient } from './doh.js';
import type { ForwardMetrics } from './metrics.js';
import { StreamPool, UdpPool } from './transport.js';
import type { PoolOptions, ReplyWaiter } from './transport.js';
import type { Upstream } from './upstream.js';
import type { TlsFiles } from './setup.js';

/** The part of the `forward` options a proxy needs. */
export interface ProxyOptions {
  readonly forceTcp: boolean;
  readonly expireMs: number;
  readonly maxAgeMs: number;
  readonly maxIdleConns: number;
  readonly healthCheckIntervalMs: number;
  readonly healthCheckRecursionDesired: boolean;
  readonly healthCheckDomain: string;
  readonly tls: TlsFiles | undefined;
  readonly tlsServerName: string | undefined;
  readonly dohMethod: 'GET' | 'POST';
  readonly sourceAddress: string | undefined;
}

/** Read timeout of a health probe (CoreDNS's health check client: 1 s). */
export const HEALTH_PROBE_TIMEOUT_MS = 1_000;
const PROXY_NAME = 'forward';

/** Node's TLS options for an upstream: minimum TLS 1.2 as CoreDNS, SNI only for a name. */
function tlsOptionsFor(upstream: Upstream, options: ProxyOptions): tls.ConnectionOptions {
  const serverName = upstream.serverName ?? options.tlsServerName;
  return {
    minVersion: 'TLSv1.2',
    ...(options.tls?.ca === undefined ? {} : { ca: options.tls.ca }),
    ...(options.tls?.cert === undefined ? {} : { cert: options.tls.cert }),
    ...(options.tls?.key === undefined ? {} : { key: options.tls.key }),
    // RFC 6066 §3 forbids an IP literal as SNI; without a name Node checks the IP against the certificate.
    ...(serverName === undefined ? {} : { servername: serverName }),
  };
}

/** The transport a query uses on the wire. */
export type WireTransport = 'udp' | 'tcp';

export class Proxy {
  /** Consecutive failed health probes; the upstream is down while this is above max_fails. */
  fails = 0;
  /** Health probes sent so far (for tests and debugging). */
  probes = 0;
  private readonly udp: UdpPool | undefined;
  private readonly stream: StreamPool | undefined;
  private readonly doh: DohClient | undefined;
  /** Probes go over their own, never-pooled connections so they test a fresh path. */
  private readonly probeUdp: UdpPool | undefined;
  private readonly probeStream: StreamPool | undefined;
  private readonly probeQuery: Buffer;
  private readonly probeQuestion: Buffer;
  private probing = false;
  private running = false;
  private probeTimer: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;
  /** The duration row per rcode (the header's four bits), resolved on first use. */
  private readonly durations: (HistogramCell | undefined)[] = [];

  constructor(
    readonly upstream: Upstream,
    private readonly options: ProxyOptions,
    private readonly metrics: ForwardMetrics,
    private readonly probeTimeoutMs: number = HEALTH_PROBE_TIMEOUT_MS,
  ) {
    const to = upstream.address;
    const base: PoolOptions = {
      expireMs: options.expireMs,
      maxAgeMs: options.maxAgeMs,
      maxIdleConns: options.maxIdleConns,
      sourceAddress: options.sourceAddress,
    };
    const counter = (proto: string) => {
      // Rows are resolved on first use and kept: a row shows once it counted something, as in
      // CoreDNS, and a query then adds to a number.
      let hit: CounterCell | undefined;
      let miss: CounterCell | undefined;
      return (isHit: boolean): void => {
        if (isHit) (hit ??= metrics.connCacheHits.child(PROXY_NAME, to, proto)).value++;
        else (miss ??= metrics.connCacheMisses.child(PROXY_NAME, to, proto)).value++;
      };
    };
    const probeBase: PoolOptions = { ...base, expireMs: 0 };
    if (upstream.transport === 'https') {
      this.doh = new DohClient(upstream.host, upstream.port, options.dohMethod, tlsOptionsFor(upstream, options));
    } else if (upstream.transport === 'tls') {
      const secure = tlsOptionsFor(upstream, options);
      this.stream = new StreamPool(upstream.host, upstream.port, { ...base, tls: secure, onCache: counter('tcp-tls') });
      this.probeStream = new StreamPool(upstream.host, upstream.port, { ...probeBase, tls: secure });
    } else {
      this.udp = new UdpPool(upstream.host, upstream.port, { ...base, onCache: counter('udp') });
      this.stream = new StreamPool(upstream.host, upstream.port, { ...base, onCache: counter('tcp') });
      this.probeUdp = new UdpPool(upstream.host, upstream.port, probeBase);
      this.probeStream = new StreamPool(upstream.host, upstream.port, probeBase);
    }
    this.probeQuery = dnsPacket.encode({
      type: 'query',
      id: 0,
      flags: options.healthCheckRecursionDesired ? dnsPacket.RECURSION_DESIRED : 0,
      questions: [{ name: options.healthCheckDomain === '.' ? '.' : options.healthCheckDomain.slice(0, -1), type: 'NS', class: 'IN' }],
    });
    this.probeQuestion = this.probeQuery.subarray(12, questionEnd(this.probeQuery));
  }

  /** The `to` label and log name: `ip:port`. */
  get address(): string {
    return this.upstream.address;
  }

  /** Upstream sockets open now, over every transport (for tests). */
  get openConnections(): number {
    return (this.udp?.size ?? 0) + (this.stream?.size ?? 0);
  }

  /** CoreDNS's `Down`: never with max_fails 0, else when the probes failed more than max_fails times. */
  isDown(maxFails: number): boolean {
    return maxFails !== 0 && this.fails > maxFails;
  }

  /**
   * Sends the client's `query` (its ID is replaced) and tells `waiter` the upstream's reply, which
   * carries the proxy's ID, or the failure; never from inside this call. The waiter's question is
   * matched against the reply, its deadline bounds a UDP read and `timeoutMs` a TCP, TLS or
   * HTTPS one. The caller reports the time it took with {@link observe}.
   */
  exchange(query: Uint8Array, transport: WireTransport, timeoutMs: number, waiter: ReplyWaiter): void {
    if (this.doh === undefined && transport === 'udp' && this.udp !== undefined) return this.udp.send(query, waiter);
    const reply = this.doh !== undefined ? this.doh.exchange(query, waiter.question, timeoutMs) : (this.stream as StreamPool).exchange(query, waiter.question, timeoutMs);
    reply.then(
      (wire) => waiter.resolve(wire),
      (error: Error) => waiter.reject(error),
    );
  }

  /**
   * `coredns_proxy_request_duration_seconds` for `reply`, asked for at `started`
   * (`performance.now()`): every exchange that got a reply, as CoreDNS's `Connect` observes.
   */
  observe(reply: Buffer, started: number): void {
    const rcode = wireRcode(reply);
    const cell = (this.durations[rcode] ??= this.metrics.requestDuration.child(PROXY_NAME, this.address, rcodeToString(rcode)));
    cell.observe((performance.now() - started) / 1000);
  }

  /** Starts the health check loop unless one is running (CoreDNS's `Healthcheck`). */
  healthcheck(): void {
    if (this.probing || !this.running) return;
    this.probing = true;
    void this.probeLoop();
  }

  private async probeLoop(): Promise<void> {
    while (this.running) {
      if (await this.probe()) {
        this.fails = 0;
        break;
      }
      this.metrics.healthcheckFailures.labels(PROXY_NAME, this.address).inc();
      this.fails++;
      if (!this.running) break;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        this.probeTimer = setTimeout(resolve, this.options.healthCheckIntervalMs);
        this.probeTimer.unref();
      });
      this.probeTimer = undefined;
      this.wake = undefined;
    }
    this.probing = false;
  }

  /** One probe: any reply, whatever its rcode, means healthy. */
  private async probe(): Promise<boolean> {
    this.probes++;
    try {
      if (this.doh !== undefined) await this.doh.exchange(this.probeQuery, this.probeQuestion, this.probeTimeoutMs);
      else if (this.probeUdp !== undefined && !this.options.forceTcp) await this.probeUdp.exchange(this.probeQuery, this.probeQuestion, this.probeTimeoutMs);
      else await (this.probeStream as StreamPool).exchange(this.probeQuery, this.probeQuestion, this.probeTimeoutMs);
      return true;
    } catch {
      // A failed probe is the expected outcome while the upstream is down; it is counted, not thrown.
      return false;
    }
  }

  /** Allows health checks (OnStartup). */
  start(): void {
    this.running = true;
  }

  /** Stops health checks and closes every connection (OnShutdown). */
  stop(): void {
    this.running = false;
    if (this.probeTimer !== undefined) clearTimeout(this.probeTimer);
    this.wake?.();
    this.udp?.closeAll();
    this.stream?.closeAll();
    this.probeUdp?.closeAll();
    this.probeStream?.closeAll();
    this.doh?.close();
  }
}
