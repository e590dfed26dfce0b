/**
 * reload: re-reads the Corefile every INTERVAL (± jitter) and reloads the server when its parsed
 * contents changed, as CoreDNS's *reload* plugin.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setupWith } from './setup.js';
import type { ReloadPluginOptions } from './setup.js';

/** Builds the `reload` plugin; the default export uses CoreDNS's limits. */
export function createReloadPlugin(options: ReloadPluginOptions = {}): PluginDefinition {
  return definePlugin({ name: 'reload', setup: setupWith(options) });
}

const plugin: PluginDefinition = createReloadPlugin();
export default plugin;
export { parseReload } from './setup.js';
export type { ReloadLimits, ReloadOptions, ReloadPluginOptions } from './setup.js';
