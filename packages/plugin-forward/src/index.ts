/**
 * forward: proxies queries to upstream resolvers over UDP, TCP, DNS over TLS or DNS over HTTPS,
 * with connection reuse, in-band health checks and CoreDNS's policies (CoreDNS's plugin/forward).
 *
 * @example
 * // A forward whose per-query budget a test shortens:
 * import { createForwardPlugin } from '@foghorn/plugin-forward';
 * const forward = createForwardPlugin({ budgetMs: 300 });
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import type { ForwardRuntime } from './handler.js';
import { setupWith } from './setup.js';

/** A `forward` plugin; the default export is `createForwardPlugin()`. */
export function createForwardPlugin(runtime: Partial<ForwardRuntime> = {}): PluginDefinition {
  // forward passes on queries of every class, so its listeners must not refuse CH and others.
  return definePlugin({ name: 'forward', anyClass: true, setup: setupWith(runtime) });
}

const plugin: PluginDefinition = createForwardPlugin();
export default plugin;

export { parseForward } from './setup.js';
export type { ForwardOptions, Policy, TlsFiles } from './setup.js';
export type { Forward, ForwardRuntime } from './handler.js';
