/**
 * Where the index gets its objects: the Kubernetes API through @foghorn/kube's shared informers
 * (one list+watch per resource and selector per process, shared by every block and kept across
 * reloads), or a directory of manifests (manifests.ts). Either way the store's sinks receive
 * complete lists, then events.
 */
import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Logger } from '@foghorn/core';
import { endpointSlicesResource, joinSelectors, mcsServiceNameLabel, namespacesResource, podsResource, serviceImportsResource, servicesResource } from '@foghorn/kube';
import type { InformerLease, InformerRegistry, InformerSubscriber, KubeConnection, ResourceSpec, StartWatchOptions } from '@foghorn/kube';
import type { KubernetesOptions, SourceOptions } from './options.js';
import type { ClusterStore, ObjectSink } from './store.js';

/** A running source of objects for one store. */
export interface Source {
  /** Every watched resource delivered its first complete list. */
  readonly synced: boolean;
  /**
   * True while the store takes in a change this process reports: what is counted and logged once
   * per server, not once per `-workers` worker (the programming-latency metric and its warning,
   * metrics.ts). Always in one process; under `-workers` in the one worker that leads the
   * informer's reports (@foghorn/kube `AcquireOptions.reporter`) or is told the manifests
   * directory's files (`onFile`).
   */
  readonly reporting: boolean;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Watch tuning passed through to @foghorn/kube (tests shorten the backoff). */
export type WatchOptions = Omit<StartWatchOptions, 'logger' | 'log' | 'env'>;

/** The pods CoreDNS caches: not finished (controller.go `podListFunc`). */
export const podFieldSelector = 'status.phase!=Succeeded,status.phase!=Failed,status.phase!=Unknown';

/**
 * The resources CoreDNS watches for these options (controller.go `newdnsController`): Services
 * and Namespaces always, EndpointSlices unless `noendpoints`, Pods with `pods verified`,
 * ServiceImports and the multicluster EndpointSlices with `multicluster`. The Endpoints API is
 * never read.
 */
export function watchedResources(options: KubernetesOptions, store: ClusterStore): [string, ResourceSpec, ObjectSink][] {
  const labels = options.labels ?? undefined;
  const out: [string, ResourceSpec, ObjectSink][] = [['services', servicesResource({ ...(labels ? { labelSelector: labels } : {}) }), store.serviceSink]];
  if (!options.noEndpoints) out.push(['endpointslices', endpointSlicesResource({ ...(labels ? { labelSelector: labels } : {}) }), store.sliceSink]);
  if (options.pods === 'verified') {
    out.push(['pods', podsResource({ ...(labels ? { labelSelector: labels } : {}), fieldSelector: podFieldSelector }), store.podSink]);
  }
  out.push(['namespaces', namespacesResource(options.namespaceLabels ? { labelSelector: options.namespaceLabels } : {}), store.namespaceSink]);
  if (options.multicluster.length > 0) {
    // Not optional, as in CoreDNS: without the ServiceImport CRD the plugin never becomes ready.
    const imports = serviceImportsResource(options.namespaceLabels ? { labelSelector: options.namespaceLabels } : {});
    out.push(['serviceimports', { ...imports, optional: false }, store.serviceImportSink]);
    out.push(['endpointslices (multicluster)', endpointSlicesResource({ labelSelector: joinSelectors(labels, mcsServiceNameLabel)! }), store.mcSliceSink]);
  }
  return out;
}

export class KubeSource implements Source {
  private reportingCall = false;
  private leases: InformerLease[] = [];
  private tempDir: string | undefined;

  constructor(
    private readonly store: ClusterStore,
    private readonly options: KubernetesOptions,
    private readonly source: SourceOptions & { kind: 'kubernetes' },
    private readonly informers: InformerRegistry,
    private readonly log: Logger,
    private readonly env: NodeJS.ProcessEnv,
    private readonly watchOptions: WatchOptions,
    /** Called once every resource has synced. */
    private readonly onSynced: () => void,
    /** Told the API server's URL before the first request. */
    private readonly onServer: (server: string) => void = () => {},
  ) {}

  get reporting(): boolean {
    return this.reportingCall;
  }

  get synced(): boolean {
    return this.leases.length > 0 && this.leases.every((lease) => lease.synced);
  }

  async start(): Promise<void> {
    const connection = await this.connection();
    const resolved = await this.informers.connect(connection, { env: this.env, ...(this.watchOptions.serviceAccountDir !== undefined ? { serviceAccountDir: this.watchOptions.serviceAccountDir } : {}) });
    this.log.info(`watching ${resolved.server} (${resolved.source})`);
    this.onServer(resolved.server);
    try {
      for (const [, spec, sink] of watchedResources(this.options, this.store)) {
        const [subscriber, reporter] = this.reported(sink);
        this.leases.push(await this.informers.acquire(connection, spec, subscriber, { ...this.watchOptions, logger: this.log, plugin: 'kubernetes', reporter, env: this.env }));
      }
    } catch (error) {
      await this.stop();
      throw error;
    }
    this.checkSynced();
  }

  /**
   * The store's subscriber to one informer, and the lease's reporter that marks its calls as
   * reported. The reporter is told each call just before the subscriber, and only where this
   * process leads the informer's reports: a subscriber call right after a reporter call is one
   * this process reports. The reporter itself does nothing else, so what is reported is decided
   * where the store has taken the change in and holds what it needs (the slice's service, from
   * an informer of its own, for `headless`), exactly as in one process. A worker that takes the
   * lead over is told the current objects, which the previous leader reported and its store
   * already holds: that mark stands only until the informer's next call, reported anyway.
   */
  private reported(sink: ObjectSink): [InformerSubscriber, InformerSubscriber] {
    let told = false;
    const tell = (): void => {
      told = true;
    };
    const deliver = <A>(call: (argument: A) => void, argument: A): void => {
      this.reportingCall = told;
      told = false;
      try {
        call(argument);
      } finally {
        this.reportingCall = false;
      }
    };
    const subscriber: InformerSubscriber = {
      replace: (items) => deliver(sink.replace, items),
      part: (items, first) => deliver((page) => sink.part(page, first), items),
      upsert: (item) => deliver(sink.upsert, item),
      remove: (item) => deliver(sink.remove, item),
      synced: () => this.checkSynced(),
    };
    return [subscriber, { replace: tell, part: tell, upsert: tell, remove: tell }];
  }

  private checkSynced(): void {
    if (this.synced) this.onSynced();
  }

  /**
   * `kubeconfig` wins; `endpoint` with `tls` becomes a kubeconfig of its own (client certificate
   * and CA as files, as CoreDNS's client config would read them); `endpoint` alone has no
   * credentials; nothing means in-cluster.
   */
  private async connection(): Promise<KubeConnection> {
    const s = this.source;
    if (s.kubeconfig !== undefined) return { kubeconfig: s.kubeconfig, ...(s.context !== undefined ? { context: s.context } : {}) };
    if (s.endpoint !== undefined && s.tls !== undefined) {
      this.tempDir = await mkdtemp(join(tmpdir(), 'foghorn-kubernetes-'));
      const file = join(this.tempDir, 'kubeconfig');
      const config = {
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'endpoint', cluster: { server: s.endpoint, 'certificate-authority': resolve(s.tls.ca) } }],
        users: [{ name: 'tls', user: { 'client-certificate': resolve(s.tls.cert), 'client-key': resolve(s.tls.key) } }],
        contexts: [{ name: 'endpoint', context: { cluster: 'endpoint', user: 'tls' } }],
        'current-context': 'endpoint',
      };
      await writeFile(file, JSON.stringify(config), { mode: 0o600 });
      return { kubeconfig: file };
    }
    if (s.endpoint !== undefined) return { endpoint: s.endpoint };
    return {};
  }

  async stop(): Promise<void> {
    const leases = this.leases;
    this.leases = [];
    await Promise.all(leases.map((lease) => lease.release()));
    if (this.tempDir !== undefined) await rm(this.tempDir, { recursive: true, force: true });
    this.tempDir = undefined;
  }
}
