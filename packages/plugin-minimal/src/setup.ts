/** Setup of *minimal* (CoreDNS v1.14.7's `plugin/minimal/setup.go`). */
import type { Controller } from '@foghorn/core';
import { Minimal } from './handler.js';

/**
 * Parses `minimal`: no arguments and no block (CoreDNS's `NextArg` takes a `{` for an argument
 * and refuses it). Only the first `minimal` of a block is read, as in CoreDNS.
 */
export function parseMinimal(c: Controller): void {
  c.next();
  const directive = c.token();
  if (c.nextArg()) throw c.argError();
  // Made before the block is entered, so it points at the `{`.
  const error = c.argError();
  if (c.nextBlock() || c.token() !== directive) throw error;
}

/** Parses the directive and adds the handler. */
export function setup(c: Controller): void {
  parseMinimal(c);
  c.addHandler((next) => new Minimal(next));
}
