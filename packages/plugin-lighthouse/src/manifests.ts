/**
 * The manifests source: ServiceImport, EndpointSlice, Gateway and Submariner objects read from
 * YAML or JSON files in a directory and its subdirectories (multi-document files and `kind: List`
 * allowed), followed with fs.watch on every directory and a short debounce. Each scan hands the store complete lists, exactly like a
 * Kubernetes relist, so both sources share every ingest rule. Files that did not change keep
 * their parsed objects, and a file that fails to parse keeps its last good content (an editor's
 * half-written save does not wipe services).
 */
import { watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { Logger } from '@foghorn/core';
import type { KubeObject } from '@foghorn/kube';
import { ProblemLog } from './problems.js';
import type { Source } from './source.js';
import type { ResourceName, ServiceStore } from './store.js';

/** Wait this long after the last change event before rescanning: editors write in bursts. */
export const defaultDebounceMs = 100;

export interface ManifestsOptions {
  readonly debounceMs?: number;
  /** Where objects the store cannot use are reported (default: logged, not counted). */
  readonly problems?: ProblemLog;
}

interface FileState {
  readonly mtimeMs: number;
  readonly size: number;
  readonly objects: readonly KubeObject[];
}

/** The version of a file that failed to parse: not read again (nor logged again) until it changes. */
interface FailedFile {
  readonly mtimeMs: number;
  readonly size: number;
}

const manifestExtensions = /\.(ya?ml|json)$/i;
const managedByLabel = 'endpointslice.kubernetes.io/managed-by';
const managedByValue = 'lighthouse-agent.submariner.io';

export class ManifestsSource implements Source {
  private readonly files = new Map<string, FileState>();
  private readonly failed = new Map<string, FailedFile>();
  private readonly problems: ProblemLog;
  /** One non-recursive watcher per directory: Node 20's recursive mode on Linux loses files replaced by rename. */
  private readonly watchers = new Map<string, FSWatcher>();
  private timer: NodeJS.Timeout | undefined;
  private scanning: Promise<void> | undefined;
  private rescan = false;
  private stopped = false;
  private watchRestarts = 0;
  synced = false;
  /** Completed scans, for tests that wait for an edit to be applied. */
  scans = 0;

  constructor(
    readonly dir: string,
    readonly store: ServiceStore,
    private readonly log: Logger,
    private readonly options: ManifestsOptions = {},
  ) {
    this.problems = options.problems ?? new ProblemLog(log);
  }

  restarts(): Partial<Record<ResourceName, number>> {
    return { serviceimports: this.watchRestarts, endpointslices: this.watchRestarts, gateways: this.watchRestarts, submariners: this.watchRestarts };
  }

  async start(): Promise<void> {
    const info = await stat(this.dir).catch((error: Error) => {
      throw new Error(`manifests directory '${this.dir}': ${error.message}`, { cause: error });
    });
    if (!info.isDirectory()) throw new Error(`manifests directory '${this.dir}' is not a directory`);
    this.watchDirectory(this.dir);
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

  /** Reads the directory now and applies what changed (also what the watcher triggers). */
  scan(): Promise<void> {
    if (this.scanning) {
      this.rescan = true;
      return this.scanning;
    }
    const run = async (): Promise<void> => {
      try {
        do {
          this.rescan = false;
          await this.scanOnce();
        } while (this.rescan && !this.stopped);
      } finally {
        this.scanning = undefined;
      }
    };
    this.scanning = run();
    return this.scanning;
  }

  /** Watches `dir` (and, through later scans, each subdirectory) for entries created, changed or removed. */
  private watchDirectory(dir: string): void {
    if (this.stopped || this.watchers.has(dir)) return;
    const watcher = watch(dir, { persistent: false }, () => this.schedule());
    this.watchers.set(dir, watcher);
    watcher.on('error', (error) => {
      watcher.close();
      this.watchers.delete(dir);
      if (this.stopped) return;
      this.log.warning(`manifests: watching '${dir}': ${error.message}`);
      this.watchRestarts++;
      // The next scan (now, and whenever another directory changes) watches it again if it still exists.
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.scan().catch((error: Error) => this.log.warning(`manifests: scanning '${this.dir}': ${error.message}`));
    }, this.options.debounceMs ?? defaultDebounceMs);
    this.timer.unref();
  }

  private async scanOnce(): Promise<void> {
    const directories = [this.dir];
    const paths = await listManifests(this.dir, directories);
    for (const dir of directories) this.watchDirectory(dir);
    for (const [dir, watcher] of this.watchers) {
      if (!directories.includes(dir)) {
        watcher.close();
        this.watchers.delete(dir);
      }
    }
    const present = new Set(paths);
    let changed = false;
    for (const path of [...this.files.keys()]) {
      if (!present.has(path)) {
        this.files.delete(path);
        this.problems.replace(`manifests: ${path}`, []);
        changed = true;
      }
    }
    for (const path of this.failed.keys()) if (!present.has(path)) this.failed.delete(path);
    for (const path of paths) {
      const info = await stat(path).catch(() => undefined);
      if (!info) continue;
      const previous = this.files.get(path) ?? this.failed.get(path);
      if (previous && previous.mtimeMs === info.mtimeMs && previous.size === info.size) continue;
      let objects: KubeObject[];
      try {
        objects = parseManifests(await readFile(path, 'utf8'), path.toLowerCase().endsWith('.json'));
      } catch (error) {
        // Logged once per version of the file; its last good objects keep serving.
        this.failed.set(path, { mtimeMs: info.mtimeMs, size: info.size });
        this.log.warning(`manifests: ${path}: ${(error as Error).message}`);
        this.problems.unreadable();
        continue;
      }
      this.failed.delete(path);
      this.files.set(path, { mtimeMs: info.mtimeMs, size: info.size, objects });
      this.problems.replace(`manifests: ${path}`, resourcesOf(objects));
      changed = true;
    }
    if (this.stopped) return;
    if (changed || this.scans === 0) this.apply();
    this.scans++;
  }

  /** Complete lists per resource, as a relist would deliver them. */
  private apply(): void {
    const imports = new Map<string, KubeObject[]>();
    const slices: KubeObject[] = [];
    const gateways: KubeObject[] = [];
    const submariners: KubeObject[] = [];
    for (const { objects } of this.files.values()) {
      for (const object of objects) {
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

async function listManifests(dir: string, directories: string[]): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(dir, { withFileTypes: true });
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      directories.push(path);
      out.push(...(await listManifests(path, directories)));
    }
    else if (entry.isFile() && manifestExtensions.test(entry.name)) out.push(path);
  }
  return out;
}

/**
 * Every object in a YAML (or JSON) text: several documents, `kind: List` expanded. `json` takes
 * JSON.parse, two orders of magnitude faster than the YAML parser for generated directories.
 */
export function parseManifests(text: string, json = false): KubeObject[] {
  const objects: KubeObject[] = [];
  if (json) {
    collect(JSON.parse(text) as unknown, objects);
    return objects;
  }
  for (const document of parseAllDocuments(text)) {
    if (document.errors.length > 0) throw new Error(document.errors[0]!.message);
    const value: unknown = document.toJS();
    collect(value, objects);
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
