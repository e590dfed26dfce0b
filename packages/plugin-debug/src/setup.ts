/**
 * Setup of *debug* (CoreDNS's `plugin/debug/debug.go`): `debug`, no arguments. Setup-only: it
 * marks the block (`ServerSettings.debug`), and the server does the rest: while a configuration
 * with such a block serves, `[DEBUG]` lines are printed (process-wide, CoreDNS's `log.D`), and
 * the listeners of the block log a recovered panic with its stack trace.
 */
import type { Controller } from '@foghorn/core';

/** Parses `debug`: any argument is an error (`debug off` included), as in CoreDNS. */
export function parseDebug(c: Controller): true {
  while (c.next()) {
    if (c.nextArg()) throw c.argError();
    if (c.nextBlock()) throw c.error(`unknown property '${c.val()}'`);
  }
  return true;
}

export function setup(c: Controller): void {
  c.settings.debug = parseDebug(c);
}
