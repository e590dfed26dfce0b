/**
 * chaos: answers `version.bind`, `version.server`, `authors.bind`, `hostname.bind` and
 * `id.server` in class CH, type TXT, as CoreDNS's *chaos*. Its presence lets the listener accept
 * classes other than IN (CoreDNS's `EnableChaos`, see `core/src/instance.ts`).
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

// CH is chaos's class: the listener must let other classes than IN reach it.
const plugin: PluginDefinition = definePlugin({ name: 'chaos', anyClass: true, setup });
export default plugin;
export { Chaos } from './handler.js';
export { parseChaos } from './setup.js';
export type { ChaosOptions } from './setup.js';
