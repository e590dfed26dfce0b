/**
 * k8s_external: the external IPs and load balancer ingresses of Kubernetes Services (and, with
 * `headless`, headless services' endpoints) under a zone of their own, as CoreDNS's
 * *k8s_external*, answered from the *kubernetes* plugin of the same server block.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

const plugin: PluginDefinition = definePlugin({ name: 'k8s_external', setup });
export default plugin;
export { External } from './handler.js';
export type { ExternalOptions } from './handler.js';
export { parseK8sExternal } from './setup.js';
