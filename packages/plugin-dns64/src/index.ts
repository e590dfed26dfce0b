/**
 * dns64: synthesises AAAA records from A records for clients of an IPv6-only network behind NAT64
 * (RFC 6147), as CoreDNS's *dns64*.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

const plugin: PluginDefinition = definePlugin({ name: 'dns64', setup });
export default plugin;
export { Dns64, Dns64Writer, to6 } from './handler.js';
export { aaaaVerdict, Verdict } from './wire.js';
export { parseDns64, DEFAULT_PREFIX } from './setup.js';
export type { Dns64Options } from './setup.js';
export { createDns64Metrics } from './metrics.js';
export type { Dns64Metrics } from './metrics.js';
