/**
 * on: commands run when the server starts serving and when it shuts down, as caddy's `onevent`
 * plugin that CoreDNS compiles in (`on startup|shutdown|certrenew COMMAND [ARGS...] [&]`).
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

const plugin: PluginDefinition = definePlugin({ name: 'on', setup });
export default plugin;
export { parseOn } from './setup.js';
export type { OnEvent, OnHook } from './setup.js';
