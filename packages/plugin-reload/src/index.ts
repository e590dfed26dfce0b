/**
 * reload: re-reads the Corefile every INTERVAL (± jitter) and reloads the server when its parsed
 * contents changed, as CoreDNS's *reload* plugin.
 * @module
 */
import type { PluginDefinition } from '@foghorn/core';
import { createReloadPlugin } from './setup.js';

const plugin: PluginDefinition = createReloadPlugin();
export default plugin;
export { createReloadPlugin, parseReload } from './setup.js';
export type { ReloadLimits, ReloadOptions, ReloadPluginOptions } from './setup.js';
