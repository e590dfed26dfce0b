/**
 * The zones of one server block's `auto` directives at run time, after CoreDNS's
 * `plugin/auto/walk.go` and `zone.go`: at startup and every `reload`, walk the directory, make an
 * origin of every file name the REGEXP matches, load the zones that appeared, re-read the ones
 * whose file changed (core's `ZoneFile`: by SOA serial, the old data kept through any error)
 * and drop the ones whose file is gone.
 *
 * The set of zones served is swapped whole after each walk, so a query sees one walk's zones or
 * the next one's, never half of each.
 */
import { readdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage, matchZone, pollEvery } from '@foghorn/core';
import type { Logger, Transferer } from '@foghorn/core';
import { ZoneFile } from '@foghorn/core/wire';
import type { Answer } from 'dns-packet';
import type { AutoConfig } from './setup.js';
import { expand } from './template.js';

/** One `auto` directive and the zones its directory holds now. */
interface Loader {
  readonly config: AutoConfig;
  /** By origin: every zone whose file the last walk found, loaded or not (yet). */
  readonly zones: Map<string, ZoneFile>;
}

export class AutoZones implements Transferer {
  readonly name = 'auto';
  /** The directives' zones: only names under them are looked up at all. */
  readonly origins: readonly string[];
  /** The zones served now, by origin; replaced whole after each walk. */
  private served = new Map<string, ZoneFile>();
  /** Origins of `served`, for matching the query name. */
  names: readonly string[] = [];
  private readonly loaders: Loader[];
  private readonly listeners: ((zone: string) => void)[] = [];
  private readonly stops: (() => void)[] = [];
  /** Warnings given (a duplicate origin, an unreadable directory), so each is given once. */
  private readonly warned = new Set<string>();

  constructor(
    configs: readonly AutoConfig[],
    private readonly log: Logger,
  ) {
    this.loaders = configs.map((config) => ({ config, zones: new Map() }));
    this.origins = [...new Set(configs.flatMap((config) => config.origins))];
  }

  /** The served zone `qname` falls in (longest match), or undefined. */
  match(qname: string): ZoneFile | undefined {
    const zone = matchZone(this.names, qname);
    return zone === undefined ? undefined : this.served.get(zone);
  }

  /** The first walk (the zones are there before the server answers), then one every `reload`. */
  async start(): Promise<void> {
    for (const loader of this.loaders) await this.walk(loader);
    for (const loader of this.loaders) this.stops.push(pollEvery(loader.config.reloadMs, () => this.walk(loader)));
  }

  stop(): void {
    for (const stop of this.stops) stop();
    this.stops.length = 0;
  }

  /** One scan of a directive's directory: zones added, re-read and removed, then published. */
  async walk(loader: Loader): Promise<void> {
    const found = await this.scan(loader.config);
    const changed: string[] = [];
    for (const [origin, path] of found) {
      let zone = loader.zones.get(origin);
      if (zone === undefined) {
        zone = new ZoneFile(origin, path, this.log);
        loader.zones.set(origin, zone);
      }
      zone.path = path;
      const isNew = zone.data === null;
      if ((await zone.reload(isNew)) !== 'loaded') continue;
      if (isNew) this.log.info(`Inserting zone \`${origin}' from: ${path}`);
      changed.push(origin);
    }
    for (const [origin, zone] of loader.zones) {
      if (found.has(origin)) continue;
      loader.zones.delete(origin);
      if (zone.data !== null) this.log.info(`Deleting zone \`${origin}'`);
    }
    this.publish();
    for (const origin of changed) if (this.served.get(origin)?.data) this.notify(origin);
  }

  /**
   * The matching files under the directory, by origin: the first file in walk order wins an
   * origin (CoreDNS's `filepath.Walk`, lexical in each directory), the others are warned about.
   */
  private async scan(config: AutoConfig): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    let root = config.directory;
    // A directory that is a symlink (a Kubernetes ConfigMap mount) is walked where it points.
    try {
      root = await realpath(root);
    } catch {
      // Walked as given; the read below says what is wrong.
    }
    const visit = async (dir: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (error) {
        this.warnOnce(`error reading ${dir}: ${errorMessage(error)}`);
        return;
      }
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const entry of entries) {
        const path = join(dir, entry.name);
        // Symlinked directories are not followed (a walk never loops); symlinked files are read.
        if (entry.isDirectory()) {
          await visit(path);
          continue;
        }
        const match = config.pattern.exec(entry.name);
        if (match === null) continue;
        const origin = fqdn(expand(config.template, match));
        const previous = found.get(origin);
        if (previous !== undefined) {
          this.warnOnce(`Multiple zone files match origin "${origin}": using "${previous}" instead of "${path}"`);
          continue;
        }
        found.set(origin, path);
      }
    };
    await visit(root);
    return found;
  }

  /** Makes the loaded zones of every directive the served set; the first directive wins an origin. */
  private publish(): void {
    const served = new Map<string, ZoneFile>();
    for (const loader of this.loaders) {
      for (const [origin, zone] of loader.zones) if (zone.data !== null && !served.has(origin)) served.set(origin, zone);
    }
    this.served = served;
    this.names = [...served.keys()];
  }

  private warnOnce(message: string): void {
    if (this.warned.has(message)) return;
    this.warned.add(message);
    this.log.warning(message);
  }

  transfer(zone: string, serial: number): Iterable<readonly Answer[]> | null {
    const data = this.served.get(zone)?.data;
    return data ? data.transfer(serial) : null;
  }

  onZoneChange(notify: (zone: string) => void): void {
    this.listeners.push(notify);
  }

  private notify(zone: string): void {
    for (const notify of this.listeners) notify(zone);
  }
}

/** miekg/dns's `Fqdn`, lower-cased as every name Foghorn compares. */
function fqdn(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith('.') ? lower : lower + '.';
}
