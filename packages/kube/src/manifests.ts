/**
 * Kubernetes objects read from YAML or JSON files in a directory and its subdirectories
 * (multi-document files and `kind: List` allowed), followed with fs.watch on every directory and
 * a short debounce: the cluster-less source of *kubernetes* and *lighthouse* (demos, tests,
 * air-gapped setups). Each scan hands the plugin every object, as a relist would, so the plugin
 * feeds its store complete lists and both sources share every ingest rule. Files that did not
 * change (mtime and size) keep their parsed objects, and a file that fails to parse keeps its
 * last good content (an editor's half-written save does not wipe services).
 */
import { watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '@foghorn/core';
import { isHubWorker } from './ipc.js';
import { RemoteManifestsDirectory } from './remote.js';
import type { Manifests } from './remote.js';
import type { KubeObject } from './types.js';
import { yaml } from './yaml.js';

/** Wait this long after the last change event before rescanning: editors write in bursts. */
export const defaultManifestsDebounceMs = 100;

export interface ManifestsDirectoryOptions {
  /** Debounce of change events, default {@link defaultManifestsDebounceMs}. */
  readonly debounceMs?: number;
  /** A file was read (new or changed content), with its objects; before `apply`. */
  readonly onFile?: (path: string, objects: readonly KubeObject[]) => void;
  /** A file that was read is gone. */
  readonly onRemoved?: (path: string) => void;
  /** A file failed to parse (already logged, once per version); its last good objects keep serving. */
  readonly onUnreadable?: (path: string) => void;
  /**
   * The plugin's name. Under `-workers` the primary reads the directory (hub.ts) and logs as
   * `plugin/NAME: `; one directory per path, plugin and debounce serves every worker. Default `kube`.
   */
  readonly plugin?: string;
}

/**
 * The manifests directory for a plugin: read and watched here, or, in a `-workers` worker, by
 * the primary's hub with the objects sent over IPC (remote.ts). Use it instead of `new
 * ManifestsDirectory(...)`; `log` is where this process's directory logs.
 */
export function manifestsDirectory(dir: string, apply: (objects: readonly KubeObject[]) => void, log: Logger, options: ManifestsDirectoryOptions = {}): Manifests {
  return isHubWorker() ? new RemoteManifestsDirectory(dir, apply, log, options) : new ManifestsDirectory(dir, apply, log, options);
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

/**
 * A watched directory of manifests. `start` scans it (failing when it is not a readable
 * directory) and then follows it; after every scan that changed something (and after the first)
 * `apply` gets every object of every file, files in path order.
 */
export class ManifestsDirectory implements Manifests {
  private readonly files = new Map<string, FileState>();
  private readonly failed = new Map<string, FailedFile>();
  /** One non-recursive watcher per directory: Node 20's recursive mode on Linux loses files replaced by rename. */
  private readonly watchers = new Map<string, FSWatcher>();
  private timer: NodeJS.Timeout | undefined;
  private scanning: Promise<void> | undefined;
  private rescan = false;
  private stopped = false;
  /** Watchers that failed and were set up again. */
  watchRestarts = 0;
  synced = false;
  /** Completed scans, for tests that wait for an edit to be applied. */
  scans = 0;

  constructor(
    readonly dir: string,
    private readonly apply: (objects: readonly KubeObject[]) => void,
    private readonly log: Logger,
    private readonly options: ManifestsDirectoryOptions = {},
  ) {}

  /** Every object of every file, files in path order: what the last `apply` got. */
  objects(): KubeObject[] {
    return [...this.files.values()].flatMap((file) => file.objects);
  }

  /** The files read, with their objects, and the files whose current version failed to parse. */
  contents(): { readonly files: ReadonlyMap<string, readonly KubeObject[]>; readonly unreadable: readonly string[] } {
    return { files: new Map([...this.files].map(([path, file]) => [path, file.objects])), unreadable: [...this.failed.keys()] };
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

  /** Reads the directory now and applies what changed (also what the watchers trigger). */
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
    }, this.options.debounceMs ?? defaultManifestsDebounceMs);
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
        this.options.onRemoved?.(path);
        changed = true;
      }
    }
    for (const path of this.failed.keys()) if (!present.has(path)) this.failed.delete(path);
    for (const path of paths) {
      const info = await stat(path).catch(() => undefined);
      if (!info) continue;
      // A failed version is newer than the last good one, so it is the one to compare with.
      const previous = this.failed.get(path) ?? this.files.get(path);
      if (previous && previous.mtimeMs === info.mtimeMs && previous.size === info.size) continue;
      let objects: KubeObject[];
      try {
        objects = parseManifests(await readFile(path, 'utf8'), path.toLowerCase().endsWith('.json'));
      } catch (error) {
        // Logged once per version of the file; its last good objects keep serving.
        this.failed.set(path, { mtimeMs: info.mtimeMs, size: info.size });
        this.log.warning(`manifests: ${path}: ${(error as Error).message}`);
        this.options.onUnreadable?.(path);
        continue;
      }
      this.failed.delete(path);
      this.files.set(path, { mtimeMs: info.mtimeMs, size: info.size, objects });
      this.options.onFile?.(path, objects);
      changed = true;
    }
    if (this.stopped) return;
    if (changed || this.scans === 0) this.apply(this.objects());
    this.scans++;
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
  for (const document of yaml().parseAllDocuments(text)) {
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
