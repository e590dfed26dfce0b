/**
 * The forward handler (CoreDNS's plugin/forward). The client's query bytes go upstream as
 * they are, with a fresh random ID; the upstream's reply bytes come back with the client's ID.
 * Nothing is decoded on the way, so a forwarded query costs two ID patches and one OPT patch.
 */
// Bindings, not globals: per query (docs/architecture.md, "Per-query code").
import { performance } from 'node:perf_hooks';
import { isSubdomain, nextOrFailure, PluginError, Rcode, replyTo, wireRcode } from '@foghorn/core';
import type { Handler, HandlerResult, Request, ResponseWriter } from '@foghorn/core';
import type { ForwardMetrics } from './metrics.js';
import { createPolicy } from './policy.js';
import type { Orderer } from './policy.js';
import { HEALTH_PROBE_TIMEOUT_MS } from './proxy.js';
import type { Proxy, WireTransport } from './proxy.js';
import type { ForwardOptions } from './setup.js';
import { isMatchingResponse, isNoData, isTruncated, scrubOpt } from './wire.js';

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
    runtime: Partial<ForwardRuntime> = {},
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
    return this.attempt(req, w);
  }

  /** The attempt loop of CoreDNS's plugin/forward. */
  private async attempt(req: Request, w: ResponseWriter): Promise<number> {
    // Counted here rather than with `.finally()` on the caller's side: one promise less per query.
    this.inFlight++;
    try {
      const question = req.raw.subarray(12, req.questionEnd);
      const options = this.options;
      const proxies = this.proxies;
      const list = this.orderer.list(proxies);
      // One clock read starts both the budget and the first exchange's duration.
      let started = performance.now();
      const deadline = started + this.runtime.budgetMs;
      const cap = options.maxConnectAttempts;
      let i = 0;
      let fails = 0;
      let attempts = 0;
      let failedOver = 0;
      let lastError: unknown;
      for (let first = true; ; first = false) {
        if (!first) started = performance.now();
        if (started >= deadline || (cap !== 0 && attempts >= cap)) break;
        if (i >= list.length) {
          // Wrapped around: start over, and count the down ones again.
          i = 0;
          fails = 0;
        }
        let proxy = list[i++] as Proxy;
        if (proxy.isDown(options.maxFails)) {
          fails++;
          if (fails < proxies.length) continue;
          // Every upstream is down: the health checks themselves are probably broken.
          this.metrics.healthcheckBroken.inc();
          if (options.failfastAllUnhealthyUpstreams) break;
          proxy = proxies[Math.floor(this.runtime.random() * proxies.length)] as Proxy;
        }
        let transport: WireTransport = options.forceTcp ? 'tcp' : options.preferUdp ? 'udp' : req.transport;
        let reply: Buffer;
        try {
          const timeoutMs = Math.max(1, Math.min(options.readTimeoutMs, deadline - started));
          reply = await proxy.exchange(req.raw, question, transport, timeoutMs);
          proxy.observe(reply, started);
          // prefer_udp: a truncated UDP reply is asked again over TCP, once.
          if (transport === 'udp' && options.preferUdp && isTruncated(reply)) {
            transport = 'tcp';
            const again = performance.now();
            reply = await proxy.exchange(req.raw, question, transport, timeoutMs);
            proxy.observe(reply, again);
          }
        } catch (error) {
          lastError = error;
          attempts++;
          if (options.maxFails !== 0) proxy.healthcheck();
          continue;
        }
        if (!isMatchingResponse(reply)) {
          w.write(replyTo(req, Rcode.FORMERR));
          return 0;
        }
        const rcode = wireRcode(reply);
        // failover: try the next upstream while some have not answered yet; counted apart from
        // the down-skips so that wrapping around the list cannot make it loop.
        if (options.failover.includes(rcode) && ++failedOver < proxies.length) continue;
        if (this.next instanceof Forward && (options.next.includes(rcode) || (options.nextOnNodata && isNoData(reply)))) {
          return this.next.serveDNS(req, w);
        }
        reply[0] = req.id >> 8;
        reply[1] = req.id & 0xff;
        if (req.hasEdns) scrubOpt(reply, req.udpSize, req.dnssecOk);
        w.writeWire(reply);
        return 0;
      }
      if (lastError !== undefined) {
        throw new PluginError(lastError instanceof Error ? lastError.message : String(lastError), { rcode: Rcode.SERVFAIL, cause: lastError });
      }
      throw new PluginError('no healthy proxies', { rcode: Rcode.SERVFAIL });
    } finally {
      this.inFlight--;
    }
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
