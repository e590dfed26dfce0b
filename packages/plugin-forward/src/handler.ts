/**
 * The forward handler (CoreDNS's plugin/forward). The client's query bytes go upstream as
 * they are, with a fresh random ID; the upstream's reply bytes come back with the client's ID.
 * Nothing is decoded on the way, so a forwarded query costs two ID patches and one OPT patch.
 */
// Bindings, not globals: per query (docs/architecture.md, "Per-query code").
import { performance } from 'node:perf_hooks';
import type { AddressInfo } from 'node:net';
import { DnstapType, errorMessage, isSubdomain, nextOrFailure, PluginError, Rcode, replyTo } from '@foghorn/core';
import type { DnstapSink, Handler, HandlerResult, Logger, Request, ResponseWriter, Span } from '@foghorn/core';
import { hexdump, wireRcode } from '@foghorn/core/wire';
import type { ForwardMetrics } from './metrics.js';
import { createPolicy } from './policy.js';
import type { Orderer } from './policy.js';
import { HEALTH_PROBE_TIMEOUT_MS } from './proxy.js';
import type { Proxy, WireTransport } from './proxy.js';
import type { ReplyWaiter } from './transport.js';
import type { ForwardOptions } from './setup.js';
import { isMatchingResponse, isNoData, isTruncated, scrubOpt, withId } from './wire.js';

/** Timing and randomness a test may replace. */
export interface ForwardRuntime {
  /** The overall budget of one query over every attempt, in ms (CoreDNS's `defaultTimeout`, 5 s). */
  readonly budgetMs: number;
  /** Source of randomness for the random policy and the all-down pick. */
  readonly random: () => number;
  /** Read timeout of one health probe, in ms (CoreDNS: 1 s). */
  readonly probeTimeoutMs: number;
  /** Called with every Forward setup creates, so tests and embedders can inspect its upstreams. */
  readonly onForward?: ((forward: Forward) => void) | undefined;
}

/** CoreDNS's per-query budget. */
export const defaultBudgetMs = 5_000;

/** Fills in the defaults of a partial runtime. */
export function resolveRuntime(runtime: Partial<ForwardRuntime>): ForwardRuntime {
  return {
    budgetMs: runtime.budgetMs ?? defaultBudgetMs,
    random: runtime.random ?? Math.random,
    probeTimeoutMs: runtime.probeTimeoutMs ?? HEALTH_PROBE_TIMEOUT_MS,
    onForward: runtime.onForward,
  };
}

export class Forward implements Handler {
  readonly name = 'forward';
  /** The next handler: the next `forward` of the block, or the block's next plugin. */
  next: Handler | null = null;
  /** Queries in flight through this forward, for `max_concurrent`. */
  inFlight = 0;
  private readonly orderer: Orderer<Proxy>;
  private readonly runtime: ForwardRuntime;
  private readonly limitMessage: string;

  constructor(
    readonly options: ForwardOptions,
    readonly proxies: readonly Proxy[],
    private readonly metrics: ForwardMetrics,
    /** The `[DEBUG]` lines of an odd reply (*debug*). */
    private readonly log: Logger,
    runtime: Partial<ForwardRuntime> = {},
    /** The block's dnstap sinks, empty without dnstap (a live list, complete from onStartup on). */
    private readonly taps: readonly DnstapSink[] = [],
  ) {
    this.runtime = resolveRuntime(runtime);
    this.orderer = createPolicy<Proxy>(options.policy, this.runtime.random);
    this.limitMessage = `concurrent queries exceeded maximum ${options.maxConcurrent}`;
  }

  /** Whether this forward handles `qname`: under FROM and not under an `except` name (FROM itself always). */
  matches(qname: string): boolean {
    if (!isSubdomain(qname, this.options.from)) return false;
    if (qname === this.options.from) return true;
    for (const ignored of this.options.except) if (isSubdomain(qname, ignored)) return false;
    return true;
  }

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    if (!this.matches(req.qname)) return nextOrFailure(this.name, this.next, req, w);
    const max = this.options.maxConcurrent;
    if (max > 0 && this.inFlight >= max) {
      // Refused at once; not a health failure of any upstream (CoreDNS's plugin/forward).
      this.metrics.maxConcurrentRejects.inc();
      throw new PluginError(this.limitMessage, { rcode: Rcode.REFUSED });
    }
    // One clock read starts both the budget and the first exchange's duration. The query's own
    // deadline (*cancel*) ends the budget sooner: no attempt starts after it, and the one in
    // flight stops waiting at it (CoreDNS's loop checks ctx.Err() before each attempt).
    const started = performance.now();
    const budgetEnd = Math.min(started + this.runtime.budgetMs, req.deadline);
    const attempt = new Attempt(this, req, w, this.orderer.list(this.proxies), started, budgetEnd);
    const result = new Promise<number>((settle, fail) => {
      attempt.settle = settle;
      attempt.fail = fail;
    });
    this.inFlight++;
    try {
      this.tryNext(attempt, true);
    } catch (error) {
      this.fail(attempt, error);
    }
    return result;
  }

  /**
   * The loop of CoreDNS's ServeDNS, from the attempt's next upstream on: starts one exchange, whose
   * outcome comes back to {@link answered} or {@link failed}, or ends the query when the budget,
   * max_connect_attempts or the healthy upstreams run out.
   */
  private tryNext(a: Attempt, first: boolean): void {
    const options = this.options;
    const proxies = this.proxies;
    const cap = options.maxConnectAttempts;
    for (; ; first = false) {
      if (!first) a.started = performance.now();
      if (a.started >= a.budgetEnd || (cap !== 0 && a.attempts >= cap)) break;
      if (a.nextIndex >= a.list.length) {
        // Wrapped around: start over, and count the down ones again.
        a.nextIndex = 0;
        a.fails = 0;
      }
      let proxy = a.list[a.nextIndex++] as Proxy;
      if (proxy.isDown(options.maxFails)) {
        a.fails++;
        if (a.fails < proxies.length) continue;
        // Every upstream is down: the health checks themselves are probably broken.
        this.metrics.healthcheckBroken.inc();
        if (options.failfastAllUnhealthyUpstreams) break;
        proxy = proxies[Math.floor(this.runtime.random() * proxies.length)] as Proxy;
      }
      a.proxy = proxy;
      // CoreDNS's `forward/upstream` metadata: the upstream of the latest attempt.
      a.req.metadata?.set('forward/upstream', proxy.address);
      a.transport = options.forceTcp ? 'tcp' : options.preferUdp ? 'udp' : a.req.transport;
      a.timeoutMs = Math.max(1, Math.min(options.readTimeoutMs, a.budgetEnd - a.started));
      a.deadline = a.started + a.timeoutMs;
      // A traced query: a span per exchange, as CoreDNS's "connect" span.
      if (a.req.span !== undefined) a.openSpan(proxy.address);
      try {
        proxy.exchange(a.req.raw, a.transport, a.timeoutMs, a);
        return;
      } catch (error) {
        this.failedAttempt(a, error);
      }
    }
    const error = a.lastError;
    if (error === undefined) return this.fail(a, new PluginError('no healthy proxies', { rcode: Rcode.SERVFAIL }));
    this.fail(a, new PluginError(errorMessage(error), { rcode: Rcode.SERVFAIL, cause: error }));
  }

  /**
   * The upstream's reply to the exchange in flight ({@link Attempt.resolve}), called from a
   * socket's event: whatever goes wrong here fails the query, never the socket.
   * @internal the query's Attempt calls it
   */
  answered(a: Attempt, reply: Buffer): void {
    try {
      this.reply(a, reply);
    } catch (error) {
      // A writer or the next forward threw, or the reply was beyond scrubbing.
      this.fail(a, error);
    }
  }

  private reply(a: Attempt, reply: Buffer): void {
    const options = this.options;
    const req = a.req;
    const proxy = a.proxy as Proxy;
    proxy.observe(reply, a.started);
    a.closeSpan(undefined);
    // prefer_udp: a truncated UDP reply is asked again over TCP, once.
    if (a.transport === 'udp' && options.preferUdp && isTruncated(reply)) {
      a.transport = 'tcp';
      a.started = performance.now();
      try {
        proxy.exchange(req.raw, a.transport, a.timeoutMs, a);
      } catch (error) {
        this.failed(a, error);
      }
      return;
    }
    if (this.taps.length > 0) this.tap(a, reply);
    if (!isMatchingResponse(reply)) {
      // CoreDNS's debug.Hexdumpf (the reply carries the client's ID there by now); a rare path.
      this.log.debug(`Wrong reply for id: ${req.id}, ${req.name} ${req.qtype}\n${hexdump(withId(reply, req.id))}`);
      a.w.write(replyTo(req, Rcode.FORMERR));
      return this.end(a, 0);
    }
    const rcode = wireRcode(reply);
    // failover: try the next upstream while some have not answered yet; counted apart from
    // the down-skips so that wrapping around the list cannot make it loop.
    if (options.failover.includes(rcode) && ++a.failedOver < this.proxies.length) return this.tryNext(a, false);
    if (this.next instanceof Forward && (options.next.includes(rcode) || (options.nextOnNodata && isNoData(reply)))) {
      return this.end(a, this.next.serveDNS(req, a.w));
    }
    reply[0] = req.id >> 8;
    reply[1] = req.id & 0xff;
    if (req.hasEdns) scrubOpt(reply, req.udpSize, req.dnssecOk);
    a.w.writeWire(reply);
    this.end(a, 0);
  }

  /**
   * The exchange in flight failed ({@link Attempt.reject}): counted, and the next upstream is tried.
   * @internal the query's Attempt calls it
   */
  failed(a: Attempt, error: unknown): void {
    try {
      this.failedAttempt(a, error);
      this.tryNext(a, false);
    } catch (thrown) {
      this.fail(a, thrown);
    }
  }

  private failedAttempt(a: Attempt, error: unknown): void {
    a.closeSpan(error);
    if (this.taps.length > 0 && a.proxy !== undefined) this.tap(a, undefined);
    a.lastError = error;
    a.attempts++;
    if (this.options.maxFails !== 0) (a.proxy as Proxy).healthcheck();
  }

  /**
   * FORWARDER_QUERY, and FORWARDER_RESPONSE when the exchange got `reply`, to each dnstap sink
   * (CoreDNS's toDnstap): from Foghorn's socket (known for UDP) to the upstream.
   */
  private tap(a: Attempt, reply: Buffer | undefined): void {
    const upstream = (a.proxy as Proxy).upstream;
    const transport = a.transport === 'udp' ? 'udp' : 'tcp';
    const local = a.local;
    const responseTime = reply === undefined ? undefined : performance.now();
    for (const sink of this.taps) {
      const full = sink.full;
      const common = {
        transport,
        queryAddress: local?.address,
        queryPort: local?.port,
        responseAddress: upstream.host,
        responsePort: upstream.port,
        queryTime: a.started,
      } as const;
      sink.tap({ ...common, type: DnstapType.FORWARDER_QUERY, queryMessage: full ? a.req.raw : undefined });
      if (reply !== undefined) sink.tap({ ...common, type: DnstapType.FORWARDER_RESPONSE, responseTime, responseMessage: full ? reply : undefined });
    }
  }

  /**
   * Ends the query with `result`, the chain's answer (the next forward's, when it took the
   * query over): the query stops counting against max_concurrent. Only the first end counts.
   */
  private end(a: Attempt, result: HandlerResult): void {
    if (a.ended) return;
    a.ended = true;
    this.inFlight--;
    if (typeof result === 'number') a.settle(result);
    else result.then(a.settle, a.fail);
  }

  /** Ends the query with `error`, which the chain's promise rejects with. */
  private fail(a: Attempt, error: unknown): void {
    if (a.ended) return;
    a.ended = true;
    this.inFlight--;
    a.fail(error);
  }

  /** Lets the upstreams run their health checks (OnStartup). */
  start(): void {
    for (const proxy of this.proxies) proxy.start();
  }

  /** Stops health checks and closes every upstream connection (OnShutdown). */
  stop(): void {
    for (const proxy of this.proxies) proxy.stop();
  }
}

/**
 * One query's way through the attempt loop, and the waiter of its exchange in flight.
 *
 * An object rather than an async function: an `await` on a promise per exchange cost a second
 * promise, a suspended generator and a microtask hop per query, about 1.3 µs of the JavaScript a
 * forwarded query runs (CPU profiles under dnsperf). As the waiter, the attempt hears of a UDP
 * reply straight from the socket's message event and writes it at once; the chain's promise is
 * the only one.
 */
class Attempt implements ReplyWaiter {
  readonly question: Buffer;
  /** The read deadline of the UDP exchange in flight (`performance.now()` time). */
  deadline = 0;
  /** The read timeout of the exchange in flight. */
  timeoutMs = 0;
  proxy: Proxy | undefined = undefined;
  transport: WireTransport = 'udp';
  /** Index in {@link list} of the upstream to try next. */
  nextIndex = 0;
  /** Down upstreams skipped since the list last wrapped around. */
  fails = 0;
  /** Exchanges that failed, for max_connect_attempts. */
  attempts = 0;
  /** Replies whose rcode sent the query on to the next upstream. */
  failedOver = 0;
  lastError: unknown = undefined;
  /** The span of the exchange in flight, for a traced query. */
  span: Span | undefined = undefined;
  /** The UDP socket the last reply came in on (dnstap's query address). */
  local: AddressInfo | undefined = undefined;
  /** The query has ended (Forward's `end` and `fail`). */
  ended = false;
  settle!: (rcode: number) => void;
  fail!: (error: unknown) => void;

  constructor(
    private readonly forward: Forward,
    readonly req: Request,
    readonly w: ResponseWriter,
    readonly list: readonly Proxy[],
    /** When the exchange in flight started, for its duration. */
    public started: number,
    /** The end of the query's budget over every attempt. */
    readonly budgetEnd: number,
  ) {
    this.question = req.raw.subarray(12, req.questionEnd);
  }

  openSpan(peer: string): void {
    this.span = (this.req.span as Span).child('connect');
    this.span.tag('peer.address', peer);
  }

  closeSpan(error: unknown): void {
    this.span?.end(error);
    this.span = undefined;
  }

  resolve(reply: Buffer, local?: AddressInfo): void {
    this.local = local;
    this.forward.answered(this, reply);
  }

  /**
   * Later, not now: a socket's sweep calls this while it walks its table of waiters, and re-arms
   * its timer for the deadlines it saw there. A next attempt sent from here could join that same
   * table unseen, and time out late.
   */
  reject(error: Error): void {
    queueMicrotask(() => this.forward.failed(this, error));
  }
}
