/**
 * any: answers ANY queries with the minimal HINFO reply of RFC 8482, as CoreDNS's *any*.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

const plugin: PluginDefinition = definePlugin({ name: 'any', setup });
export default plugin;
export { Any } from './handler.js';
export { parseAny } from './setup.js';
