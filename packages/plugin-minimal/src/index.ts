/**
 * minimal: strips the authority and additional sections of positive, non-delegation replies, as
 * CoreDNS's *minimal*.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

const plugin: PluginDefinition = definePlugin({ name: 'minimal', setup });
export default plugin;
export { Minimal, MinimalWriter } from './handler.js';
export { DECODE, KEEP, minimalEnd } from './wire.js';
export type { OptFound } from './wire.js';
export { parseMinimal } from './setup.js';
