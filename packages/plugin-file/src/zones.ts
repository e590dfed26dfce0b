/**
 * The zones of one server block's `file` directives at run time: the data each serves now, the
 * reload timers (CoreDNS's `plugin/file/reload.go`) and the zone data offered to *transfer*.
 */
import { readFile, stat } from 'node:fs/promises';
import { errorMessage, matchZone, pollEvery } from '@foghorn/core';
import type { Logger, Transferer } from '@foghorn/core';
import type { Answer } from 'dns-packet';
import type { ZoneConfig } from './setup.js';
import { ZoneData } from './zone.js';

/** One zone: where it comes from and what it serves now (null until its file could be read). */
export interface ZoneEntry {
  readonly config: ZoneConfig;
  data: ZoneData | null;
  /** Modification time of the file when it was last read, for `reload_by_mtime`. */
  mtimeMs: number;
}

export class FileZones implements Transferer {
  readonly name = 'file';
  /** Zone origins, for matching the query name. */
  readonly names: readonly string[];
  private readonly entries = new Map<string, ZoneEntry>();
  private readonly listeners: ((zone: string) => void)[] = [];
  private readonly stops: (() => void)[] = [];

  constructor(
    zones: readonly ZoneConfig[],
    private readonly log: Logger,
  ) {
    for (const config of zones) this.entries.set(config.origin, { config, data: config.data, mtimeMs: 0 });
    this.names = [...this.entries.keys()];
  }

  /** The zone `qname` falls in, or undefined when none of ours (longest match). */
  match(qname: string): ZoneEntry | undefined {
    const zone = matchZone(this.names, qname);
    return zone === undefined ? undefined : this.entries.get(zone);
  }

  /** Starts the reload timers and announces every zone, as CoreDNS's setup does on startup. */
  async start(): Promise<void> {
    for (const entry of this.entries.values()) {
      if (entry.config.reloadByMtime) entry.mtimeMs = await mtimeOf(entry.config.file);
      // One read at a time: a slow reload is never overlapped by the next tick.
      this.stops.push(pollEvery(entry.config.reloadMs, () => this.reload(entry)));
    }
    this.announce();
  }

  /**
   * Tells *transfer* every loaded zone (it sends NOTIFY): at startup, and again when a Corefile
   * reload failed and this configuration keeps serving, as CoreDNS's setup does.
   */
  announce(): void {
    for (const entry of this.entries.values()) if (entry.data) this.changed(entry.config.origin);
  }

  stop(): void {
    for (const stop of this.stops) stop();
    this.stops.length = 0;
  }

  /**
   * Reads the zone file again and swaps the data in when the SOA serial differs from the one
   * served (or, with `reload_by_mtime`, when the file is newer). Errors keep the old data.
   */
  async reload(entry: ZoneEntry): Promise<boolean> {
    const { origin, file } = entry.config;
    let mtimeMs = 0;
    if (entry.config.reloadByMtime) {
      try {
        mtimeMs = (await stat(file)).mtimeMs;
      } catch (error) {
        this.log.error(`Failed to stat zone "${origin}" in "${file}": ${errorMessage(error)}`);
        return false;
      }
      if (mtimeMs <= entry.mtimeMs) return false;
    }
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      this.log.error(`Failed to open zone "${origin}" in "${file}": ${errorMessage(error)}`);
      return false;
    }
    let data: ZoneData;
    try {
      data = ZoneData.parse(text, origin, file);
    } catch (error) {
      this.log.error(`Parsing zone "${origin}": ${errorMessage(error)}`);
      return false;
    }
    if (!entry.config.reloadByMtime && entry.data !== null && data.serial === entry.data.serial) return false;
    entry.data = data;
    entry.mtimeMs = mtimeMs;
    this.log.info(`Successfully reloaded zone "${origin}" in "${file}" with ${data.serial} SOA serial`);
    this.changed(origin);
    return true;
  }

  transfer(zone: string, serial: number): Iterable<readonly Answer[]> | null {
    const data = this.entries.get(zone)?.data;
    // A zone we serve but could not load yet is not transferable; another plugin may have it.
    return data ? data.transfer(serial) : null;
  }

  onZoneChange(notify: (zone: string) => void): void {
    this.listeners.push(notify);
  }

  private changed(zone: string): void {
    for (const notify of this.listeners) notify(zone);
  }
}

async function mtimeOf(file: string): Promise<number> {
  try {
    return (await stat(file)).mtimeMs;
  } catch {
    // Not there yet: any file that appears later is newer.
    return 0;
  }
}
