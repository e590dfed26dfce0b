import type { Controller } from '@foghorn/core';
import { APP_NAME, appVersion } from '@foghorn/core/wire';
import { owners } from './owners.js';
import { Chaos } from './handler.js';

/** What `chaos [VERSION] [AUTHORS...]` configures; texts are TXT strings, at most 255 bytes. */
export interface ChaosOptions {
  readonly version: Buffer;
  readonly authors: readonly Buffer[];
}

/** A TXT character-string holds at most 255 bytes: longer texts are cut, as CoreDNS's `trim`. */
export function trim(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  return bytes.length < 256 ? bytes : bytes.subarray(0, 255);
}

/**
 * Parses `chaos [VERSION] [AUTHORS...]` as CoreDNS's `plugin/chaos/setup.go`: no argument gives
 * `Foghorn-<version>` and the maintainers; one gives the version; more give the version and
 * the authors, de-duplicated and sorted. Only the first `chaos` line of a block counts.
 */
export function parseChaos(c: Controller): ChaosOptions {
  if (!c.next()) return { version: trim(`${APP_NAME}-${appVersion()}`), authors: owners.map(trim) };
  const args = c.remainingArgs();
  const version = trim(args[0] ?? `${APP_NAME}-${appVersion()}`);
  const authors = args.length > 1 ? [...new Set(args.slice(1))].sort(byCodeUnits).map(trim) : owners.map(trim);
  if (c.nextBlock()) throw c.error(`unknown property '${c.val()}'`);
  return { version, authors };
}

/** Go's sort.Strings order (by code point below U+D800, which is all a handle uses), not the locale's. */
function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Parses the directive and adds the handler. */
export function setup(c: Controller): void {
  const options = parseChaos(c);
  c.addHandler((next) => new Chaos(options, next));
}
