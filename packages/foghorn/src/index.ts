/**
 * The Foghorn distribution: the standard directive list, for programs that embed the server.
 * @module
 */
export { aliases, directiveOrder, standardDirectives } from './directives.js';
export { parseFlags, usage } from './flags.js';
export type { CliFlags } from './flags.js';
export { version } from './version.js';
export { v8Flags, withV8Flags } from './v8-flags.js';
export { main } from './main.js';
export { defaultCorefile } from './default-corefile.js';
export { discoverExternalPlugins, loadExternalPlugin, placeByHints, PluginLoadError, readPluginsCfg } from './external.js';
export type { ExternalPackage } from './external.js';
export { chooseDirectives, createServer } from './embed.js';
export type { EmbeddedServerOptions } from './embed.js';
