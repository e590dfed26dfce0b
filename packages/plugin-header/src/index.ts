/**
 * header: sets or clears the AA, RA and RD flags of queries and responses, as CoreDNS's *header*.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

const plugin: PluginDefinition = definePlugin({ name: 'header', setup });
export default plugin;
export { Header, HeaderWriter } from './handler.js';
export { parseHeader, flagMasks } from './setup.js';
export type { FlagMasks, HeaderRules, Rule } from './setup.js';
