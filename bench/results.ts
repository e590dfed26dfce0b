/**
 * The results files: `bench/results/YYYY-MM-DD-<job>.md`, written by the benchmark itself when a
 * run ends, never by hand, so every figure published has its command, date and machine beside it.
 *
 * A benchmark's standard output is its result (progress and per-round lines go to standard
 * error), so importing this module, a script's first import, starts keeping a copy of what the
 * run writes there, and `saveResults(job)`, the script's last statement, writes that copy under a
 * header: the command as it was typed (with the BENCH_* variables set), the commit, the start and
 * end time, the machine (cores, CPU model, memory, kernel), Node's version and the load average at
 * both ends. A run that fails writes nothing.
 *
 * BENCH_RESULTS: another directory to write to, or `0` to write no file (a quick look).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const repository = fileURLToPath(new URL('../..', import.meta.url));
const started = new Date();
const loadAtStart = loadavg();
const output: string[] = [];

// The copy: every chunk still reaches the terminal; only the text is kept.
const write = process.stdout.write.bind(process.stdout) as (...args: unknown[]) => boolean;
process.stdout.write = ((chunk: unknown, ...rest: unknown[]): boolean => {
  output.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString());
  return write(chunk, ...rest);
}) as typeof process.stdout.write;

export interface SaveOptions {
  /** Environment variables the job reads besides BENCH_* (informer-hub's SIZES, WORKERS, ...). */
  readonly env?: readonly string[];
}

/**
 * Writes what the run printed on standard output to `bench/results/<date>-<job>.md` (`-2`, `-3`
 * ... when the day already has one) and returns the path, or undefined with BENCH_RESULTS=0.
 */
export function saveResults(job: string, options: SaveOptions = {}): string | undefined {
  const target = process.env['BENCH_RESULTS'];
  if (target === '0') return undefined;
  const dir = target ?? join(repository, 'bench/results');
  mkdirSync(dir, { recursive: true });
  const day = started.toISOString().slice(0, 10);
  let path = join(dir, `${day}-${job}.md`);
  for (let n = 2; existsSync(path); n++) path = join(dir, `${day}-${job}-${n}.md`);
  writeFileSync(path, render(job, options));
  const shown = relative(process.cwd(), path);
  process.stderr.write(`results written to ${shown.startsWith('..') ? path : shown}\n`);
  return path;
}

function render(job: string, options: SaveOptions): string {
  const ended = new Date();
  const time = (date: Date): string => date.toISOString().slice(0, 16).replace('T', ' ');
  const end = time(ended).startsWith(time(started).slice(0, 10)) ? time(ended).slice(11) : time(ended);
  const load = (figures: number[]): string => figures.map((l) => l.toFixed(2)).join(' ');
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  const header = [
    `# ${job}, ${started.toISOString().slice(0, 10)}`,
    '',
    '<!-- Written by bench/results.ts when the run ended. Run the command again rather than edit this file. -->',
    '',
    '| | |',
    '|---|---|',
    `| command | \`${command(options.env ?? [])}\` |`,
    `| commit | ${commit()} |`,
    `| ran | ${time(started)} to ${end} UTC |`,
    `| machine | ${cpus().length} cores (${cpu}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Linux ${release()} |`,
    `| node | ${process.version} |`,
    `| load average | ${load(loadAtStart)} at the start, ${load(loadavg())} at the end |`,
    '',
    '## Output',
    '',
  ];
  return `${header.join('\n')}\n${asMarkdown(output.join(''))}`;
}

/** The command line that reproduces the run: the variables set, then npm's script or node's. */
function command(extraEnv: readonly string[]): string {
  const variables = Object.entries(process.env)
    .filter(([name]) => (name.startsWith('BENCH_') && name !== 'BENCH_RESULTS') || extraEnv.includes(name))
    .map(([name, value]) => `${name}=${/^[\w.,:/-]*$/.test(value ?? '') ? value : `'${value}'`}`)
    .sort();
  const args = process.argv.slice(2);
  const script = process.env['npm_lifecycle_event'];
  const run = script?.startsWith('bench') ? `npm run ${script}${args.length ? ` -- ${args.join(' ')}` : ''}` : ['node', `bench/dist/${basename(process.argv[1] ?? '')}`, ...args].join(' ');
  return [...variables, run].join(' ');
}

function commit(): string {
  try {
    const git = (...args: string[]): string => execFileSync('git', args, { cwd: repository, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const head = git('rev-parse', '--short=12', 'HEAD');
    return git('status', '--porcelain', '--untracked-files=no') === '' ? head : `${head}, with uncommitted changes`;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

/**
 * Markdown tables stay tables and every other line becomes a paragraph of its own; output with no
 * table at all (aligned columns of text) goes in a code block, where its alignment survives.
 */
function asMarkdown(text: string): string {
  const lines = text.trimEnd().split('\n');
  if (!lines.some((line) => /^\|(\s*:?-+:?\s*\|)+$/.test(line))) return `\`\`\`text\n${lines.join('\n')}\n\`\`\`\n`;
  const out: string[] = [];
  for (const line of lines) {
    const previous = out.at(-1);
    const isRow = line.startsWith('|');
    if (previous !== undefined && previous !== '' && line !== '' && !(isRow && previous.startsWith('|'))) out.push('');
    out.push(line);
  }
  return `${out.join('\n')}\n`;
}
