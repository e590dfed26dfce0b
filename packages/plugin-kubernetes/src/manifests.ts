/**
 * The manifests source: Services, EndpointSlices, Pods, Namespaces and ServiceImports read from
 * YAML or JSON files in a directory and its subdirectories by @foghorn/kube's
 * `ManifestsDirectory` (multi-document files and `kind: List` allowed), for answers without a
 * cluster (demos, tests, air-gapped setups). A change in the directory rescans it after a short
 * debounce; every scan hands the store complete lists, as a relist would, so both sources share
 * every ingest rule. A file that fails to parse is skipped with a warning and keeps its last good
 * content.
 */
import type { Logger } from '@foghorn/core';
import { manifestsDirectory, mcsServiceNameLabel } from '@foghorn/kube';
import type { KubeObject, Manifests } from '@foghorn/kube';
import type { KubernetesOptions } from './options.js';
import type { Source } from './source.js';
import type { ClusterStore } from './store.js';

export class ManifestsSource implements Source {
  private readonly directory: Manifests;
  /** Told of a file since the last apply: this process reports the directory (see Source.reporting). */
  private told = false;
  private applying = false;

  constructor(
    readonly dir: string,
    private readonly store: ClusterStore,
    private readonly options: KubernetesOptions,
    log: Logger,
    debounceMs?: number,
  ) {
    // Under -workers the primary reads the directory (@foghorn/kube's hub) and logs as
    // plugin/kubernetes. It tells the files a scan read or lost to one worker, just before every
    // worker gets the scan's objects: that worker reports what its store makes of them. In one
    // process every scan that changes something is told first as well.
    const tell = (): void => {
      this.told = true;
    };
    this.directory = manifestsDirectory(dir, (objects) => this.apply(objects), log, { plugin: 'kubernetes', onFile: tell, onRemoved: tell, ...(debounceMs === undefined ? {} : { debounceMs }) });
  }

  get reporting(): boolean {
    return this.applying;
  }

  get synced(): boolean {
    return this.directory.synced;
  }

  start(): Promise<void> {
    return this.directory.start();
  }

  stop(): Promise<void> {
    return this.directory.stop();
  }

  /** Complete lists per resource, as a relist delivers them; only what the watches would see. */
  private apply(objects: readonly KubeObject[]): void {
    const lists = { services: [] as KubeObject[], slices: [] as KubeObject[], mcSlices: [] as KubeObject[], pods: [] as KubeObject[], namespaces: [] as KubeObject[], imports: [] as KubeObject[] };
    const multicluster = this.options.multicluster.length > 0;
    for (const object of objects) {
      const apiVersion = object.apiVersion ?? '';
      if (object.kind === 'Service' && apiVersion === 'v1') lists.services.push(object);
      else if (object.kind === 'Namespace' && apiVersion === 'v1') lists.namespaces.push(object);
      else if (object.kind === 'Pod' && apiVersion === 'v1') lists.pods.push(object);
      else if (object.kind === 'EndpointSlice' && apiVersion === 'discovery.k8s.io/v1') {
        lists.slices.push(object);
        if (object.metadata?.labels?.[mcsServiceNameLabel] !== undefined) lists.mcSlices.push(object);
      } else if (object.kind === 'ServiceImport' && apiVersion === 'multicluster.x-k8s.io/v1alpha1') lists.imports.push(object);
    }
    const store = this.store;
    this.applying = this.told;
    this.told = false;
    try {
      store.namespaceSink.replace(lists.namespaces);
      store.serviceSink.replace(lists.services);
      if (!this.options.noEndpoints) store.sliceSink.replace(lists.slices);
      if (this.options.pods === 'verified') store.podSink.replace(lists.pods);
      if (multicluster) {
        store.serviceImportSink.replace(lists.imports);
        store.mcSliceSink.replace(lists.mcSlices);
      }
    } finally {
      this.applying = false;
    }
  }
}
