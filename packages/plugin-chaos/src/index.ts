/**
 * chaos: answers `version.bind`, `version.server`, `authors.bind`, `hostname.bind` and
 * `id.server` in class CH, type TXT, as CoreDNS's *chaos*. Its presence lets the listener accept
 * classes other than IN (CoreDNS's `EnableChaos`, see `core/src/instance.ts`).
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { Controller, PluginDefinition } from '@foghorn/core';
import { Chaos } from './handler.js';
import { parseChaos } from './setup.js';

/** Parses the directive and adds the handler. */
export function setup(c: Controller): void {
  const options = parseChaos(c);
  c.addHandler((next) => new Chaos(options, next));
}

const plugin: PluginDefinition = definePlugin({ name: 'chaos', setup });
export default plugin;
export { Chaos, parseChaos };
export type { ChaosOptions } from './setup.js';
