/**
 * @foghorn/plugin-lighthouse: the `lighthouse` directive, Submariner Lighthouse's multi-cluster
 * service discovery (`clusterset.local`) from ServiceImports, EndpointSlices and Gateways, read
 * from the Kubernetes API or from a directory of manifests.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import { setup } from './setup.js';

export { defaultTtlSeconds, familiesOf, maxTtlSeconds, parseLighthouse } from './setup.js';
export type { LighthouseOptions, SourceOptions } from './setup.js';
export { ServiceStore } from './store.js';
export type { DnsRecord, Port, ServiceType, StoreChange } from './store.js';
export { AnswerTable } from './answers.js';
export type { Families } from './answers.js';
export { ManifestsSource } from './manifests.js';
export { parseManifests } from '@foghorn/kube';
export { SmoothWeightedRoundRobin } from './swrr.js';
export { isPermittedAddress, dashedHostname, reverseName } from './addresses.js';
export type { KubeObject, ObjectSink } from '@foghorn/kube';

export default definePlugin({ name: 'lighthouse', setup });
export { watchedResourceSpecs } from './kube-source.js';
