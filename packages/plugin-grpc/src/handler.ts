/**
 * The grpc handler (CoreDNS's plugin/grpc/grpc.go): the upstreams in the policy's order, each
 * tried until one answers, all within one 5 s budget; the reply is written as the upstream sent
 * it, through the server's scrub.
 */
import type { Packet } from 'dns-packet';
import { errorMessage, isSubdomain, PluginError, Rcode, replyTo } from '@foghorn/core';
import type { Handler, HandlerResult, Request, ResponseWriter } from '@foghorn/core';
import { classNumber, typeNumber } from '@foghorn/core/wire';
import type * as GrpcJs from '@grpc/grpc-js';
import type { GrpcMetrics } from './metrics.js';
import { createOrderer } from './policy.js';
import type { Orderer } from './policy.js';
import { channelOptions, loadGrpc, Proxy } from './proxy.js';
import type { GrpcModule } from './proxy.js';
import type { GrpcOptions } from './setup.js';

/** Timing and randomness a test may replace. */
export interface GrpcRuntime {
  /** The budget of one query over every upstream, in ms (CoreDNS's `defaultTimeout`). */
  readonly budgetMs: number;
  readonly random: () => number;
}

/** CoreDNS's `defaultTimeout`. */
export const defaultBudgetMs = 5_000;

/** CoreDNS's `state.Match`: a response carrying exactly the query's question (the name case-insensitively). */
function answersQuery(reply: Packet, req: Request): boolean {
  const q = reply.questions;
  if (reply.type !== 'response' || q === undefined || q.length !== 1) return false;
  const { name, type, class: klass } = q[0]!;
  // dns-packet decodes names without the final dot; a reply made here (NOT_FOUND) has it.
  const lower = name.toLowerCase();
  const qname = lower.endsWith('.') ? lower : `${lower}.`;
  return qname === req.qname && typeNumber(type) === req.qtype && classNumber(klass) === req.qclass;
}

export class Grpc implements Handler {
  readonly name = 'grpc';
  next: Handler | null = null;
  readonly proxies: readonly Proxy[];
  private readonly order: Orderer<Proxy>;
  private readonly budgetMs: number;

  constructor(
    readonly options: GrpcOptions,
    metrics: GrpcMetrics,
    runtime: Partial<GrpcRuntime> = {},
  ) {
    this.proxies = options.upstreams.map((u) => new Proxy(u, metrics));
    this.order = createOrderer<Proxy>(options.policy, runtime.random);
    this.budgetMs = runtime.budgetMs ?? defaultBudgetMs;
  }

  /** Under FROM and not under an `except` name (FROM itself always). */
  matches(qname: string): boolean {
    if (!isSubdomain(qname, this.options.from)) return false;
    if (qname === this.options.from) return true;
    for (const ignored of this.options.except) if (isSubdomain(qname, ignored)) return false;
    return true;
  }

  private fallsThrough(qname: string): boolean {
    const zones = this.options.fallthrough;
    if (zones === null || this.next === null) return false;
    for (const zone of zones) if (isSubdomain(qname, zone)) return true;
    return false;
  }

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    if (this.matches(req.qname)) return this.proxy(req, w);
    if (this.next !== null) return this.next.serveDNS(req, w);
    // CoreDNS: no next plugin is a plain SERVFAIL, not an error.
    return Rcode.SERVFAIL;
  }

  private async proxy(req: Request, w: ResponseWriter): Promise<number> {
    const deadline = Date.now() + this.budgetMs;
    let lastError: unknown;
    for (const proxy of this.order(this.proxies)) {
      if (Date.now() >= deadline) break;
      let reply: Packet;
      try {
        reply = await proxy.query(req, deadline);
      } catch (error) {
        lastError = error;
        continue;
      }
      if (!answersQuery(reply, req)) {
        w.write(replyTo(req, Rcode.FORMERR));
        return 0;
      }
      if (((reply.flags ?? 0) & 0xf) === Rcode.NXDOMAIN && this.fallsThrough(req.qname)) return this.next!.serveDNS(req, w);
      // An upstream that changed the ID still answers this client.
      reply.id = req.id;
      w.write(reply);
      return 0;
    }
    if (this.fallsThrough(req.qname)) return this.next!.serveDNS(req, w);
    if (lastError === undefined) throw new PluginError('no healthy gRPC proxies', { rcode: Rcode.SERVFAIL });
    throw new PluginError(errorMessage(lastError), { rcode: Rcode.SERVFAIL, cause: lastError });
  }

  /** OnStartup: loads gRPC and makes one channel per upstream. */
  async start(): Promise<void> {
    const grpc = await loadGrpc();
    const credentials = this.credentials(grpc);
    const name = this.options.tlsServerName;
    const options: GrpcJs.ChannelOptions = name === undefined ? channelOptions : { ...channelOptions, 'grpc.ssl_target_name_override': name, 'grpc.default_authority': name };
    for (const proxy of this.proxies) proxy.open(grpc, credentials, options);
  }

  private credentials(grpc: GrpcModule): GrpcJs.ChannelCredentials {
    const tls = this.options.tls;
    if (tls === null) return grpc.credentials.createInsecure();
    return grpc.credentials.createSsl(tls.ca ?? null, tls.key ?? null, tls.cert ?? null);
  }

  /** OnShutdown: closes the channels; calls in flight end with CANCELLED. */
  stop(): void {
    for (const proxy of this.proxies) proxy.close();
  }
}
