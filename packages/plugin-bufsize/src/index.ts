/**
 * bufsize: lowers the EDNS0 UDP buffer size of queries to a maximum, as CoreDNS's *bufsize*, so
 * that replies, and the queries *forward* sends upstream, avoid IP fragmentation.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

const plugin: PluginDefinition = definePlugin({ name: 'bufsize', setup });
export default plugin;
export { Bufsize } from './handler.js';
export { DEFAULT_BUFSIZE, parseBufsize } from './setup.js';
