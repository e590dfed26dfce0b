/**
 * Helpers for a plugin's `setup`, as CoreDNS has them in plugin/normalize.go, plugin/plugin.go
 * (`ErrOnce`) and Go's `strconv`/`time` parsers: each reads one argument and throws the error
 * CoreDNS gives, positioned at the dispenser's current token (`file:line:column`).
 */
import { errorMessage } from './errors.js';
import { accessSync, constants, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { errorAt, parseDuration } from '@foghorn/corefile';
import type { CorefileError, Dispenser, Token } from '@foghorn/corefile';
import { parseServerKey } from './keys.js';
import type { ServerSettings } from './plugin.js';

/** CoreDNS's `plugin.ErrOnce` text. */
export const ERR_ONCE = 'this plugin can only be used once per Server Block';

/** The "only once per Server Block" error at the current token; throw it for a second directive. */
export function errOnce(c: Dispenser): CorefileError {
  return c.error(ERR_ONCE);
}

/** Options of {@link zonesFromArgs}. */
export interface ZonesFromArgsOptions {
  /**
   * Skip an argument that is not a zone instead of failing: what CoreDNS's
   * `OriginsFromArgsOrServerBlock` does ("silently ignores errors"). Off by default, so a typo
   * in a zone is a positioned error.
   */
  readonly ignoreInvalid?: boolean;
}

/**
 * The zones a directive applies to: its arguments normalised as server block keys are (lower
 * case, fully qualified, `dns://` and a port dropped, a CIDR expanded to its reverse zones), or
 * the server block's zones when there are none (CoreDNS's `plugin.OriginsFromArgsOrServerBlock`).
 */
export function zonesFromArgs(c: Dispenser & { readonly zones: readonly string[] }, args: readonly string[], options: ZonesFromArgsOptions = {}): string[] {
  if (args.length === 0) return [...c.zones];
  const zones: string[] = [];
  for (const arg of args) {
    try {
      for (const key of parseServerKey(arg, 53)) zones.push(key.zone);
    } catch (error) {
      if (!options.ignoreInvalid) throw c.error(errorMessage(error));
    }
  }
  return zones;
}

/**
 * The zones of a `fallthrough [ZONES...]` line: every name (`.`) without arguments, else the
 * arguments normalised as {@link zonesFromArgs} does (CoreDNS's `fall.SetZonesFromArgs`).
 */
export function fallthroughZones(c: Dispenser & { readonly zones: readonly string[] }, args: readonly string[], options: ZonesFromArgsOptions = {}): string[] {
  return args.length === 0 ? ['.'] : zonesFromArgs(c, args, options);
}

/** A Go duration argument (`30s`, `1m30s`) in milliseconds, or Go's `time: invalid duration` error. */
export function durationArg(c: Dispenser, text: string): number {
  try {
    return parseDuration(text);
  } catch (error) {
    throw c.error(errorMessage(error));
  }
}

/** A decimal integer argument, or the error text of Go's `strconv.Atoi` that CoreDNS passes on. */
export function atoi(c: Dispenser, text: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw c.error(`strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax`);
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw c.error(`strconv.Atoi: parsing ${JSON.stringify(text)}: value out of range`);
  return value;
}

/**
 * A decimal integer argument in `[min, max]`; anything else (not an integer, or out of range) is
 * `message`, the plugin's own error text.
 */
export function integerInRange(c: Dispenser, text: string, min: number, max: number, message: string): number {
  const value = Number(text);
  if (!/^[+-]?\d+$/.test(text) || value < min || value > max) throw c.error(message);
  return value;
}

/**
 * Go's text for a failed file-system call (`no such file or directory`, `permission denied`),
 * which Node puts between its code and the call: `ENOENT: no such file or directory, stat 'x'`.
 */
function errnoText(error: unknown): string {
  const message = errorMessage(error);
  return /^[A-Z0-9_]+: ([^,]+)/.exec(message)?.[1] ?? message;
}

/**
 * Checks that the path argument `at` names a directory this process can read (`manifests DIR`),
 * so `foghorn -validate` refuses what start-up would. Throws `FILE:LINE:COLUMN - Error during
 * parsing: WHAT 'DIR': no such file or directory` (or `is not a directory`). Relative paths are
 * relative to the working directory, as the plugin will open them.
 */
export function checkDirectory(at: Token, what: string): void {
  const path = at.text;
  let directory: boolean;
  try {
    directory = statSync(path).isDirectory();
    if (directory) accessSync(path, constants.R_OK | constants.X_OK);
  } catch (error) {
    throw errorAt(at, `${what} '${path}': ${errnoText(error)}`, { cause: error });
  }
  if (!directory) throw errorAt(at, `${what} '${path}' is not a directory`);
}

/**
 * Checks that the path argument `at` names a file this process can read (`kubeconfig PATH`).
 * Throws `FILE:LINE:COLUMN - Error during parsing: WHAT 'PATH': no such file or directory` (or
 * `permission denied`, `is a directory`). Only for files whose absence start-up refuses: CoreDNS
 * merely warns for some (*hosts*, *file*), and those plugins keep doing so.
 */
export function readableFile(at: Token, what: string): void {
  const path = at.text;
  let directory: boolean;
  try {
    directory = statSync(path).isDirectory();
    if (!directory) accessSync(path, constants.R_OK);
  } catch (error) {
    throw errorAt(at, `${what} '${path}': ${errnoText(error)}`, { cause: error });
  }
  if (directory) throw errorAt(at, `${what} '${path}': is a directory`);
}

/**
 * A file path from the Corefile as the plugin should open it: joined to the block's *root*
 * directory when it is relative and *root* is set (CoreDNS's `filepath.Join(config.Root, path)`),
 * else as written, relative to the working directory. Call it in setup, where *root*, first in
 * the directive list, has already been read.
 *
 * @example
 * const file = rootedPath(c, c.val());   // `root /etc/coredns` + `file db.example.org`
 */
export function rootedPath(c: { readonly settings: ServerSettings }, path: string): string {
  const root = c.settings.root;
  return root === undefined || root === '' || isAbsolute(path) ? path : join(root, path);
}
