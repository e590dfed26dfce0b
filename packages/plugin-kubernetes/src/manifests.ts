/**
 * The manifests source: Services, EndpointSlices, Pods, Namespaces and ServiceImports read from
 * YAML or JSON files in a directory and its subdirectories (multi-document files and `kind: List`
 * allowed), for answers without a cluster (demos, tests, air-gapped setups). A change in the
 * directory rescans it after a short debounce; every scan hands the store complete lists, as a
 * relist would, so both sources share every ingest rule. A file that fails to parse is skipped
 * with a warning and keeps its last good content.
 */
import { watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { Logger } from '@foghorn/core';
import type { KubeObject } from '@foghorn/kube';
import type { KubernetesOptions } from './options.js';
import type { Source } from './source.js';
import { mcsServiceNameLabel } from './store.js';
import type { ClusterStore } from './store.js';

export const defaultDebounceMs = 100;
const manifestExtensions = /\.(ya?ml|json)$/i;

export class ManifestsSource implements Source {
  private readonly files = new Map<string, { mtimeMs: number; size: number; objects: KubeObject[] }>();
  private readonly watchers = new Map<string, FSWatcher>();
  private timer: NodeJS.Timeout | undefined;
  private scanning: Promise<void> | undefined;
  private rescan = false;
  private stopped = false;
  synced = false;
  /** Completed scans, for tests that wait for an edit to be applied. */
  scans = 0;

  constructor(
    readonly dir: string,
    private readonly store: ClusterStore,
    private readonly options: KubernetesOptions,
    private readonly log: Logger,
    private readonly debounceMs = defaultDebounceMs,
  ) {}

  async start(): Promise<void> {
    const info = await stat(this.dir).catch((error: Error) => {
      throw new Error(`manifests directory '${this.dir}': ${error.message}`, { cause: error });
    });
    if (!info.isDirectory()) throw new Error(`manifests directory '${this.dir}' is not a directory`);
    await this.scan();
    this.synced = true;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
    await this.scanning;
  }

  scan(): Promise<void> {
    if (this.scanning) {
      this.rescan = true;
      return this.scanning;
    }
    this.scanning = (async () => {
      try {
        do {
          this.rescan = false;
          await this.scanOnce();
        } while (this.rescan && !this.stopped);
      } finally {
        this.scanning = undefined;
      }
    })();
    return this.scanning;
  }

  private schedule(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.scan().catch((error: Error) => this.log.warning(`manifests: scanning '${this.dir}': ${error.message}`));
    }, this.debounceMs);
    this.timer.unref();
  }

  private async scanOnce(): Promise<void> {
    const directories = [this.dir];
    const paths = await listManifests(this.dir, directories);
    for (const dir of directories) {
      if (this.stopped || this.watchers.has(dir)) continue;
      const watcher = watch(dir, { persistent: false }, () => this.schedule());
      watcher.on('error', () => {
        watcher.close();
        this.watchers.delete(dir);
        this.schedule();
      });
      this.watchers.set(dir, watcher);
    }
    const present = new Set(paths);
    let changed = false;
    for (const path of [...this.files.keys()]) {
      if (!present.has(path)) {
        this.files.delete(path);
        changed = true;
      }
    }
    for (const path of paths) {
      const info = await stat(path).catch(() => undefined);
      if (!info) continue;
      const previous = this.files.get(path);
      if (previous && previous.mtimeMs === info.mtimeMs && previous.size === info.size) continue;
      try {
        this.files.set(path, { mtimeMs: info.mtimeMs, size: info.size, objects: parseManifests(await readFile(path, 'utf8'), path.toLowerCase().endsWith('.json')) });
        changed = true;
      } catch (error) {
        this.log.warning(`manifests: ${path}: ${(error as Error).message}`);
      }
    }
    if (this.stopped) return;
    if (changed || this.scans === 0) this.apply();
    this.scans++;
  }

  /** Complete lists per resource, as a relist delivers them; only what the watches would see. */
  private apply(): void {
    const lists = { services: [] as KubeObject[], slices: [] as KubeObject[], mcSlices: [] as KubeObject[], pods: [] as KubeObject[], namespaces: [] as KubeObject[], imports: [] as KubeObject[] };
    const multicluster = this.options.multicluster.length > 0;
    for (const { objects } of this.files.values()) {
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
    }
    const store = this.store;
    store.namespaceSink.replace(lists.namespaces);
    store.serviceSink.replace(lists.services);
    if (!this.options.noEndpoints) store.sliceSink.replace(lists.slices);
    if (this.options.pods === 'verified') store.podSink.replace(lists.pods);
    if (multicluster) {
      store.serviceImportSink.replace(lists.imports);
      store.mcSliceSink.replace(lists.mcSlices);
    }
  }
}

async function listManifests(dir: string, directories: string[]): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(dir, { withFileTypes: true });
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      directories.push(path);
      out.push(...(await listManifests(path, directories)));
    } else if (entry.isFile() && manifestExtensions.test(entry.name)) {
      out.push(path);
    }
  }
  return out;
}

/** Every object in a YAML (or JSON) text: several documents, `kind: List` expanded. */
export function parseManifests(text: string, json = false): KubeObject[] {
  const objects: KubeObject[] = [];
  if (json) {
    collect(JSON.parse(text) as unknown, objects);
    return objects;
  }
  for (const document of parseAllDocuments(text)) {
    if (document.errors.length > 0) throw new Error(document.errors[0]!.message);
    collect(document.toJS() as unknown, objects);
  }
  return objects;
}

function collect(value: unknown, out: KubeObject[]): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
  const object = value as KubeObject;
  if (typeof object.kind === 'string' && object.kind.endsWith('List') && Array.isArray(object['items'])) {
    for (const item of object['items'] as unknown[]) collect(item, out);
    return;
  }
  out.push(object);
}
