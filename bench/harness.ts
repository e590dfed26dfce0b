/**
 * What both benchmark runners share: where the Foghorn CLI is, the scenario modules beside this
 * file, and waiting for a server's port (a process's CPU time is in proc.ts).
 */
import type { ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BenchScenario } from './scenario.js';

/** A file beside this module (in bench/dist after the build). */
export const here = (file: string): string => fileURLToPath(new URL(file, import.meta.url));
export const cli = here('../../packages/foghorn/dist/src/cli.js');
/** The line Foghorn prints for each listener once it serves, e.g. `.:41023 on 127.0.0.1`. */
export const foghornListening = /:(\d+) on 127\.0\.0\.1$/m;

/**
 * Resolves with the port `pattern`'s first group captures in the child's stdout or stderr, then
 * keeps draining both pipes (a log scenario writes a line per query) without keeping the text.
 */
export function waitForPort(child: ChildProcess, pattern: RegExp): Promise<number> {
  return new Promise((resolve, reject) => {
    let output = '';
    const collect = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = pattern.exec(output);
      if (!match) return;
      child.stdout!.off('data', collect);
      child.stderr!.off('data', collect);
      child.stdout!.resume();
      child.stderr!.resume();
      resolve(Number(match[1]));
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
}

/** The names of the `scenario-<name>.js` modules beside this file, whoami first. */
export function scenarioNames(): string[] {
  return readdirSync(here('.'))
    .map((file) => /^scenario-(.+)\.js$/.exec(file)?.[1])
    .filter((name): name is string => name !== undefined)
    .sort((a, b) => (a === 'whoami' ? -1 : b === 'whoami' ? 1 : a.localeCompare(b)));
}

export async function loadScenario(name: string): Promise<BenchScenario> {
  return ((await import(here(`./scenario-${name}.js`))) as { default: BenchScenario }).default;
}

/** SIGTERM, then SIGKILL after 5 s: a profiled Foghorn shuts down cleanly and writes its profile. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}
