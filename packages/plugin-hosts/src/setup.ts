/**
 * Parsing `hosts [FILE [ZONES...]] { INLINE... ttl | no_reverse | reload | fallthrough |
 * fallthrough_unsupported }` (CoreDNS `plugin/hosts/setup.go`) and keeping the file's data
 * fresh: it is read at startup and re-read every `reload` when its mtime or size changed.
 */
import { statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { errOnce, errorMessage, fallthroughZones, parseDuration, pollEvery, rootedPath, zonesFromArgs } from '@foghorn/core';
import type { Controller, Logger } from '@foghorn/core';
import { Hosts, HostsData } from './handler.js';
import { parseHostsFile } from './hostsfile.js';
import type { ParseOptions } from './hostsfile.js';
import { createHostsMetrics } from './metrics.js';
import type { HostsMetrics } from './metrics.js';

/** One block's `hosts` configuration. */
export interface HostsOptions {
  /** The hosts file, `/etc/hosts` by default; a relative path is joined to the block's *root*, else relative to the working directory. */
  readonly path: string;
  /** Zones served: the arguments after FILE, else the server block's. */
  readonly origins: readonly string[];
  /** TTL of every record, 1..65535. */
  readonly ttl: number;
  /** How often the file is checked for changes, in milliseconds; 0 never. */
  readonly reloadMs: number;
  /** False with `no_reverse`: no PTR data. */
  readonly autoReverse: boolean;
  /** `fallthrough [ZONES...]`: null when off, `['.']` for every name. */
  readonly fallthrough: readonly string[] | null;
  readonly fallthroughUnsupported: boolean;
  /** Inline hosts lines from the block, each line's tokens joined by spaces. */
  readonly inline: readonly string[];
}

export const defaultPath = '/etc/hosts';
export const defaultTtl = 3600;
export const defaultReloadMs = 5_000;

/** Parses the block's `hosts` (once per block). Stats FILE, as CoreDNS does, to warn early. */
export function parseHosts(c: Controller): HostsOptions {
  let path = defaultPath;
  let origins: readonly string[] = c.zones;
  let ttl = defaultTtl;
  let reloadMs = defaultReloadMs;
  let autoReverse = true;
  let fallthrough: string[] | null = null;
  let fallthroughUnsupported = false;
  const inline: string[] = [];
  let seen = 0;
  while (c.next()) {
    if (seen++ > 0) throw errOnce(c);
    const args = c.remainingArgs();
    if (args.length >= 1) {
      path = rootedPath(c, args.shift()!);
      checkFile(c, path);
    }
    if (args.length > 0) origins = zonesFromArgs(c, args);
    while (c.nextBlock()) {
      const property = c.val();
      switch (property) {
        case 'fallthrough': {
          const zones = c.remainingArgs();
          fallthrough = fallthroughZones(c, zones);
          break;
        }
        case 'fallthrough_unsupported':
          if (c.remainingArgs().length !== 0) throw c.argError();
          fallthroughUnsupported = true;
          break;
        case 'no_reverse':
          autoReverse = false;
          break;
        case 'ttl': {
          const values = c.remainingArgs();
          if (values.length < 1) throw c.error('ttl needs a time in second');
          if (!/^[+-]?\d+$/.test(values[0]!)) throw c.error('ttl needs a number of second');
          const value = Number(values[0]);
          if (value <= 0 || value > 65535) throw c.error('ttl provided is invalid');
          ttl = value;
          break;
        }
        case 'reload': {
          const values = c.remainingArgs();
          if (values.length !== 1) throw c.error('reload needs a duration (zero seconds to disable)');
          let value: number;
          try {
            value = parseDuration(values[0]!);
          } catch {
            throw c.error(`invalid duration for reload '${values[0]}'`);
          }
          if (value < 0) throw c.error(`invalid negative duration for reload '${values[0]}'`);
          reloadMs = value;
          break;
        }
        default:
          // Before any `fallthrough`, an unknown word starts an inline hosts line.
          if (fallthrough !== null) throw c.error(`unknown property '${property}'`);
          inline.push([property, ...c.remainingArgs()].join(' '));
      }
    }
  }
  if (fallthroughUnsupported && fallthrough === null) throw c.error('fallthrough_unsupported requires fallthrough');
  return { path, origins, ttl, reloadMs, autoReverse, fallthrough, fallthroughUnsupported, inline };
}

/** CoreDNS's setup-time stat: a missing file or a directory is a warning, anything else an error. */
function checkFile(c: Controller, path: string): void {
  try {
    if (statSync(path).isDirectory()) c.log.warning(`Hosts file ${JSON.stringify(path)} is a directory`);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      c.log.warning(`File does not exist: ${path}`);
      return;
    }
    const reasons: Record<string, string> = { EACCES: 'permission denied', ENOTDIR: 'not a directory', ELOOP: 'too many levels of symbolic links' };
    const reason = (code !== undefined ? reasons[code] : undefined) ?? errorMessage(error);
    throw c.error(`unable to access hosts file '${path}': stat ${path}: ${reason}`);
  }
}

/**
 * The file side of the data: re-parsed when its mtime or size differ from the last read. A file
 * that cannot be read keeps the data of the last good read (CoreDNS logs nothing: setup warned).
 */
export class HostsFileReader {
  private mtimeNs = -1n;
  private size = -1n;

  constructor(
    readonly path: string,
    private readonly data: HostsData,
    private readonly parse: ParseOptions,
    private readonly metrics: HostsMetrics,
    private readonly log: Logger,
  ) {}

  async read(): Promise<void> {
    let text: string;
    let mtimeNs: bigint;
    let size: bigint;
    try {
      const handle = await open(this.path);
      try {
        const stat = await handle.stat({ bigint: true });
        if (stat.mtimeNs === this.mtimeNs && stat.size === this.size) return;
        mtimeNs = stat.mtimeNs;
        size = stat.size;
        text = await handle.readFile('utf8');
      } finally {
        await handle.close();
      }
    } catch {
      return;
    }
    const map = parseHostsFile(text, this.parse);
    this.log.debug(`Parsed hosts file into ${map.size} entries`);
    this.data.file = map;
    this.mtimeNs = mtimeNs;
    this.size = size;
    this.metrics.entries.set({ hostsfile: this.path }, this.data.inline.size + map.size);
    this.metrics.reloadTimestamp.set(Number(mtimeNs) / 1e9);
  }

  /** Re-reads every `reloadMs` (0: never), one read at a time; returns the stop function. */
  watch(reloadMs: number): () => void {
    return pollEvery(reloadMs, () => this.read());
  }
}

/** Parses `hosts`, adds the handler, reads the file at startup and watches it. */
export function setup(c: Controller): void {
  const options = parseHosts(c);
  const parse: ParseOptions = { origins: options.origins, autoReverse: options.autoReverse };
  const data = new HostsData(parseHostsFile(options.inline.join('\n'), parse));
  const reader = new HostsFileReader(options.path, data, parse, createHostsMetrics(c.registry), c.log);
  let stop: (() => void) | undefined;
  c.onStartup(async () => {
    await reader.read();
    stop = reader.watch(options.reloadMs);
  });
  c.onShutdown(() => stop?.());
  const handlerOptions = {
    zones: options.origins,
    ttl: options.ttl,
    fallthrough: options.fallthrough,
    fallthroughUnsupported: options.fallthroughUnsupported,
  };
  c.addHandler((next) => new Hosts(data, handlerOptions, next));
}
