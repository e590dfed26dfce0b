/**
 * timeouts: the read, write and idle timeouts and the queries-per-connection cap of a server
 * block's TCP, DNS-over-TLS and DNS-over-HTTPS connections, as CoreDNS's timeouts plugin.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

const plugin: PluginDefinition = definePlugin({ name: 'timeouts', setup });
export default plugin;

export { parseTimeouts, setup } from './setup.js';
export type { TimeoutsOptions } from './setup.js';
