/**
 * cache: a CoreDNS-compatible response cache (CoreDNS's plugin/cache) whose hits are answered from stored wire
 * bytes: one copy, then the ID, the TTL fields and the question's case are patched.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setupWith } from './setup.js';
import type { CacheHooks } from './setup.js';

/**
 * The `cache` directive with an injected clock or a hook on each cache created; the default
 * export is `createCachePlugin()`.
 *
 * @example
 * let now = Date.now();
 * const cache = createCachePlugin({ now: () => now });
 * const server = await startServer(corefile, { directives: directivesOf(bind, cache, upstream) });
 * now += 10_000; // ten seconds later, without sleeping
 */
export function createCachePlugin(hooks: CacheHooks = {}): PluginDefinition {
  return definePlugin({ name: 'cache', setup: setupWith(hooks) });
}

const plugin: PluginDefinition = createCachePlugin();
export default plugin;

export { parseCache } from './setup.js';
export type { CacheHooks, CacheOptions, CacheTier, StaleMode } from './setup.js';
export type { Cache } from './handler.js';
