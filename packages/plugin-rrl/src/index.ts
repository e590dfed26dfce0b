/**
 * rrl: response rate limiting, BIND's and Knot's defence against DNS reflection, with the syntax
 * of coredns/rrl. Limits UDP replies per client prefix and response category; drops the excess
 * or slips it truncated so real clients retry over TCP.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

const plugin: PluginDefinition = definePlugin({ name: 'rrl', setup });
export default plugin;

// The package's API: the plugin, and its option parser for setup tables. Tests of the internals
// import their modules by path.
export { parseRrl } from './setup.js';
export type { RrlOptions } from './setup.js';
