/**
 * debug: `[DEBUG]` log lines, and recovered panics logged with their stack, as CoreDNS's *debug*
 * (which turns panic recovery off instead: see the README's Differences).
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

const plugin: PluginDefinition = definePlugin({ name: 'debug', setup });
export default plugin;
export { parseDebug } from './setup.js';
