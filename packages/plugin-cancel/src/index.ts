/**
 * cancel: a deadline for every query, as CoreDNS's *cancel* (5001 ms by default). Plugins that
 * wait on I/O read `Request.deadline` and stop waiting when it passes: *forward* answers SERVFAIL.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

const plugin: PluginDefinition = definePlugin({ name: 'cancel', setup });
export default plugin;
export { Cancel } from './handler.js';
export { defaultTimeoutMs, parseCancel } from './setup.js';
