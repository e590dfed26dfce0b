/**
 * prometheus: exports CoreDNS's metrics on `/metrics` (default `localhost:9153`) and counts every
 * query and reply of the server blocks that use it. The distribution also loads it as `metrics`.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

const plugin: PluginDefinition = definePlugin({ name: 'prometheus', setup });
export default plugin;

export { parsePrometheus } from './setup.js';
export type { PrometheusOptions } from './setup.js';
export { metricsListeners } from './endpoint.js';
export type { ListenAddress, MetricsListenerInfo } from './endpoint.js';
