/**
 * loop: detects simple forwarding loops at startup and halts the server, as CoreDNS's *loop*.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

const plugin: PluginDefinition = definePlugin({ name: 'loop', setup });
export default plugin;
export { joinHostPort, Loop, probeDeadlineMs, probeName, probeRetryMs, probeTimeoutMs, startProbe } from './loop.js';
export type { ProbeTarget } from './loop.js';
export { parseLoop } from './setup.js';
export type { LoopOptions } from './setup.js';
