/**
 * reload: re-reads the Corefile every INTERVAL (± jitter) and reloads the server when its parsed
 * contents changed, as CoreDNS's *reload* plugin.
 * @module
 */
import type { PluginDefinition } from '@foghorn/core';
import { createReload } from './setup.js';

const plugin: PluginDefinition = createReload();
export default plugin;
export { coreDnsLimits, createReload, defaultIntervalMs, defaultJitterMs, parseReload, reloadPeriodMs, setup } from './setup.js';
export type { CreateReloadOptions, ReloadLimits, ReloadOptions } from './setup.js';
export { corefileJson, hashCorefile } from './hash.js';
export { createReloadMetrics } from './metrics.js';
export type { ReloadMetrics } from './metrics.js';
export { CorefileWatcher } from './watcher.js';
export type { WatchedConfig } from './watcher.js';
