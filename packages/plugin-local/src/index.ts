/**
 * local: answers the local names of RFC 6761 and RFC 6303 (localhost, the loopback and
 * "this network" reverse zones) so they never leave the server, as CoreDNS's *local*.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

const plugin: PluginDefinition = definePlugin({ name: 'local', setup });
export default plugin;
export { Local, LOCAL_TTL } from './handler.js';
export { parseLocal } from './setup.js';
export type { LocalOptions } from './setup.js';
export { createLocalMetrics } from './metrics.js';
export type { LocalMetrics } from './metrics.js';
