/**
 * trace: spans for each query and each plugin it passes, sent to a Zipkin or OTLP collector, as
 * CoreDNS's *trace* plugin.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

const plugin: PluginDefinition = definePlugin({ name: 'trace', setup });
export default plugin;
export { parseTrace } from './setup.js';
export type { EndpointType, TraceOptions } from './setup.js';
