/**
 * erratic: CoreDNS's test plugin. Answers A and AAAA with fixed records, drops, truncates or
 * delays every Nth query, and reports a readiness that flips, to test clients and *ready*.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { Controller, PluginDefinition } from '@foghorn/core';
import { Erratic } from './handler.js';
import { parseErratic } from './setup.js';

/** Parses the directive, adds the handler (it ignores the rest of the chain) and its readiness. */
export function setup(c: Controller): void {
  const erratic = new Erratic(parseErratic(c));
  c.addHandler(() => erratic);
  c.reportReadiness(() => erratic.ready());
}

const plugin: PluginDefinition = definePlugin({ name: 'erratic', setup });
export default plugin;
export { Erratic, parseErratic };
export type { ErraticOptions } from './setup.js';
