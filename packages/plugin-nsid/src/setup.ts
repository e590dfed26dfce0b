/** Setup of *nsid* (CoreDNS's `plugin/nsid/setup.go`): `nsid [DATA]`, once per server block. */
import { hostname } from 'node:os';
import { errOnce } from '@foghorn/core';
import type { Controller } from '@foghorn/core';
import { Nsid } from './handler.js';

/**
 * Parses `nsid [DATA...]`: the arguments joined by spaces, or the host's name without any
 * (`localhost` when it has none), as CoreDNS does.
 */
export function parseNsid(c: Controller): string {
  let data = hostname() || 'localhost';
  let seen = 0;
  while (c.next()) {
    if (seen++ > 0) throw errOnce(c);
    const args = c.remainingArgs();
    if (args.length > 0) data = args.join(' ');
    if (c.nextBlock()) throw c.error(`unknown property '${c.val()}'`);
  }
  return data;
}

export function setup(c: Controller): void {
  const data = parseNsid(c);
  c.addHandler((next) => new Nsid(data, next));
}
