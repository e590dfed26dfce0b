/**
 * `FOGHORN_DISABLE`: turns hot-path tricks off, so that the next machine can measure what each
 * one is worth (docs/performance.md, "Switches"). A comma-separated list, read once when the
 * process loads core, as Go reads GODEBUG:
 *
 *   codegen    chain links and log's formats as shared code instead of code generated per
 *              link and per format (`new Function`), as under --disallow-code-generation-from-strings
 *   outbox     UDP replies sent as they are written instead of together at the end of the turn
 *   v8-flags   the CLI adds no V8 flags to its workers (and the benchmarks to their servers)
 *
 * This file is the only reader of the variable.
 */

/** The tricks `FOGHORN_DISABLE` can turn off. */
export type HotPathSwitch = 'codegen' | 'outbox' | 'v8-flags';

/** The environment variable's name. */
export const FOGHORN_DISABLE = 'FOGHORN_DISABLE';

const switches: readonly HotPathSwitch[] = ['codegen', 'outbox', 'v8-flags'];
const named: readonly string[] = (process.env[FOGHORN_DISABLE] ?? '')
  .split(',')
  .map((name) => name.trim())
  .filter((name) => name !== '');
const disabled: ReadonlySet<string> = new Set(named);

/** Whether `FOGHORN_DISABLE` turns `name` off in this process. */
export function isDisabled(name: HotPathSwitch): boolean {
  return disabled.has(name);
}

/** Names in `FOGHORN_DISABLE` that are no switch (a typo), which the server warns about when it starts. */
export function unknownSwitches(): readonly string[] {
  return named.filter((name) => !(switches as readonly string[]).includes(name));
}

/** The warning for {@link unknownSwitches}, or undefined when there are none. */
export function unknownSwitchesWarning(): string | undefined {
  const unknown = unknownSwitches();
  if (unknown.length === 0) return undefined;
  return `${FOGHORN_DISABLE}: ignoring ${unknown.map((name) => `'${name}'`).join(', ')}: the switches are ${switches.join(', ')}`;
}
