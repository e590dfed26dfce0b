/**
 * root: the directory the file paths of a server block resolve against, as CoreDNS's *root*.
 * Setup-only; plugins that read files join it to relative paths with core's `rootedPath`.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

const plugin: PluginDefinition = definePlugin({ name: 'root', setup });
export default plugin;
export { parseRoot } from './setup.js';
