/**
 * acl: allows, blocks (REFUSED), filters (empty NOERROR) or drops queries by source address and
 * query type, per zone, as CoreDNS's acl plugin.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

const plugin: PluginDefinition = definePlugin({ name: 'acl', setup });
export default plugin;

export { parseAcl, setup } from './setup.js';
export type { AclAction, AclOptions, AclPolicy, AclRule } from './setup.js';
export { Acl, EDE_BLOCKED, EDE_FILTERED } from './handler.js';
export { createAclMetrics } from './metrics.js';
export type { AclMetrics } from './metrics.js';
export { networkContains, parseClientAddress, parseNetwork } from './address.js';
export type { AddressWords, Network } from './address.js';
