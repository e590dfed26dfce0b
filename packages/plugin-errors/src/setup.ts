/**
 * Parsing `errors` (CoreDNS's plugin/errors) and wiring the handler.
 *
 * ~~~ txt
 * errors [stdout]
 * errors {
 *     stacktrace
 *     consolidate DURATION REGEXP [warning|error|info|debug] [show_first]
 * }
 * ~~~
 */
import { Buffer } from 'node:buffer';
import { durationArg, errOnce, errorMessage } from '@foghorn/core';
import type { Controller } from '@foghorn/core';
import { Errors } from './handler.js';
import type { Timers } from './handler.js';

/** The level a consolidation pattern logs at. */
export type ErrorLevel = 'error' | 'warning' | 'info' | 'debug';

/** One `consolidate` line. */
export interface ConsolidateRule {
  /** Length of a window in milliseconds, from a Go duration. */
  readonly durationMs: number;
  /** The pattern as written; it is also what the summary line quotes. */
  readonly pattern: string;
  /** The pattern compiled (see {@link compilePattern}). */
  readonly regexp: RegExp;
  /** Level of the summary line (and of the first error with `show_first`). */
  readonly level: ErrorLevel;
  /** Print the first error of each window at once instead of only counting it. */
  readonly showFirst: boolean;
}

/** What an `errors` line configures. */
export interface ErrorsOptions {
  /** `stacktrace`: recovered panics in this block are logged with their stack trace (`ServerSettings.stacktrace`). */
  readonly stacktrace: boolean;
  /** Consolidation patterns in file order; only the first matching one counts an error. */
  readonly consolidate: readonly ConsolidateRule[];
}

/** CoreDNS's limit on a consolidation pattern, in bytes. */
export const MAX_REGEXP_LENGTH = 10_000;
/** The level of a pattern that names none. */
export const defaultLevel: ErrorLevel = 'error';

const levels: ReadonlySet<string> = new Set<ErrorLevel>(['warning', 'error', 'info', 'debug']);

/**
 * Compiles an RE2 (Go) pattern as a JavaScript RegExp. The syntax the two share covers the
 * patterns people write for error texts; Go's leading flag group `(?i)`, `(?s)`, `(?m)` (or a
 * mix) becomes RegExp flags because JavaScript does not accept it inline.
 */
export function compilePattern(pattern: string): RegExp {
  const flags = /^\(\?([ims]+)\)/.exec(pattern);
  if (flags === null) return new RegExp(pattern);
  return new RegExp(pattern.slice(flags[0].length), [...new Set(flags[1])].join(''));
}

/**
 * Reads the block's `errors` line into options. Pure: the setup table test calls it directly.
 * Throws a positioned Corefile error for bad input.
 */
export function parseErrors(c: Controller): ErrorsOptions {
  let seen = false;
  let stacktrace = false;
  const consolidate: ConsolidateRule[] = [];
  while (c.next()) {
    if (seen) throw errOnce(c);
    seen = true;
    const args = c.remainingArgs();
    if (args.length > 1) throw c.argError();
    // `stdout` is the legacy log-file argument, the only one still accepted.
    if (args.length === 1 && args[0] !== 'stdout') throw c.error(`invalid log file: ${args[0]}`);
    while (c.nextBlock()) {
      switch (c.val()) {
        case 'stacktrace':
          stacktrace = true;
          break;
        case 'consolidate':
          consolidate.push(parseConsolidate(c));
          break;
        default:
          // CoreDNS's odd wording, kept so that searches for it find this plugin.
          throw c.syntaxError(`Unknown field ${c.val()}`);
      }
    }
  }
  return { stacktrace, consolidate };
}

function parseConsolidate(c: Controller): ConsolidateRule {
  const args = c.remainingArgs();
  if (args.length < 2 || args.length > 4) throw c.argError();
  const [duration, pattern, ...rest] = args as [string, string, ...string[]];
  const durationMs = durationArg(c, duration);
  const length = Buffer.byteLength(pattern);
  if (length > MAX_REGEXP_LENGTH) throw c.error(`regex pattern too long: ${length} > ${MAX_REGEXP_LENGTH}`);
  let regexp: RegExp;
  try {
    regexp = compilePattern(pattern);
  } catch (error) {
    throw c.error(`error parsing regexp: ${errorMessage(error)}`);
  }
  let level: ErrorLevel | undefined;
  let showFirst = false;
  for (const arg of rest) {
    if (levels.has(arg)) {
      if (level !== undefined) throw c.error('multiple log levels specified in consolidate');
      if (showFirst) throw c.error('log level must come before show_first in consolidate');
      level = arg as ErrorLevel;
    } else if (arg === 'show_first') showFirst = true;
    else throw c.error(`unknown option in consolidate: ${arg}`);
  }
  return { durationMs, pattern, regexp, level: level ?? defaultLevel, showFirst };
}

/** Builds the setup function; tests pass fake timers to move consolidation windows by hand. */
/** `errors` on real timers. */
export const setup = (c: Controller): void => setupWith()(c);

export function setupWith(timers?: Timers): (c: Controller) => void {
  return function setup(c: Controller): void {
    const options = parseErrors(c);
    if (options.stacktrace) c.settings.stacktrace = true;
    const errors = new Errors(options.consolidate, c.log, timers);
    // Pending counts are printed when this configuration stops (reload or exit), then counting ends.
    c.onShutdown(() => errors.stop());
    c.addHandler((next) => errors.link(next));
  };
}
