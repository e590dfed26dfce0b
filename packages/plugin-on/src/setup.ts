/**
 * Setup of *on* (caddy's `onevent` plugin, which CoreDNS compiles in): `on EVENT COMMAND
 * [ARGS...]`, any number of lines. Setup parses and registers; the commands run only when the
 * server does (never under `-validate`).
 */
import { randomUUID } from 'node:crypto';
import type { Controller } from '@foghorn/core';
import { runHook } from './run.js';
import { splitCommandAndArgs } from './shlex.js';

/**
 * The events caddy's onevent supports. `startup` is caddy's instance-startup event: the
 * configuration serves, at start and after every reload. `shutdown` is the process stopping
 * (SIGTERM, SIGINT). `certrenew` never happens in CoreDNS, which has no certificate renewal of
 * caddy's, nor in Foghorn: accepted, never run.
 */
export type OnEvent = 'startup' | 'shutdown' | 'certrenew';
const events: ReadonlySet<string> = new Set<OnEvent>(['startup', 'shutdown', 'certrenew']);

/** One `on` line. */
export interface OnHook {
  readonly event: OnEvent;
  readonly command: string;
  readonly args: readonly string[];
  /** The line ended in `&`: the command is started and not waited for. */
  readonly background: boolean;
}

/**
 * Parses every `on` line. The event is case-insensitive; the command's tokens are joined by
 * spaces and split again shell-style, as caddy does (so `sh -c 'echo a b'` works and double
 * quotes in the Corefile do not group words); a last word `&` runs the command in the background.
 */
export function parseOn(c: Controller): OnHook[] {
  const hooks: OnHook[] = [];
  while (c.next()) {
    if (!c.nextArg()) throw c.argError();
    const event = c.val().toLowerCase();
    if (!events.has(event)) throw c.error(`Wrong event name or event not supported: '${c.val()}'`);
    let split: { command: string; args: string[] };
    try {
      split = splitCommandAndArgs(c.remainingArgs().join(' '));
    } catch (error) {
      throw c.error((error as Error).message);
    }
    const background = split.args.at(-1) === '&';
    hooks.push({ event: event as OnEvent, command: split.command, args: background ? split.args.slice(0, -1) : split.args, background });
  }
  return hooks;
}

export function setup(c: Controller): void {
  const hooks = parseOn(c).map((hook) => ({ ...hook, id: randomUUID() }));
  // Under -workers N the commands run once, in worker 1: they are about the server, not about
  // each process serving it.
  if (c.workers !== undefined && c.workers.worker !== 1) return;
  const log = c.log;
  const run = (event: OnEvent) => async (): Promise<void> => {
    // One after another, as caddy runs a server's event hooks.
    for (const hook of hooks) if (hook.event === event) await runHook(hook, log);
  };
  if (hooks.some((hook) => hook.event === 'startup')) c.onStartupComplete(run('startup'));
  if (hooks.some((hook) => hook.event === 'shutdown')) c.onFinalShutdown(run('shutdown'));
}
