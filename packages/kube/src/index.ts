/**
 * The Kubernetes watch layer of *lighthouse*. Import it dynamically
 * (`await import('./kube/index.js')`) so `@kubernetes/client-node` loads only when the
 * Kubernetes source is used.
 *
 * Wiring, for the plugin's setup:
 *
 * ```ts
 * const kube = await import('./kube/index.js');
 * // Once, so a bad `kubeconfig`/`endpoint` is a setup error (throws KubeConnectionError):
 * const connection = await kube.resolveConnection({ kubeconfig, context, endpoint }, process.env);
 * // Per resource; never throws for API server trouble, retries in the background:
 * const watch = await kube.startWatch(connection, {
 *   group: 'multicluster.x-k8s.io', version: 'v1alpha1', plural: 'serviceimports',
 * }, sink, { logger: c.log }); // `log: c.log` works too
 * watch.synced;       // readiness: true once the first full list reached the sink, and stays true
 * await watch.stop(); // on shutdown: closes the connection; nothing logs or calls the sink afterwards
 * ```
 *
 * - `resolveConnection(connection, env, { serviceAccountDir? })`: `kubeconfig PATH [CONTEXT]`
 *   (with `endpoint URL` too: the kubeconfig's credentials against that server), else
 *   `endpoint URL` alone (no credentials), else the pod's service account
 *   (`/var/run/secrets/kubernetes.io/serviceaccount` + `KUBERNETES_SERVICE_HOST/PORT`), else
 *   `$KUBECONFIG`, else a {@link KubeConnectionError}.
 * - `startWatch(connection, resource, sink, options)`: `connection` is a `KubeConnection`
 *   (resolved here with `options.env`, default `process.env`) or a `resolveConnection` result.
 *   The sink gets `replace(all)` after every (re)list, then `upsert`/`remove` per event, in
 *   order, synchronously. While the API server is away the sink keeps the last known state.
 *   Failures are logged through `options.logger` at most once per `logIntervalMs` per watch.
 *   `resource.optional`: a 404 delivers `replace([])`, counts as synced, and is checked again
 *   every `backoffMaxMs`.
 */
import { createLogger } from '@foghorn/core';
import type { Logger } from '@foghorn/core';
import { resolveConnection } from './connection.js';
import type { ResolvedConnection, ResolveOptions } from './connection.js';
import { Informer } from './informer.js';
import type { InformerOptions } from './informer.js';
import type { KubeConnection, ObjectSink, ResourceSpec, Watch } from './types.js';

export { defaultServiceAccountDir, KubeConnectionError, resolveConnection } from './connection.js';
export type { ConnectionSource, ResolvedConnection, ResolveOptions } from './connection.js';
export { defaultBackoffInitialMs, defaultBackoffMaxMs, defaultListPageSize, defaultLogIntervalMs, resourceName, resourcePath } from './informer.js';
export type { InformerOptions } from './informer.js';
export type { KubeConnection, KubeObject, ObjectSink, ResourceSpec, Watch } from './types.js';

/** Options for {@link startWatch}. */
export interface StartWatchOptions extends Omit<InformerOptions, 'logger'>, ResolveOptions {
  /** The plugin's logger (`c.log`). Default: stdout with the `plugin/lighthouse: ` prefix. */
  readonly logger?: Logger;
  /** Same as `logger` (the name the plugin's kube source uses); `logger` wins if both are set. */
  readonly log?: Logger;
  /** Environment for resolving a `KubeConnection` (in-cluster variables, $KUBECONFIG). Default process.env. */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * Starts listing and watching `resource` into `sink`. Resolves at once, before the first list;
 * poll `synced` for readiness. Rejects only when `connection` cannot be resolved.
 */
export async function startWatch(
  connection: KubeConnection | ResolvedConnection,
  resource: ResourceSpec,
  sink: ObjectSink,
  options: StartWatchOptions = {},
): Promise<Watch> {
  const resolved = 'config' in connection ? connection : await resolveConnection(connection, options.env ?? process.env, options);
  for (const key of ['backoffInitialMs', 'backoffMaxMs', 'watchTimeoutSeconds', 'watchdogMs', 'listPageSize', 'logIntervalMs'] as const) {
    const value = options[key];
    if (value !== undefined && !(Number.isFinite(value) && value > 0)) throw new RangeError(`${key} must be a positive number, got ${value}`);
  }
  const logger = options.logger ?? options.log ?? createLogger().forPlugin('lighthouse');
  const informer = new Informer(resolved.config, resource, sink, { ...options, logger });
  informer.start();
  return informer;
}
