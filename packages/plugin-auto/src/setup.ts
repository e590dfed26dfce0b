/**
 * `auto [ZONES...] { directory DIR [REGEXP ORIGIN_TEMPLATE]; reload DURATION }`, after CoreDNS's
 * `plugin/auto/setup.go`: setup parses and checks the directory; the zones are read when the
 * server starts.
 */
import { statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { durationArg, errorMessage, goRegExp, regExpGroups, Transferers, zonesFromArgs } from '@foghorn/core';
import type { Controller } from '@foghorn/core';
import { Auto } from './handler.js';
import { rewriteToExpand } from './template.js';
import { AutoZones } from './zones.js';

/** CoreDNS's defaults: files named `db.ORIGIN`, scanned every minute. */
export const defaultPattern = String.raw`db\.(.*)`;
export const defaultTemplate = '${1}';
export const defaultReloadMs = 60_000;
/** CoreDNS refuses a longer REGEXP. */
const MAX_REGEXP_LENGTH = 10_000;

/** One `auto` directive. */
export interface AutoConfig {
  /** The zones it answers for (its arguments or the block's). */
  readonly origins: readonly string[];
  /** The directory scanned, absolute ('' when no `directory` was given: nothing is found). */
  readonly directory: string;
  /** Matched against each file's base name, unanchored. */
  readonly pattern: RegExp;
  /** Go's expand template (`${1}`) that makes the origin from the match. */
  readonly template: string;
  /** How often the directory is scanned and the zones re-read; 0 only at startup. */
  readonly reloadMs: number;
}

/**
 * A path of the Corefile, absolute. Relative paths resolve against the working directory, as
 * CoreDNS does without the *root* plugin; this is the one place that would honour it.
 */
function configPath(name: string): string {
  return isAbsolute(name) ? name : resolve(name);
}

/** Parses every `auto` directive of the block. */
export function parseAuto(c: Controller): AutoConfig[] {
  const configs: AutoConfig[] = [];
  while (c.next()) {
    const origins = zonesFromArgs(c, c.remainingArgs());
    let directory: string | undefined;
    let pattern = goRegExp(defaultPattern);
    let template = defaultTemplate;
    let reloadMs = defaultReloadMs;
    while (c.nextBlock()) {
      const property = c.val();
      switch (property) {
        case 'directory': {
          if (!c.nextArg()) throw c.argError();
          directory = configPath(c.val());
          checkDirectory(c, directory);
          if (c.nextArg()) {
            const source = c.val();
            if (source.length > MAX_REGEXP_LENGTH) throw c.error('regexp too large');
            try {
              pattern = goRegExp(source);
            } catch (error) {
              throw c.error(errorMessage(error));
            }
            if (regExpGroups(pattern) === 0) throw c.error('Need at least one sub expression');
            if (!c.nextArg()) throw c.argError();
            template = rewriteToExpand(c.val());
          }
          if (c.nextArg()) throw c.argError();
          break;
        }
        case 'reload': {
          const args = c.remainingArgs();
          if (args.length < 1) throw c.error('reload duration value is expected');
          reloadMs = durationArg(c, args[0]!);
          if (reloadMs < 0) throw c.error('invalid duration');
          break;
        }
        case 'upstream':
          // Accepted and ignored, as CoreDNS still does ("remove soon").
          c.remainingArgs();
          break;
        default:
          throw c.error(`unknown property '${property}'`);
      }
    }
    // Without `directory` CoreDNS walks '', which fails: no zones, and a warning.
    configs.push({ origins, directory: directory ?? '', pattern, template, reloadMs });
  }
  return configs;
}

/**
 * A directory that does not exist yet is only a warning (zones appear when it does); any other
 * reason it cannot be read is CoreDNS's error.
 */
function checkDirectory(c: Controller, directory: string): void {
  try {
    statSync(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw c.error(`Unable to access root path '${directory}': ${errorMessage(error)}`);
    if (!c.validating) c.log.warning(`Directory does not exist: ${directory}`);
  }
}

/** Parses the directive; scans at startup and every `reload`, offers the zones to *transfer*. */
export function setup(c: Controller): void {
  const zones = new AutoZones(parseAuto(c), c.log);
  c.provide(Transferers, zones);
  c.onStartup(() => zones.start());
  c.onShutdown(() => zones.stop());
  c.addHandler((next) => new Auto(zones, next));
}
