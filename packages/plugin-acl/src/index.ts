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

// The package's API: the plugin, and its option parser for setup tables. Tests of the internals
// import their modules by path.
export { parseAcl } from './setup.js';
export type { AclAction, AclOptions, AclPolicy, AclRule } from './setup.js';
