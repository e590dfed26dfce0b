/**
 * The manifests source: ServiceImport, EndpointSlice, Gateway and Submariner objects read from
 * YAML or JSON files in a directory and its subdirectories by @foghorn/kube's
 * `ManifestsDirectory` (multi-document files and `kind: List` allowed, fs.watch on every
 * directory and a short debounce). Each scan hands the store complete lists, exactly like a
 * Kubernetes relist, so both sources share every ingest rule. Files that did not change keep
 * their parsed objects, and a file that fails to parse keeps its last good content (an editor's
 * half-written save does not wipe services).
 */
import type { Logger } from '@foghorn/core';
import { managedByLabel, manifestsDirectory } from '@foghorn/kube';
import type { KubeObject, Manifests } from '@foghorn/kube';
import { ProblemLog } from './problems.js';
import type { Source } from './source.js';
import type { ResourceName, ServiceStore } from './store.js';

export interface ManifestsOptions {
  readonly debounceMs?: number;
  /** Where objects the store cannot use are reported (default: logged, not counted). */
  readonly problems?: ProblemLog;
}

const managedByValue = 'lighthouse-agent.submariner.io';

export class ManifestsSource implements Source {
  private readonly directory: Manifests;

  constructor(
    readonly dir: string,
    readonly store: ServiceStore,
    log: Logger,
    options: ManifestsOptions = {},
  ) {
    const problems = options.problems ?? new ProblemLog(log);
    // Under -workers the primary reads the directory (@foghorn/kube's hub) and logs as
    // plugin/lighthouse; the file callbacks reach one worker, so each problem is logged and counted once.
    this.directory = manifestsDirectory(dir, (objects) => this.apply(objects), log, {
      plugin: 'lighthouse',
      ...(options.debounceMs !== undefined ? { debounceMs: options.debounceMs } : {}),
      onFile: (path, objects) => problems.replace(`manifests: ${path}`, resourcesOf(objects)),
      onRemoved: (path) => problems.replace(`manifests: ${path}`, []),
      onUnreadable: () => problems.unreadable(),
    });
  }

  get synced(): boolean {
    return this.directory.synced;
  }

  /** Completed scans, for tests that wait for an edit to be applied. */
  get scans(): number {
    return this.directory.scans;
  }

  restarts(): Partial<Record<ResourceName, number>> {
    const n = this.directory.watchRestarts;
    return { serviceimports: n, endpointslices: n, gateways: n, submariners: n };
  }

  start(): Promise<void> {
    return this.directory.start();
  }

  stop(): Promise<void> {
    return this.directory.stop();
  }

  /** Reads the directory now and applies what changed (also what the watchers trigger). */
  scan(): Promise<void> {
    return this.directory.scan();
  }

  /** Complete lists per resource, as a relist would deliver them. */
  private apply(objects: readonly KubeObject[]): void {
    const imports = new Map<string, KubeObject[]>();
    const slices: KubeObject[] = [];
    const gateways: KubeObject[] = [];
    const submariners: KubeObject[] = [];
    for (const object of objects) {
      {
        switch (resourceOf(object)) {
          case 'serviceimports': {
            const version = (object.apiVersion ?? '').split('/')[1] ?? '';
            let list = imports.get(version);
            if (!list) imports.set(version, (list = []));
            list.push(object);
            break;
          }
          case 'endpointslices':
            slices.push(object);
            break;
          case 'gateways':
            gateways.push(object);
            break;
          case 'submariners':
            submariners.push(object);
            break;
        }
      }
    }
    const store = this.store;
    for (const version of ['v1alpha1', 'v1beta1']) store.serviceImports(version).replace(imports.get(version) ?? []);
    // Connectivity first: a scan that adds a cluster's Gateway and its slices answers consistently.
    store.submariners.replace(submariners);
    store.gateways.replace(gateways);
    store.endpointSlices.replace(slices);
  }
}

/**
 * The watched resource an object belongs to, or undefined for anything else in the directory.
 * EndpointSlices need the label the Kubernetes watch selects on.
 */
function resourceOf(object: KubeObject): ResourceName | undefined {
  const group = (object.apiVersion ?? '').split('/')[0];
  if (object.kind === 'ServiceImport' && group === 'multicluster.x-k8s.io') return 'serviceimports';
  if (object.kind === 'EndpointSlice' && group === 'discovery.k8s.io') {
    return object.metadata?.labels?.[managedByLabel] === managedByValue ? 'endpointslices' : undefined;
  }
  if (object.kind === 'Gateway' && group === 'submariner.io') return 'gateways';
  if (object.kind === 'Submariner' && group === 'submariner.io') return 'submariners';
  return undefined;
}

function* resourcesOf(objects: readonly KubeObject[]): Generator<readonly [ResourceName, KubeObject]> {
  for (const object of objects) {
    const resource = resourceOf(object);
    if (resource) yield [resource, object];
  }
}
