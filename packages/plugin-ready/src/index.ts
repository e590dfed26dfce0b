/**
 * ready: a process-wide `/ready` HTTP endpoint that answers `200 OK` once every plugin that
 * reports readiness is ready, and 503 with their names until then, as CoreDNS's *ready* plugin.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

const plugin: PluginDefinition = definePlugin({ name: 'ready', setup });
export default plugin;
export { parseReady, readyListeners } from './setup.js';
export type { ReadyListener, ReadyOptions } from './setup.js';
export type { MonitorMode } from './readiness.js';
