/**
 * The two entry points that talk to a cluster. They load the client's modules on first use: a
 * plugin can import `@foghorn/kube` at module load, and only a Corefile that really talks to a
 * cluster pays for them (and only a kubeconfig with an exec plugin, an auth-provider or a proxy
 * for @kubernetes/client-node, see connection.ts).
 */
import { createLogger } from '@foghorn/core';
import type { Logger } from '@foghorn/core';
import type { ResolvedConnection, ResolveOptions } from './connection.js';
import type { InformerOptions } from './informer.js';
import type { KubeConnection, ObjectSink, ResourceSpec, Watch } from './types.js';

/** Options for {@link startWatch}. */
export interface StartWatchOptions extends Omit<InformerOptions, 'logger'>, ResolveOptions {
  /** The plugin's logger (`c.log`). Default: stdout with the `plugin/kube: ` prefix. */
  readonly logger?: Logger;
  /** Same as `logger`; `logger` wins if both are set. */
  readonly log?: Logger;
  /** Environment for resolving a `KubeConnection` (in-cluster variables, $KUBECONFIG). Default process.env. */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * Resolves a {@link KubeConnection} into the server and credentials to use: `kubeconfig PATH
 * [CONTEXT]` (with `endpoint URL` too: the kubeconfig's credentials against that server), else
 * `endpoint URL` alone (no credentials), else the pod's service account, else `$KUBECONFIG`.
 * Rejects with a `KubeConnectionError` when nothing usable is configured; never contacts the
 * API server.
 */
export async function resolveConnection(connection: KubeConnection, env: NodeJS.ProcessEnv = process.env, options: ResolveOptions = {}): Promise<ResolvedConnection> {
  const { resolveConnection: resolve } = await import('./connection.js');
  return resolve(connection, env, options);
}

/**
 * Starts listing and watching `resource` into `sink`. Resolves at once, before the first list;
 * poll `synced` for readiness. Rejects only when `connection` cannot be resolved or an option
 * is out of range.
 */
export async function startWatch(
  connection: KubeConnection | ResolvedConnection,
  resource: ResourceSpec,
  sink: ObjectSink,
  options: StartWatchOptions = {},
): Promise<Watch> {
  for (const key of ['backoffInitialMs', 'backoffMaxMs', 'watchTimeoutSeconds', 'watchdogMs', 'listPageSize', 'logIntervalMs'] as const) {
    const value = options[key];
    if (value !== undefined && !(Number.isFinite(value) && value > 0)) throw new RangeError(`${key} must be a positive number, got ${value}`);
  }
  const resolved = 'authorize' in connection ? connection : await resolveConnection(connection, options.env ?? process.env, options);
  const { Informer } = await import('./informer.js');
  const logger = options.logger ?? options.log ?? createLogger().forPlugin('kube');
  const informer = new Informer(resolved, resource, sink, { ...options, logger });
  informer.start();
  return informer;
}
