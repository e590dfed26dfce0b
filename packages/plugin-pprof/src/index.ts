/**
 * pprof: CPU and heap profiles of the process at `/debug/pprof`, in pprof's format, as
 * CoreDNS's *pprof* plugin serves Go's.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

const plugin: PluginDefinition = definePlugin({ name: 'pprof', setup });
export default plugin;
export { parsePprof } from './setup.js';
export type { PprofOptions } from './setup.js';
