/**
 * log: writes one line per query in CoreDNS's Common Log Format (CoreDNS's plugin/log).
 *
 * @example
 * // Capture query lines instead of writing them to stdout (tests, embedding):
 * import { createLogPlugin } from '@foghorn/plugin-log';
 * const lines: string[] = [];
 * const log = createLogPlugin({ sink: (line) => lines.push(line) });
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setupWith } from './setup.js';
import type { LogPluginOptions } from './setup.js';

/**
 * A `log` plugin whose lines go to `options.sink`. The default export is
 * `createLogPlugin()`: lines go to stdout in batches.
 */
export function createLogPlugin(options: LogPluginOptions = {}): PluginDefinition {
  return definePlugin({ name: 'log', setup: setupWith(options) });
}

const plugin: PluginDefinition = createLogPlugin();
export default plugin;

export { parseLog } from './setup.js';
export type { LogPluginOptions, LogRule } from './setup.js';
export type { LogClass } from './classify.js';
export { COMBINED_LOG_FORMAT, COMMON_LOG_FORMAT, DEFAULT_LOG_FORMAT } from './format.js';
