/** Setup of *bufsize* (CoreDNS's `plugin/bufsize/setup.go`). */
import type { Controller } from '@foghorn/core';
import { Bufsize } from './handler.js';

/** The default: the size DNS Flag Day 2020 recommends (dnsflagday.net/2020). */
export const DEFAULT_BUFSIZE = 1232;

/**
 * Parses `bufsize [SIZE]` as CoreDNS's `plugin/bufsize/setup.go`: SIZE is an integer in
 * 512..4096 (RFC 6891), anything else is an argument error. Only the first `bufsize` line of a
 * block is read.
 */
export function parseBufsize(c: Controller): number {
  if (!c.next()) throw c.argError();
  const args = c.remainingArgs();
  if (args.length === 0) return DEFAULT_BUFSIZE;
  // Go's strconv.Atoi syntax: an optional sign and decimal digits.
  if (args.length > 1 || !/^[+-]?\d+$/.test(args[0]!)) throw c.argError();
  const size = Number(args[0]);
  if (size < 512 || size > 4096) throw c.argError();
  return size;
}

/** Parses the directive and adds the handler. */
export function setup(c: Controller): void {
  const size = parseBufsize(c);
  c.addHandler((next) => new Bufsize(size, next));
}
