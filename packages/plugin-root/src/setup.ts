/**
 * Setup of *root* (CoreDNS's `plugin/root/root.go`): `root PATH` sets the directory the block's
 * relative file paths resolve against. Setup-only: it fills `ServerSettings.root`, which the
 * plugins that read files (*file*, *hosts*, *tls*, *forward*, *loadbalance*) join to their
 * relative paths with `rootedPath`. *root* is first in the directive list, so their setups run
 * after it.
 */
import { statSync } from 'node:fs';
import { errorMessage } from '@foghorn/core';
import type { Controller } from '@foghorn/core';

/**
 * Parses `root PATH`: every line is read and the last one wins (CoreDNS loops over them too).
 * A PATH that does not exist is a warning, since the directory may appear later; any other
 * failure to stat it is an error.
 */
export function parseRoot(c: Controller): string {
  let root: string | undefined;
  while (c.next()) {
    if (!c.nextArg()) throw c.argError();
    root = c.val();
  }
  if (root === undefined) throw c.argError();
  try {
    statSync(root);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') throw c.error(`unable to access root path '${root}': stat ${root}: ${statReason(error)}`);
    c.log.warning(`Root path does not exist: ${root}`);
  }
  return root;
}

/** Go's text for a failed stat: `not a directory`, `permission denied`, `invalid argument`. */
function statReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ERR_INVALID_ARG_VALUE' || code === 'ERR_INVALID_ARG_TYPE') return 'invalid argument';
  const message = errorMessage(error);
  return /^[A-Z0-9_]+: ([^,]+)/.exec(message)?.[1] ?? message;
}

export function setup(c: Controller): void {
  c.settings.root = parseRoot(c);
}
