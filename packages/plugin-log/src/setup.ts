/**
 * Parsing `log` lines into rules (CoreDNS's plugin/log) and wiring the handler.
 *
 * ~~~ txt
 * log                       one rule: name ".", the default format, class all
 * log NAME                  one rule for NAME: one argument is always a name
 * log NAMES... FORMAT       two or more arguments: the last is the format if it contains "{"
 * log [NAMES...] [FORMAT] {
 *     class CLASSES...
 * }
 * ~~~
 */
import type { Controller, LogSink } from '@foghorn/core';
import { ClassBit } from './classify.js';
import type { LogClass } from './classify.js';
import { compileFormat, DEFAULT_LOG_FORMAT, expandMacros } from './format.js';
import { Log } from './handler.js';
import type { CompiledRule } from './handler.js';
import { SinkLines, stdoutLines } from './sink.js';
import type { LineOutput } from './sink.js';
import { fqdn } from '@foghorn/core/wire';

/** One rule: queries for `name` and below are logged with `format` when their class is selected. */
export interface LogRule {
  /** Fully qualified, as written (CoreDNS does not lower-case it; matching ignores case). */
  readonly name: string;
  /** The format with `{common}`/`{combined}` expanded. */
  readonly format: string;
  /** Selected classes; `['all']` when the block names none. */
  readonly classes: readonly LogClass[];
}

/** The classes of a rule without a `class` line. */
export const defaultClasses: readonly LogClass[] = ['all'];

const classNames: ReadonlySet<string> = new Set<LogClass>(['all', 'success', 'denial', 'error']);

/**
 * Reads every `log` line of the block into rules, in file order. Pure: the setup table test
 * calls it directly. Throws a positioned Corefile error for bad input.
 */
export function parseLog(c: Controller): LogRule[] {
  const rules: LogRule[] = [];
  while (c.next()) {
    const args = c.remainingArgs();
    let names: string[];
    let format = DEFAULT_LOG_FORMAT;
    if (args.length === 0) names = ['.'];
    // One argument is a name even when it looks like a format (`log {combined}`), as in CoreDNS.
    else if (args.length === 1) names = args;
    else {
      const last = args[args.length - 1]!;
      if (last.includes('{')) {
        format = expandMacros(last);
        names = args.slice(0, -1);
      } else names = args;
    }
    const classes = new Set<LogClass>();
    while (c.nextBlock()) {
      if (c.val() !== 'class') throw c.error(`unknown property '${c.val()}'`);
      let count = 0;
      // Argument by argument, so an error points at the bad value.
      while (c.nextArg()) {
        count++;
        const value = c.val();
        if (!classNames.has(value)) throw c.error(`invalid Class: ${value}`);
        classes.add(value as LogClass);
      }
      if (count === 0) throw c.argError();
    }
    const selected = classes.size === 0 ? defaultClasses : [...classes];
    for (const name of names) rules.push({ name: fqdn(name), format, classes: selected });
  }
  return rules;
}

/** How the handler frames a query line, as CoreDNS's `clog.Infof` does. */
const LINE_FRAME = { prefix: '[INFO] ', suffix: '\n' };

/** Turns parsed rules into what the handler runs: lower-cased names, compiled formats, class bits. */
export function compileRules(rules: readonly LogRule[]): CompiledRule[] {
  const formats = new Map<string, ReturnType<typeof compileFormat>>();
  return rules.map((rule) => {
    let format = formats.get(rule.format);
    if (format === undefined) {
      format = compileFormat(rule.format, LINE_FRAME);
      formats.set(rule.format, format);
    }
    let classes = 0;
    for (const cls of rule.classes) classes |= ClassBit[cls];
    return { zone: rule.name.toLowerCase(), format, classes };
  });
}

/** Options of {@link createLogPlugin}. */
export interface LogPluginOptions {
  /**
   * Where finished lines (`[INFO] ...`, no newline) go, each as its query is answered. Default:
   * stdout, written in batches every 50 ms (or 64 KiB) and flushed on shutdown.
   */
  readonly sink?: LogSink;
}

/** `log` writing to stdout. */
export const setup = (c: Controller): void => setupWith()(c);

export function setupWith(options: LogPluginOptions = {}): (c: Controller) => void {
  return function setup(c: Controller): void {
    const rules = compileRules(parseLog(c));
    let out: LineOutput;
    if (options.sink === undefined) {
      const batcher = stdoutLines();
      out = batcher;
      // Lines still waiting for the next batch must not be lost when the server stops.
      c.onShutdown(() => batcher.flush());
    } else out = new SinkLines(options.sink);
    c.addHandler((next) => new Log(rules, next, out));
  };
}
