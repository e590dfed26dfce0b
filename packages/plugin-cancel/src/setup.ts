/** Setup of *cancel* (CoreDNS's `plugin/cancel/cancel.go`): `cancel [TIMEOUT]`. */
import { parseDuration } from '@foghorn/core';
import type { Controller } from '@foghorn/core';
import { Cancel } from './handler.js';

/** CoreDNS's default: one millisecond past the 5 s after which DNS clients give up. */
export const defaultTimeoutMs = 5001;

/**
 * Parses `cancel [TIMEOUT]`: a positive Go duration, 5001 ms without one. Every line is read and
 * the last one wins, as in CoreDNS. Its errors, `invalid duration: "5"` and `invalid negative
 * duration: "-1s"`, carry the position CoreDNS leaves out.
 */
export function parseCancel(c: Controller): number {
  let timeoutMs = defaultTimeoutMs;
  while (c.next()) {
    const args = c.remainingArgs();
    if (args.length > 1) throw c.argError();
    if (args.length === 0) {
      timeoutMs = defaultTimeoutMs;
      continue;
    }
    const text = args[0]!;
    let duration: number;
    try {
      duration = parseDuration(text);
    } catch {
      throw c.error(`invalid duration: ${JSON.stringify(text)}`);
    }
    if (duration <= 0) throw c.error(`invalid negative duration: ${JSON.stringify(text)}`);
    timeoutMs = duration;
  }
  return timeoutMs;
}

export function setup(c: Controller): void {
  const timeoutMs = parseCancel(c);
  c.addHandler((next) => new Cancel(timeoutMs, next));
}
