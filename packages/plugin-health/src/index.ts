/**
 * health: a process-wide `/health` HTTP endpoint that answers `200 OK` while the process runs,
 * with an optional lameduck delay at shutdown, as CoreDNS's *health* plugin.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

const plugin: PluginDefinition = definePlugin({ name: 'health', setup });
export default plugin;
export { healthListeners, parseHealth } from './setup.js';
export type { HealthListener, HealthOptions } from './setup.js';
