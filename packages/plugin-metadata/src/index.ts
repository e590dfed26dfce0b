/**
 * metadata: gives every query of its server block metadata that plugins publish and read
 * (CoreDNS's *metadata*): *kubernetes* and *view* publish labels, *forward* and *log* set
 * theirs as the query goes, and *log*, *rewrite*, *template* and *view* read them.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

const plugin: PluginDefinition = definePlugin({ name: 'metadata', setup });
export default plugin;
export { Collector } from './collect.js';
export { MetadataHandler } from './handler.js';
export { parseMetadata } from './setup.js';
