/**
 * view: serves a query from this server block only when the block's expressions hold for it
 * (CoreDNS's *view*), so blocks sharing a zone and port split queries between them: split DNS by
 * client network, query type, name, transport or metadata.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

const plugin: PluginDefinition = definePlugin({ name: 'view', setup });
export default plugin;
export { compileExpression, ExpressionError } from './expr.js';
export type { Expression } from './expr.js';
export { ViewHandler } from './handler.js';
export { parseView } from './setup.js';
export type { ViewOptions } from './setup.js';
