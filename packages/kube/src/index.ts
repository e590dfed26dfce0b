/**
 * `@foghorn/kube`: the Kubernetes client every Foghorn plugin shares. Importing it is cheap: the
 * client's modules load on the first connection resolved, so a Corefile that never talks to a
 * cluster never loads them (nor does a `-workers` worker: its primary resolves). Requests are
 * node:https's; @kubernetes/client-node loads only for a kubeconfig whose user runs an `exec`
 * plugin or an `auth-provider`, or whose cluster has a `proxy-url` (connection.ts says why).
 *
 * Wiring, for a plugin's setup:
 *
 * ```ts
 * import { endpointSlicesResource, informerRegistry } from '@foghorn/kube';
 * const informers = informerRegistry(c); // one per process, kept across reloads
 * let lease: InformerLease<EndpointSlice> | undefined;
 * c.onStartup(async () => {
 *   // Throws KubeConnectionError when no connection is configured (a startup error);
 *   // never throws for API server trouble: the informer retries in the background.
 *   lease = await informers.acquire({ endpoint }, endpointSlicesResource(), subscriber, { logger: c.log, plugin: 'myplugin' });
 * });
 * c.provide(ReadinessProbes, { name: c.directive, ready: () => lease?.synced ?? false });
 * c.onShutdown(() => lease?.release());
 * ```
 *
 * - `resolveConnection(connection, env, { serviceAccountDir? })`: `kubeconfig PATH [CONTEXT]`
 *   (with `endpoint URL` too: the kubeconfig's credentials against that server), else
 *   `endpoint URL` alone (no credentials), else the pod's service account
 *   (`/var/run/secrets/kubernetes.io/serviceaccount` + `KUBERNETES_SERVICE_HOST/PORT`), else
 *   `$KUBECONFIG`, else a {@link KubeConnectionError}.
 * - `startWatch(connection, resource, sink, options)`: one unshared informer. The sink gets
 *   `replace(all)` after every (re)list, then `upsert`/`remove` per event, in order,
 *   synchronously. While the API server is away the sink keeps the last known state. Failures
 *   are logged through `options.logger` at most once per `logIntervalMs` per watch.
 *   `resource.optional`: a 404 delivers `replace([])`, counts as synced, and is checked again
 *   every `backoffMaxMs`.
 * - `InformerRegistry.acquire(...)`: the same informer, shared by everyone asking for the same
 *   connection, resource and selectors, and reference-counted.
 * - `manifestsDirectory(dir, apply, log, options)`: a watched directory of YAML/JSON manifests
 *   whose every scan hands `apply` the complete list (a relist's shape), for cluster-less sources.
 *
 * `-workers N` (hub.ts, remote.ts): the primary calls `startInformerHub({ logger })` and
 * `attach(worker)` for each forked worker, whose environment has `FOGHORN_INFORMER_HUB=1`. In
 * such a worker `informerRegistry(c)` and `manifestsDirectory(...)` return the same interfaces
 * backed by the primary over IPC: one list+watch (and one directory reader) for all workers,
 * the same calls in the same order in each, errors (`KubeConnectionError`, bad options) rethrown
 * as the same class. The primary logs watch and file failures once, as `plugin/NAME: ` of the
 * `plugin` option. In one process nothing of this runs.
 * @module
 */
export { defaultServiceAccountDir, KubeConnectionError } from './types.js';
export type { KubeConnection, KubeObject, ObjectMeta, ObjectSink, ResourceSpec, Watch } from './types.js';
export { resolveConnection, startWatch } from './watch.js';
export type { StartWatchOptions } from './watch.js';
export type { ConnectionSource, RequestAuth, ResolvedConnection, ResolveOptions } from './connection.js';
export type { InformerOptions } from './informer.js';
export { connectionKey, informerKey, InformerRegistry, informerRegistry, registryKey } from './registry.js';
export type { AcquireOptions, ConnectionInfo, InformerBackend, InformerInfo, InformerLease, InformerSink, InformerSubscriber } from './registry.js';
export { startInformerHub } from './hub.js';
export type { HubWorker, InformerHub, InformerHubOptions } from './hub.js';
export { hubEnvironmentVariable, isHubWorker } from './ipc.js';
export { hubHttpChannel, timeHttpRequests } from './http-timing.js';
export type { TimedRequest } from './http-timing.js';
export { RemoteManifestsDirectory } from './remote.js';
export type { Manifests } from './remote.js';
export {
  endpointSlicesResource,
  headlessLabel,
  joinSelectors,
  managedByLabel,
  mcsServiceNameLabel,
  mcsSourceClusterLabel,
  namespacesResource,
  objectKey,
  podsResource,
  serviceImportsResource,
  serviceNameLabel,
  servicesResource,
} from './resources.js';
export type { Endpoint, EndpointPort, EndpointSlice, Namespace, ObjectReference, Pod, Selectors, Service, ServiceImport, ServicePort } from './resources.js';
export { defaultManifestsDebounceMs, ManifestsDirectory, manifestsDirectory, parseManifests } from './manifests.js';
export type { ManifestsDirectoryOptions } from './manifests.js';
