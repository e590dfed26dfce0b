/**
 * bind: restricts the addresses a server block listens on, as CoreDNS's bind.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

const plugin: PluginDefinition = definePlugin({ name: 'bind', setup });
export default plugin;
export { parseBind } from './setup.js';
export type { BindOptions } from './setup.js';
