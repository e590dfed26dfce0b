/**
 * whoami: `whoami` takes no arguments and no block (CoreDNS's plugin/whoami/setup.go).
 */
import type { Controller } from '@foghorn/core';
import { Whoami } from './handler.js';

/** Reads every `whoami` of the block; any argument is an argument-count error at it. */
export function parseWhoami(c: Controller): true {
  while (c.next()) {
    if (c.nextArg()) throw c.argError();
  }
  return true;
}

/** Parses `whoami` and adds the handler. */
export function setup(c: Controller): void {
  parseWhoami(c);
  c.addHandler(() => new Whoami());
}
