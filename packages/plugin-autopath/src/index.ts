/**
 * autopath: the client's DNS search path walked on the server, as CoreDNS's *autopath*, from a
 * resolv.conf file or per client from a plugin (`@kubernetes`, with `pods verified`).
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

const plugin: PluginDefinition = definePlugin({ name: 'autopath', setup });
export default plugin;
export { AutoPath } from './handler.js';
export { parseAutopath } from './setup.js';
export type { AutoPathOptions } from './setup.js';
