/**
 * The Kubernetes source: one watch per resource through the kube layer (src/kube/), which is
 * imported on startup only, so a Corefile without a Kubernetes-backed lighthouse never loads
 * @kubernetes/client-node.
 */
import type { Logger } from '@foghorn/core';
import type { StartWatchOptions } from './kube/index.js';
import type { KubeConnection, ObjectSink, ResourceSpec, Watch } from './kube/types.js';
import type { Source } from './source.js';
import { managedBySelector } from './store.js';
import type { ResourceName, ServiceStore } from './store.js';

/** Watch tuning passed through to the kube layer (tests shorten the backoff). */
export type WatchOptions = Omit<StartWatchOptions, 'logger' | 'log' | 'env'>;

/**
 * The resources of docs/compatibility.md, "Inputs" (the on-demand lists and the ConfigMap are not used): what the pod's
 * RBAC must allow to list and watch (examples/kubernetes is checked against this list).
 */
export const watchedResourceSpecs: readonly (readonly [ResourceName, ResourceSpec])[] = [
  // Both API versions may be served; a missing one is not an error (docs/compatibility.md, "Inputs", mcs-api v1beta1).
  ['serviceimports', { group: 'multicluster.x-k8s.io', version: 'v1alpha1', plural: 'serviceimports', optional: true }],
  ['serviceimports', { group: 'multicluster.x-k8s.io', version: 'v1beta1', plural: 'serviceimports', optional: true }],
  ['endpointslices', { group: 'discovery.k8s.io', version: 'v1', plural: 'endpointslices', labelSelector: managedBySelector }],
  // Without Submariner (or its Gateway type) every cluster counts as connected (docs/compatibility.md, "Cluster selection").
  ['submariners', { group: 'submariner.io', version: 'v1alpha1', plural: 'submariners', optional: true }],
  ['gateways', { group: 'submariner.io', version: 'v1', plural: 'gateways', optional: true }],
];

/** Each watched resource with the store's sink for it. */
export function watchedResources(store: ServiceStore): [ResourceName, ResourceSpec, ObjectSink][] {
  const sinkFor = (name: ResourceName, spec: ResourceSpec): ObjectSink => {
    switch (name) {
      case 'serviceimports':
        return store.serviceImports(spec.version);
      case 'endpointslices':
        return store.endpointSlices;
      case 'submariners':
        return store.submariners;
      case 'gateways':
        return store.gateways;
    }
  };
  return watchedResourceSpecs.map(([name, spec]) => [name, spec, sinkFor(name, spec)]);
}

export class KubeSource implements Source {
  private watches: [ResourceName, Watch][] = [];

  constructor(
    readonly store: ServiceStore,
    private readonly connection: KubeConnection,
    private readonly log: Logger,
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly watchOptions: WatchOptions = {},
  ) {}

  get synced(): boolean {
    if (this.watches.length === 0) return false;
    for (const [, watch] of this.watches) if (!watch.synced) return false;
    return true;
  }

  restarts(): Partial<Record<ResourceName, number>> {
    const out: Partial<Record<ResourceName, number>> = {};
    for (const [resource, watch] of this.watches) out[resource] = (out[resource] ?? 0) + watch.restarts;
    return out;
  }

  async start(): Promise<void> {
    // Loaded here, not at module load: only a Kubernetes-backed block pulls in the client library.
    const kube = await import('./kube/index.js');
    const connection = await kube.resolveConnection(this.connection, this.env);
    this.log.info(`watching ${connection.server} (${connection.source})`);
    for (const [resource, spec, sink] of watchedResources(this.store)) {
      this.watches.push([resource, await kube.startWatch(connection, spec, sink, { ...this.watchOptions, logger: this.log, env: this.env })]);
    }
  }

  async stop(): Promise<void> {
    const watches = this.watches;
    this.watches = [];
    await Promise.all(watches.map(([, watch]) => watch.stop()));
  }
}
