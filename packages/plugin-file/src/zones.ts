/**
 * The zones of one server block's `file` directives at run time: the data each serves now, the
 * reload timers (CoreDNS's `plugin/file/reload.go`, through core's `ZoneFile`) and the zone data
 * offered to *transfer*.
 */
import { matchZone, pollEvery } from '@foghorn/core';
import type { Logger, Transferer } from '@foghorn/core';
import { ZoneFile } from '@foghorn/core/wire';
import type { Answer } from 'dns-packet';
import type { ZoneConfig } from './setup.js';

export class FileZones implements Transferer {
  readonly name = 'file';
  /** Zone origins, for matching the query name. */
  readonly names: readonly string[];
  private readonly zones = new Map<string, { config: ZoneConfig; file: ZoneFile }>();
  private readonly listeners: ((zone: string) => void)[] = [];
  private readonly stops: (() => void)[] = [];

  constructor(configs: readonly ZoneConfig[], log: Logger) {
    for (const config of configs) {
      this.zones.set(config.origin, { config, file: new ZoneFile(config.origin, config.file, log, config.reloadByMtime, config.data) });
    }
    this.names = [...this.zones.keys()];
  }

  /** The zone `qname` falls in, or undefined when none of ours (longest match). */
  match(qname: string): ZoneFile | undefined {
    const zone = matchZone(this.names, qname);
    return zone === undefined ? undefined : this.zones.get(zone)?.file;
  }

  /** Starts the reload timers and announces every zone, as CoreDNS's setup does on startup. */
  async start(): Promise<void> {
    for (const { config, file } of this.zones.values()) {
      if (config.reloadByMtime) await file.markRead();
      // One read at a time: a slow reload is never overlapped by the next tick.
      this.stops.push(pollEvery(config.reloadMs, () => this.reload(file)));
    }
    this.announce();
  }

  /**
   * Tells *transfer* every loaded zone (it sends NOTIFY): at startup, and again when a Corefile
   * reload failed and this configuration keeps serving, as CoreDNS's setup does.
   */
  announce(): void {
    for (const { file } of this.zones.values()) if (file.data) this.changed(file.origin);
  }

  stop(): void {
    for (const stop of this.stops) stop();
    this.stops.length = 0;
  }

  /** Reads a zone's file again; a new serial is announced to *transfer*. */
  async reload(file: ZoneFile): Promise<boolean> {
    if ((await file.reload()) !== 'loaded') return false;
    this.changed(file.origin);
    return true;
  }

  transfer(zone: string, serial: number): Iterable<readonly Answer[]> | null {
    const data = this.zones.get(zone)?.file.data;
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
