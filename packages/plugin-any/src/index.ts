/**
 * any: answers ANY queries with the minimal HINFO reply of RFC 8482, as CoreDNS's *any*.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { Controller, PluginDefinition } from '@foghorn/core';
import { Any } from './handler.js';

/** Parses `any`: no arguments, no block (CoreDNS's `plugin/any/setup.go`). */
export function parseAny(c: Controller): void {
  while (c.next()) {
    if (c.nextArg()) throw c.argError();
    if (c.nextBlock()) throw c.error(`unknown property '${c.val()}'`);
  }
}

/** Parses the directive and adds the handler. */
export function setup(c: Controller): void {
  parseAny(c);
  c.addHandler((next) => new Any(next));
}

const plugin: PluginDefinition = definePlugin({ name: 'any', setup });
export default plugin;
export { Any };
