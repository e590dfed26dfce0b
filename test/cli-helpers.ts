/** Running the real `foghorn` CLI as a child process, for the end-to-end and corpus tests. */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const cliPath = fileURLToPath(new URL('../../packages/foghorn/dist/src/cli.js', import.meta.url));
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `foghorn ARGS` to completion. */
export function runCli(args: readonly string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], { env: options.env ?? process.env, cwd: options.cwd ?? repoRoot });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

/** A running `foghorn` whose output is collected; `waitFor` resolves when a line matches. */
export class RunningCli {
  readonly child: ChildProcess;
  output = '';
  private readonly waiters: { pattern: RegExp; resolve: (match: RegExpMatchArray) => void }[] = [];
  readonly exited: Promise<number | null>;

  constructor(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
    this.child = spawn(process.execPath, [cliPath, ...args], { cwd: options.cwd ?? repoRoot, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const collect = (chunk: Buffer): void => {
      this.output += chunk.toString();
      for (const waiter of [...this.waiters]) {
        const match = this.output.match(waiter.pattern);
        if (match) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve(match);
        }
      }
    };
    this.child.stdout!.on('data', collect);
    this.child.stderr!.on('data', collect);
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
  }

  waitFor(pattern: RegExp, timeoutMs = 20_000): Promise<RegExpMatchArray> {
    const match = this.output.match(pattern);
    if (match) return Promise.resolve(match);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}; output:\n${this.output}`)), timeoutMs);
      this.waiters.push({
        pattern,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      });
    });
  }

  kill(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }
}
