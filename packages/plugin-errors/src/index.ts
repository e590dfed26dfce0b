/**
 * errors: logs the errors plugins return through the chain, optionally consolidating repeated
 * ones into one summary line per time window (CoreDNS's plugin/errors).
 *
 * @example
 * // Consolidation windows driven by hand in tests:
 * import { createErrorsPlugin } from '@foghorn/plugin-errors';
 * const errors = createErrorsPlugin({ timers: myFakeTimers });
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setupWith } from './setup.js';
import type { Timers } from './handler.js';

/** Options of {@link createErrorsPlugin}. */
export interface ErrorsPluginOptions {
  /** Timers for consolidation windows; real, unref'd timers by default. */
  readonly timers?: Timers;
}

/** An `errors` plugin; the default export is `createErrorsPlugin()`. */
export function createErrorsPlugin(options: ErrorsPluginOptions = {}): PluginDefinition {
  return definePlugin({ name: 'errors', setup: setupWith(options.timers) });
}

const plugin: PluginDefinition = createErrorsPlugin();
export default plugin;

export { parseErrors } from './setup.js';
export type { ConsolidateRule, ErrorLevel, ErrorsOptions } from './setup.js';
export type { Timers } from './handler.js';
