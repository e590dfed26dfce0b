/**
 * erratic: CoreDNS's test plugin. Answers A and AAAA with fixed records, drops, truncates or
 * delays every Nth query, and reports a readiness that flips, to test clients and *ready*.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

const plugin: PluginDefinition = definePlugin({ name: 'erratic', setup });
export default plugin;
export { Erratic } from './handler.js';
export { parseErratic } from './setup.js';
export type { ErraticOptions } from './setup.js';
