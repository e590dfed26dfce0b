/**
 * `file DBFILE [ZONES...] { reload DURATION; reload_by_mtime; fallthrough [ZONES...] }`, after
 * CoreDNS's `plugin/file/setup.go`: the zone files are read and parsed here, so a broken one
 * refuses the Corefile with its `file:line`; reloading starts with the server.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { durationArg, errorAt, errorMessage, fallthroughZones, rootedPath, Transferers, zonesFromArgs } from '@foghorn/core';
import type { Controller } from '@foghorn/core';
import { ZoneData } from '@foghorn/core/wire';
import { File } from './handler.js';
import { FileZones } from './zones.js';

/** CoreDNS's default reload interval: one minute. */
export const defaultReloadMs = 60_000;

/** One zone a `file` directive serves. */
export interface ZoneConfig {
  /** Lower-case, fully qualified origin. */
  readonly origin: string;
  /** The zone file's path: a relative one joined to the block's *root*, then made absolute against the working directory. */
  readonly file: string;
  /** How often the file is checked for a new SOA serial; 0 never. */
  readonly reloadMs: number;
  /** Decide on the file's modification time instead of the serial. */
  readonly reloadByMtime: boolean;
  /** The zone as read at setup, or null when the file could not be opened (retried on reload). */
  readonly data: ZoneData | null;
}

export interface FileOptions {
  readonly zones: readonly ZoneConfig[];
  /** `fallthrough [ZONES...]`: null when off, `['.']` for every name. */
  readonly fallthrough: readonly string[] | null;
}

/**
 * Parses every `file` directive of the block and loads its zone files. A file that cannot be
 * opened is a warning while `reload` is on (it is retried), as in CoreDNS; a file that does not
 * parse is an error naming the Corefile line and the zone file's line.
 */
export function parseFile(c: Controller): FileOptions {
  const zones: ZoneConfig[] = [];
  let fallthrough: string[] | null = null;
  while (c.next()) {
    if (!c.nextArg()) throw c.argError();
    const fileToken = c.token();
    // CoreDNS's messages name the path joined to *root*, as opened.
    const name = rootedPath(c, c.val());
    const file = resolve(name);
    const args = c.remainingArgs();
    const origins = zonesFromArgs(c, args);
    let text: string | undefined;
    let openError: Error | undefined;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      openError = error as Error;
    }
    const loaded = origins.map((origin) => {
      if (text === undefined) return { origin, data: null };
      try {
        return { origin, data: ZoneData.parse(text, origin, name) };
      } catch (error) {
        throw errorAt(fileToken, `failed to parse file "${name}" for origin ${origin} with error ${errorMessage(error)}`);
      }
    });
    let reloadMs = defaultReloadMs;
    let reloadByMtime = false;
    while (c.nextBlock()) {
      const property = c.val();
      switch (property) {
        case 'fallthrough': {
          const zonesArgs = c.remainingArgs();
          fallthrough = fallthroughZones(c, zonesArgs);
          break;
        }
        case 'reload': {
          const value = c.remainingArgs();
          if (value.length < 1) throw c.error('reload duration value is expected');
          reloadMs = durationArg(c, value[0]!);
          if (reloadMs < 0) throw c.error(`reload duration must not be negative, got '${value[0]}'`);
          break;
        }
        case 'reload_by_mtime':
          c.remainingArgs();
          reloadByMtime = true;
          break;
        case 'upstream':
          // Accepted and ignored, as CoreDNS still does ("remove soon").
          c.remainingArgs();
          break;
        default:
          throw c.error(`unknown property '${property}'`);
      }
    }
    if (openError) {
      // CoreDNS: without reload a file that cannot be opened is fatal; with it, it is tried again.
      if (reloadMs === 0) throw errorAt(fileToken, openError.message);
      if (!c.validating) c.log.warning(`Failed to open "${openError.message}": trying again in ${formatSeconds(reloadMs)}`);
    }
    for (const { origin, data } of loaded) zones.push({ origin, file, reloadMs, reloadByMtime, data });
  }
  return { zones, fallthrough };
}

function formatSeconds(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000}m0s` : `${ms / 1000}s`;
}

/** Parses the directive; loads the zones at startup, offers them to *transfer*, adds the handler. */
export function setup(c: Controller): void {
  const options = parseFile(c);
  const zones = new FileZones(options.zones, c.log);
  c.provide(Transferers, zones);
  c.onStartup(() => zones.start());
  c.onRestartFailed(() => zones.announce());
  c.onShutdown(() => zones.stop());
  c.addHandler((next) => new File(zones, options.fallthrough ?? [], next));
}
