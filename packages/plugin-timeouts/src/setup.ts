/**
 * Parsing `timeouts`, as CoreDNS v1.14's plugin/timeouts.
 *
 * ~~~ txt
 * timeouts {
 *     read DURATION
 *     write DURATION
 *     idle DURATION
 *     maxtcpqueries MAXIMUM
 * }
 * ~~~
 *
 * The values go to the block's server settings; the TCP side of a `dns://` listener, DoT and DoH
 * listeners apply them (UDP has no connection to time out).
 */
import { formatDuration, parseDuration } from '@foghorn/core';
import type { Controller } from '@foghorn/core';

/** What a `timeouts` block sets; absent fields keep the server's defaults. */
export interface TimeoutsOptions {
  readTimeoutMs?: number;
  writeTimeoutMs?: number;
  idleTimeoutMs?: number;
  /** Queries per TCP or DoT connection; -1 is unlimited. */
  maxQueries?: number;
}

const MIN_TIMEOUT_MS = 1_000;
const MAX_TIMEOUT_MS = 24 * 3_600_000;

/** CoreDNS's `durations.NewDurationFromArg`: a bare integer counts seconds. */
function durationArg(text: string): number | undefined {
  const go = /^[+-]?\d+$/.test(text) ? `${text}s` : text;
  try {
    return parseDuration(go);
  } catch {
    return undefined;
  }
}

export function parseTimeouts(c: Controller): TimeoutsOptions {
  const options: TimeoutsOptions = {};
  while (c.next()) {
    if (c.remainingArgs().length > 0) throw c.argError();
    let count = 0;
    while (c.nextBlock()) {
      const option = c.val();
      const args = c.remainingArgs();
      if (args.length !== 1) throw c.argError();
      const value = args[0]!;
      if (option === 'maxtcpqueries') {
        // Go's strconv.Atoi: an optional sign and decimal digits.
        if (!/^[+-]?\d+$/.test(value)) throw c.error(`invalid value for maxtcpqueries '${value}': strconv.Atoi: parsing "${value}": invalid syntax`);
        const n = Number(value);
        if (n === 0 || n < -1) throw c.error(`maxtcpqueries provided '${n}' needs to be -1 (unlimited) or a positive integer`);
        options.maxQueries = n;
        count++;
        continue;
      }
      const ms = durationArg(value);
      if (ms === undefined) throw c.error(`failed to parse duration '${/^[+-]?\d+$/.test(value) ? `${value}s` : value}'`);
      if (ms < MIN_TIMEOUT_MS || ms > MAX_TIMEOUT_MS) throw c.error(`timeout provided '${formatDuration(ms)}' needs to be between 1 second and 24 hours`);
      if (option === 'read') options.readTimeoutMs = ms;
      else if (option === 'write') options.writeTimeoutMs = ms;
      else if (option === 'idle') options.idleTimeoutMs = ms;
      else throw c.error(`unknown option: '${option}'`);
      count++;
    }
    if (count === 0) throw c.error('timeouts block with no timeouts specified');
  }
  return options;
}

export function setup(c: Controller): void {
  // maxtcpqueries -1 (unlimited) is kept: it overrides a cap set by another block on the listener.
  Object.assign(c.settings, parseTimeouts(c));
}
