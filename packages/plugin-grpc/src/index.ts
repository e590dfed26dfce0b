/**
 * grpc: forwards queries to upstreams over CoreDNS's `DnsService` gRPC protocol, in plaintext
 * or TLS, with CoreDNS's policies (CoreDNS's plugin/grpc).
 *
 * @example
 * // A grpc whose per-query budget a test shortens:
 * import { createGrpcPlugin } from '@foghorn/plugin-grpc';
 * const grpc = createGrpcPlugin({ budgetMs: 300 });
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import type { GrpcRuntime } from './handler.js';
import { setupWith } from './setup.js';

/** A `grpc` plugin; the default export is `createGrpcPlugin()`. */
export function createGrpcPlugin(runtime: Partial<GrpcRuntime> = {}): PluginDefinition {
  // grpc passes on queries of every class, as forward does.
  return definePlugin({ name: 'grpc', anyClass: true, setup: setupWith(runtime) });
}

const plugin: PluginDefinition = createGrpcPlugin();
export default plugin;

export { parseGrpc, MAX_UPSTREAMS } from './setup.js';
export type { GrpcOptions, TlsFiles } from './setup.js';
export type { Grpc, GrpcRuntime } from './handler.js';
export type { Policy } from './policy.js';
export type { Upstream } from './upstream.js';
export { decodePacket, encodePacket, PacketError } from './packet.js';
