/**
 * dnstap: logs client queries and responses (and, through *forward*, the messages exchanged
 * with upstreams) to dnstap collectors over Frame Streams, as CoreDNS's *dnstap* plugin.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

const plugin: PluginDefinition = definePlugin({ name: 'dnstap', setup });
export default plugin;
export { parseDnstap } from './setup.js';
export type { DnstapOptions } from './setup.js';
