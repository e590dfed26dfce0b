/**
 * The Kubernetes source: one informer per resource from @foghorn/kube's shared registry, so
 * blocks (and plugins) on the same connection share each list+watch. The client library loads
 * only when a source starts, so a Corefile without a Kubernetes-backed lighthouse never loads
 * @kubernetes/client-node.
 */
import type { Logger } from '@foghorn/core';
import { InformerRegistry } from '@foghorn/kube';
import type { InformerLease, InformerSubscriber, KubeConnection, ObjectSink, ResourceSpec, StartWatchOptions } from '@foghorn/kube';
import { ProblemLog } from './problems.js';
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
  private leases: [ResourceName, InformerLease][] = [];

  constructor(
    readonly store: ServiceStore,
    private readonly connection: KubeConnection,
    private readonly log: Logger,
    private readonly informers: InformerRegistry = new InformerRegistry(),
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly watchOptions: WatchOptions = {},
    private readonly problems: ProblemLog = new ProblemLog(log),
  ) {}

  get synced(): boolean {
    if (this.leases.length === 0) return false;
    for (const [, lease] of this.leases) if (!lease.synced) return false;
    return true;
  }

  restarts(): Partial<Record<ResourceName, number>> {
    const out: Partial<Record<ResourceName, number>> = {};
    for (const [resource, lease] of this.leases) out[resource] = (out[resource] ?? 0) + lease.restarts;
    return out;
  }

  async start(): Promise<void> {
    const connection = await this.informers.connect(this.connection, { env: this.env });
    this.log.info(`watching ${connection.server} (${connection.source})`);
    try {
      for (const [resource, spec, sink] of watchedResources(this.store)) {
        // The problems are logged and counted by the reporter: once per server, even under -workers.
        const reporter = problemReporter(this.problems, `${spec.plural}.${spec.version}.${spec.group}`, resource);
        this.leases.push([resource, await this.informers.acquire(this.connection, spec, sink, { ...this.watchOptions, logger: this.log, plugin: 'lighthouse', reporter, env: this.env })]);
      }
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  async stop(): Promise<void> {
    const leases = this.leases;
    this.leases = [];
    await Promise.all(leases.map(([, lease]) => lease.release()));
  }
}

/** Reports objects the store cannot use (once each, see problems.ts), just before the store gets them. */
function problemReporter(problems: ProblemLog, origin: string, resource: ResourceName): InformerSubscriber {
  return {
    replace: (items) => problems.replace(origin, items.map((item) => [resource, item] as const)),
    part: (items, first) => problems.part(origin, items.map((item) => [resource, item] as const), first),
    upsert: (item) => problems.upsert(origin, resource, item),
    remove: (item) => problems.remove(origin, resource, item),
  };
}
