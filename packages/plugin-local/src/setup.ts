/** Setup of *local* (CoreDNS v1.14.7's `plugin/local/setup.go`). */
import type { Controller } from '@foghorn/core';
import { Local } from './handler.js';
import { createLocalMetrics } from './metrics.js';

export interface LocalOptions {
  /**
   * Whether `localhost.<domain>` names are answered as loopback (`localhost_prefix on`, the
   * default, kept by CoreDNS for backward compatibility); off, only names under `localhost.` are.
   */
  readonly localhostPrefix: boolean;
}

/**
 * Parses `local` and its optional block `{ localhost_prefix on|off }`. No arguments; every
 * occurrence in the block is read and the last `localhost_prefix` wins, as in CoreDNS.
 */
export function parseLocal(c: Controller): LocalOptions {
  let localhostPrefix = true;
  while (c.next()) {
    if (c.remainingArgs().length !== 0) throw c.argError();
    while (c.nextBlock()) {
      if (c.val() !== 'localhost_prefix') throw c.error(`unknown property '${c.val()}'`);
      const args = c.remainingArgs();
      if (args.length !== 1) throw c.argError();
      if (args[0] === 'on') localhostPrefix = true;
      else if (args[0] === 'off') localhostPrefix = false;
      else throw c.error(`localhost_prefix expects 'on' or 'off', got ${JSON.stringify(args[0])}`);
    }
  }
  return { localhostPrefix };
}

/** Parses the directive, registers the metric and adds the handler. */
export function setup(c: Controller): void {
  const options = parseLocal(c);
  const metrics = createLocalMetrics(c.registry);
  const log = c.log;
  c.addHandler((next) => new Local(options, metrics, log, next));
}
