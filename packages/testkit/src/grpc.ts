/**
 * A gRPC `DnsService` upstream on loopback (or a unix socket): CoreDNS's protocol, compiled from
 * `proto/dns.proto` with @grpc/proto-loader, answering each query as the test says (a reply, raw
 * bytes, a gRPC status, or silence), in plaintext or TLS, and recording what it saw. For
 * *grpc* and anything else that speaks CoreDNS's gRPC.
 *
 * gRPC is imported when the first double starts, so a test that never starts one never loads it.
 *
 * @example
 * const upstream = await grpcUpstreamFor(t, answeringFrom('a.example. 60 IN A 192.0.2.1'));
 * const server = await startServer(`.:0 {\n bind 127.0.0.1\n grpc . ${upstream.address}\n}\n`, { directives });
 */
import { fileURLToPath } from 'node:url';
import dnsPacket from 'dns-packet';
import type { Answer, Packet } from 'dns-packet';
import { Rcode } from '@foghorn/core';
import type * as GrpcJs from '@grpc/grpc-js';
import { rr } from './records.js';
import { reply } from './upstream.js';
import type { Decoded } from './upstream.js';

/** A gRPC status instead of a reply (`code` 5, NOT_FOUND, is what CoreDNS reads as NXDOMAIN). */
export class GrpcStatus {
  constructor(
    readonly code: number,
    readonly details = 'test double',
  ) {}
}

/** Bytes sent as the whole response message, not wrapped in a DnsPacket: a lying server's protobuf. */
export class RawResponse {
  constructor(readonly bytes: Buffer) {}
}

/** What the double does with one query; null leaves the call unanswered until the client gives up. */
export type GrpcBehaviour = (
  query: Decoded,
  raw: Buffer,
) => Packet | Buffer | GrpcStatus | RawResponse | null | Promise<Packet | Buffer | GrpcStatus | RawResponse | null>;

/** One call as the double saw it. */
export interface GrpcCall {
  readonly name: string;
  readonly type: string;
  readonly id: number;
  /** The DnsPacket's `msg`: the query exactly as the client sent it. */
  readonly raw: Buffer;
  /** The `:authority` the client sent (what `tls_servername` sets). */
  readonly authority: string;
  /** Whether the client presented a TLS certificate. */
  readonly clientCertificate: boolean;
}

/** Files and switches of a TLS double. */
export interface GrpcTlsOptions {
  readonly cert: string;
  readonly key: string;
  /** Client certificates must be signed by this CA (mutual TLS) when `requireClientCert`. */
  readonly ca?: string;
  readonly requireClientCert?: boolean;
}

/** Where and how a double listens. */
export interface GrpcUpstreamOptions {
  readonly tls?: GrpcTlsOptions;
  /** A unix socket to listen on instead of 127.0.0.1. */
  readonly path?: string;
  /** The port on 127.0.0.1 (a double brought back where one was); default a free one. */
  readonly port?: number;
}

export interface GrpcUpstream {
  /** 0 for a unix socket. */
  readonly port: number;
  /** `127.0.0.1:PORT` or `unix:///path`: a Corefile TO. */
  readonly address: string;
  readonly calls: GrpcCall[];
  behaviour: GrpcBehaviour;
  close(): Promise<void>;
}

let loading: Promise<{ grpc: typeof GrpcJs; service: GrpcJs.ServiceDefinition }> | undefined;

/** gRPC and the DnsService definition from proto/dns.proto, loaded once. */
function load(): Promise<{ grpc: typeof GrpcJs; service: GrpcJs.ServiceDefinition }> {
  loading ??= (async () => {
    const [grpc, protoLoader] = await Promise.all([import('@grpc/grpc-js'), import('@grpc/proto-loader')]);
    const file = fileURLToPath(new URL('../../proto/dns.proto', import.meta.url));
    const definition = await protoLoader.load(file, { keepCase: true });
    const service = definition['coredns.dns.DnsService'] as GrpcJs.ServiceDefinition;
    const method = service['Query'] as GrpcJs.MethodDefinition<object, object>;
    // A RawResponse goes out as it is; everything else through protobuf.
    const serialize = method.responseSerialize;
    const patched = { ...method, responseSerialize: (value: object): Buffer => (value instanceof RawResponse ? value.bytes : serialize(value)) };
    return { grpc, service: { Query: patched } };
  })();
  return loading;
}

/** Answers from a few zone-file records: the records of the name and type, NODATA for a name with others, NXDOMAIN otherwise. */
export function answeringFrom(...records: string[]): GrpcBehaviour {
  const all = records.map(rr);
  const key = (name: string): string => name.toLowerCase().replace(/\.$/, '');
  return (query) => {
    const q = query.questions[0];
    if (q === undefined) return reply(query, { rcode: Rcode.FORMERR });
    const owned = all.filter((r) => key(r.name) === key(q.name));
    const answers = owned.filter((r) => r.type === q.type) as Answer[];
    const answer = reply(query, { answers, rcode: owned.length === 0 ? Rcode.NXDOMAIN : Rcode.NOERROR });
    return { ...answer, flags: (answer.flags ?? 0) | dnsPacket.AUTHORITATIVE_ANSWER };
  };
}

/**
 * Starts a DnsService double on 127.0.0.1 (a free port unless `port`), or on the unix socket
 * `path`; with `tls` it serves TLS only.
 */
export async function startGrpcUpstream(behaviour: GrpcBehaviour, options: GrpcUpstreamOptions = {}): Promise<GrpcUpstream> {
  const { grpc, service } = await load();
  const server = new grpc.Server();
  const calls: GrpcCall[] = [];
  const pending = new Set<() => void>();
  const state: GrpcUpstream = { port: 0, address: '', calls, behaviour, close };
  server.addService(service, {
    Query: (call: GrpcJs.ServerUnaryCall<{ msg?: Buffer }, unknown>, callback: GrpcJs.sendUnaryData<unknown>): void => {
      const raw = Buffer.from(call.request.msg ?? Buffer.alloc(0));
      let query: Decoded;
      try {
        query = dnsPacket.decode(raw) as Decoded;
      } catch {
        callback({ code: grpc.status.INVALID_ARGUMENT, details: 'not a DNS message' });
        return;
      }
      const q = query.questions[0];
      calls.push({ name: q?.name ?? '', type: q?.type ?? '', id: query.id, raw, authority: call.getHost(), clientCertificate: call.getAuthContext().sslPeerCertificate !== undefined });
      void (async () => {
        const out = await state.behaviour(query, raw);
        if (out === null) {
          // Unanswered: the client's deadline ends the call; close() ends it too.
          pending.add(() => callback({ code: grpc.status.UNAVAILABLE, details: 'closed' }));
          return;
        }
        if (out instanceof GrpcStatus) return callback({ code: out.code, details: out.details });
        if (out instanceof RawResponse) return callback(null, out);
        callback(null, { msg: Buffer.isBuffer(out) ? out : dnsPacket.encode(out) });
      })().catch((error: unknown) => callback({ code: grpc.status.INTERNAL, details: String(error) }));
    },
  });
  const tls = options.tls;
  const credentials =
    tls === undefined
      ? grpc.ServerCredentials.createInsecure()
      : grpc.ServerCredentials.createSsl(tls.ca === undefined ? null : Buffer.from(tls.ca), [{ private_key: Buffer.from(tls.key), cert_chain: Buffer.from(tls.cert) }], tls.requireClientCert ?? false);
  const where = options.path === undefined ? `127.0.0.1:${options.port ?? 0}` : `unix://${options.path}`;
  const port = await new Promise<number>((resolve, reject) => server.bindAsync(where, credentials, (error, bound) => (error ? reject(error) : resolve(bound))));
  Object.assign(state, { port: options.path === undefined ? port : 0, address: options.path === undefined ? `127.0.0.1:${port}` : where });

  async function close(): Promise<void> {
    for (const end of pending) end();
    pending.clear();
    server.forceShutdown();
  }
  return state;
}

/** Starts a double that is closed after the test. */
export async function grpcUpstreamFor(t: { after(fn: () => unknown): void }, behaviour: GrpcBehaviour, options: GrpcUpstreamOptions = {}): Promise<GrpcUpstream> {
  const upstream = await startGrpcUpstream(behaviour, options);
  t.after(() => upstream.close());
  return upstream;
}
