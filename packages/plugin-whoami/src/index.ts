/**
 * whoami: answers every query with the client's address (A or AAAA) and its port and transport
 * (SRV `_udp.<qname>` / `_tcp.<qname>`) in the additional section, as CoreDNS's whoami.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

const plugin: PluginDefinition = definePlugin({ name: 'whoami', setup });
export default plugin;
export { parseWhoami } from './setup.js';
// The handler, for programs and benchmarks that end a chain with it.
export { Whoami } from './handler.js';
