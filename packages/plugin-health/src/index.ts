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
export { defaultHealthAddress, defaultLameduckMs, healthListeners, parseHealth, setup } from './setup.js';
export type { HealthListener, HealthOptions } from './setup.js';
export { defaultProbeIntervalMs, HealthEndpoint } from './endpoint.js';
export type { HealthEndpointOptions } from './endpoint.js';
export { createHealthMetrics } from './metrics.js';
export type { HealthMetrics } from './metrics.js';
export { splitHostPort } from '@foghorn/core';
export type { HostPort } from '@foghorn/core';
