/**
 * @foghorn/plugin-kubernetes: the `kubernetes` directive, CoreDNS's cluster DNS (`cluster.local`)
 * from Services, EndpointSlices, Pods and Namespaces, with the `multicluster` option for
 * ServiceImports (KEP-1645), read from the Kubernetes API or from a directory of manifests.
 * @module
 */
import { createKubernetesPlugin } from './setup.js';

export { createKubernetesPlugin } from './setup.js';
export type { PluginOverrides } from './setup.js';
export { defaultStartupTimeoutMs, defaultTtl, parseKubernetes } from './options.js';
export type { KubernetesOptions, PodMode, SourceOptions } from './options.js';
export { LabelSelector } from './selector.js';
export { ClusterStore } from './store.js';
export { addressFromReverse, parseRequest, Resolver } from './resolve.js';
export { parseManifests } from './manifests.js';
export { podFieldSelector, watchedResources } from './source.js';

export default createKubernetesPlugin();
