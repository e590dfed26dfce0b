/**
 * Running one hook's command as caddy's `hook.Config.Hook` does: no shell, the server's stdin,
 * stdout and stderr, a blocking command waited for and a background one (`&`) only started. A
 * command that cannot start or fails is logged with Go's wording, never thrown: the server
 * serves on.
 */
import { spawn } from 'node:child_process';
import type { Logger } from '@foghorn/core';
import type { OnHook } from './setup.js';

/** Go's `syscall.Signal.String()` for the signals a command most often dies of. */
const signalNames: Readonly<Record<string, string>> = {
  SIGHUP: 'hangup',
  SIGINT: 'interrupt',
  SIGQUIT: 'quit',
  SIGABRT: 'aborted',
  SIGKILL: 'killed',
  SIGSEGV: 'segmentation fault',
  SIGPIPE: 'broken pipe',
  SIGTERM: 'terminated',
};

/** Runs `hook`'s command; resolves when it ended (blocking) or started (background). */
export function runHook(hook: OnHook & { readonly id: string }, log: Logger): Promise<void> {
  const mode = hook.background ? 'Nonblocking' : 'Blocking';
  log.info(`${mode} Command "${hook.command} ${hook.args.join(' ')}" with ID ${hook.id}`);
  const failed = (reason: string): void => log.error(`error on 'on-${hook.id}' hook: ${reason}`);
  return new Promise<void>((resolve) => {
    const child = spawn(hook.command, [...hook.args], { stdio: 'inherit' });
    child.once('error', (error: NodeJS.ErrnoException) => {
      failed(startError(hook.command, error));
      resolve();
    });
    if (hook.background) {
      child.once('spawn', () => {
        // Go's cmd.Start: the server neither waits for it nor stays up for it.
        child.unref();
        resolve();
      });
      return;
    }
    child.once('exit', (code, signal) => {
      if (signal !== null) failed(`signal: ${signalNames[signal] ?? signal}`);
      else if (code !== 0) failed(`exit status ${code}`);
      resolve();
    });
  });
}

/** Go's exec errors: `exec: "x": executable file not found in $PATH`, `fork/exec /x: permission denied`. */
function startError(command: string, error: NodeJS.ErrnoException): string {
  if (error.code === 'ENOENT') return command.includes('/') ? `fork/exec ${command}: no such file or directory` : `exec: "${command}": executable file not found in $PATH`;
  if (error.code === 'EACCES') return `fork/exec ${command}: permission denied`;
  return `fork/exec ${command}: ${error.message}`;
}
