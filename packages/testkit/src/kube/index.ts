/**
 * `@foghorn/testkit/kube`: a test Kubernetes API server with fault injection, and writers for
 * the files clients use to find it (kubeconfig, in-cluster service account, TLS pair).
 *
 * @example
 * const api = await startKubeApiServer({ tls: true, token: 'secret' });
 * t.after(() => api.close());
 * api.apply({ apiVersion: 'multicluster.x-k8s.io/v1alpha1', kind: 'ServiceImport', metadata: { name: 'nginx', namespace: 'default' } });
 * api.failNext(500, { match: 'list', count: 2 });
 * @module
 */
export { apiStatus, KubeApiServer, selectionKey, startKubeApiServer } from './api-server.js';
export type { ApiStatus, KubeApiServerOptions, PageCounts, RecordedRequest, RequestMatch } from './api-server.js';
export { makeTempDir, testTlsPair, writeKubeconfig, writeServiceAccount } from './files.js';
export type { InClusterFiles, KubeconfigContext, TempDir, TlsPair } from './files.js';
export { defaultResources, parseFieldSelector, parseLabelSelector } from './store.js';
export type { ApiObject, ApiObjectMeta, ApiResource, EventType, FieldSelector, LabelSelector } from './store.js';
export { objectName, RecordingSink } from './sink.js';
export type { SinkCall, SinkObject } from './sink.js';
export { syntheticClusters, syntheticClusterset, syntheticEndpointSlice, syntheticServiceImport } from './clusterset.js';
export type { SyntheticObject, SyntheticOptions } from './clusterset.js';
