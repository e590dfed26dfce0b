/**
 * template: answers queries with records rendered from templates of the query name, type, class
 * and regex groups, as CoreDNS's template plugin.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

const plugin: PluginDefinition = definePlugin({ name: 'template', setup });
export default plugin;

export { parseTemplate, setup } from './setup.js';
export type { Template } from './setup.js';
export { TemplateHandler } from './handler.js';
export { GoTemplate, TemplateError } from './gotemplate.js';
export { createTemplateMetrics } from './metrics.js';
export type { TemplateMetrics } from './metrics.js';
