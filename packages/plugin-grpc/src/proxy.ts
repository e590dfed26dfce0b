/**
 * One gRPC upstream (CoreDNS's plugin/grpc/proxy.go): a channel to `DnsService` and the unary
 * `Query` call. `@grpc/grpc-js` is imported on first start, not with this module, so a process
 * whose Corefile has no `grpc` never loads it (some 12 MiB and 100 ms on Node 20).
 */
import { performance } from 'node:perf_hooks';
import dnsPacket from 'dns-packet';
import type { Packet } from 'dns-packet';
import { Rcode, rcodeToString, replyTo } from '@foghorn/core';
import type { CounterCell, HistogramCell, Request } from '@foghorn/core';
import type * as GrpcJs from '@grpc/grpc-js';
import type { GrpcMetrics } from './metrics.js';
import { decodePacket, encodePacket } from './packet.js';
import type { Upstream } from './upstream.js';

export type GrpcModule = typeof GrpcJs;

let loading: Promise<GrpcModule> | undefined;

/** `@grpc/grpc-js`, imported once per process. */
export function loadGrpc(): Promise<GrpcModule> {
  // A CommonJS package whose exports Node's lexer finds: the namespace has them all.
  return (loading ??= import('@grpc/grpc-js'));
}

/** The method of CoreDNS's pb/dns.proto: package `coredns.dns`, `service DnsService { rpc Query (DnsPacket) returns (DnsPacket); }`. */
export const QUERY_PATH = '/coredns.dns.DnsService/Query';

/** The largest DNS message, and the DnsPacket carrying it (tag and a 3-byte length). */
const MAX_DNS_MESSAGE = 65535;
const MAX_PACKET = MAX_DNS_MESSAGE + 4;

/** gRPC status NOT_FOUND, which CoreDNS's client reads as NXDOMAIN. */
const NOT_FOUND = 5;

/** Channel options every upstream gets, whatever its credentials. */
export const channelOptions: GrpcJs.ChannelOptions = {
  // CoreDNS caps both directions at the largest DnsPacket.
  'grpc.max_receive_message_length': MAX_PACKET,
  'grpc.max_send_message_length': MAX_PACKET,
  // Nothing reads channelz here; its per-call bookkeeping is cost without use.
  'grpc.enable_channelz': 0,
};

export class Proxy {
  private client: GrpcJs.Client | undefined;
  private requests: CounterCell | undefined;
  private duration: HistogramCell | undefined;
  private readonly responses: (CounterCell | undefined)[] = [];

  constructor(
    readonly upstream: Upstream,
    private readonly metrics: GrpcMetrics,
  ) {}

  /** Makes the channel; it connects on the first query, and reconnects with gRPC's backoff. */
  open(grpc: GrpcModule, credentials: GrpcJs.ChannelCredentials, options: GrpcJs.ChannelOptions): void {
    this.client = new grpc.Client(this.upstream.target, credentials, options);
  }

  close(): void {
    this.client?.close();
    this.client = undefined;
  }

  /**
   * Sends the query's bytes as they came (the client's ID included) and resolves with the reply,
   * decoded: bytes that are no DNS message reject, and the handler tries the next upstream. A
   * NOT_FOUND status is an NXDOMAIN reply, uncounted, as in CoreDNS.
   */
  query(req: Request, deadline: number): Promise<Packet> {
    const client = this.client;
    if (client === undefined) return Promise.reject(new Error(`grpc: no channel to ${this.upstream.address}`));
    const started = performance.now();
    return new Promise((resolve, reject) => {
      client.makeUnaryRequest<Buffer, Buffer>(QUERY_PATH, encodePacket, decodePacket, req.raw, { deadline }, (error, wire) => {
        if (error) {
          if (error.code === NOT_FOUND) resolve(replyTo(req, Rcode.NXDOMAIN));
          else reject(error);
          return;
        }
        let msg: Packet;
        try {
          if (wire === undefined || wire.length > MAX_DNS_MESSAGE) throw new Error(`dns message exceeds size limit: ${wire?.length ?? 0} bytes (limit ${MAX_DNS_MESSAGE})`);
          msg = dnsPacket.decode(wire);
        } catch (e) {
          reject(e);
          return;
        }
        this.count((msg.flags ?? 0) & 0xf, (performance.now() - started) / 1000);
        resolve(msg);
      });
    });
  }

  private count(rcode: number, seconds: number): void {
    const to = this.upstream.address;
    const m = this.metrics;
    (this.requests ??= m.requests.child(to)).value++;
    (this.responses[rcode] ??= m.responses.child(rcodeToString(rcode), to)).value++;
    (this.duration ??= m.duration.child(to)).observe(seconds);
  }
}
