/** Setup of *any*: no arguments, no block (CoreDNS's `plugin/any/setup.go`). */
import type { Controller } from '@foghorn/core';
import { Any } from './handler.js';

/** Parses `any`: no arguments, no block. */
export function parseAny(c: Controller): void {
  while (c.next()) {
    if (c.nextArg()) throw c.argError();
    if (c.nextBlock()) throw c.error(`unknown property '${c.val()}'`);
  }
}

/** Parses the directive and adds the handler. */
export function setup(c: Controller): void {
  parseAny(c);
  c.addHandler((next) => new Any(next));
}
