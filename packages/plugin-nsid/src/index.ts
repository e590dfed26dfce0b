/**
 * nsid: the name server identifier of RFC 5001 in replies to queries that ask for it, as
 * CoreDNS's *nsid* (the host's name by default).
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

const plugin: PluginDefinition = definePlugin({ name: 'nsid', setup });
export default plugin;
export { EDNS_OPTION_NSID, Nsid } from './handler.js';
export { parseNsid } from './setup.js';
