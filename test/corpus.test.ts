/**
 * Every real-world Corefile of ../shared/corefile-corpus through `foghorn -validate`, checked
 * against its verdict (the corpus README gives the rules).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { repoRoot, runCli } from './cli-helpers.js';
import type { CliResult } from './cli-helpers.js';

const corpus = resolve(repoRoot, '../shared/corefile-corpus');

interface Expectation {
  lines: number[];
  column?: number;
  file?: string;
  messages: string[][];
  /** valid-unknown: the directives the file uses that Foghorn lacked when the case was written. */
  uses: string[];
}

function readEnv(caseFile: string): NodeJS.ProcessEnv {
  const env = { ...process.env };
  const envFile = caseFile.replace(/\.conf$/, '.env');
  if (!existsSync(envFile)) return env;
  for (const raw of readFileSync(envFile, 'utf8').split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (line.startsWith('unset ')) {
      delete env[line.slice(6).trim()];
      continue;
    }
    const eq = line.indexOf('=');
    let value = line.slice(eq + 1);
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    env[line.slice(0, eq)] = value.replaceAll('@CASEDIR@', dirname(caseFile)).replaceAll('@CORPUS@', corpus);
  }
  return env;
}

function readExpect(caseFile: string): Expectation {
  const expectation: Expectation = { lines: [], messages: [], uses: [] };
  for (const raw of readFileSync(caseFile.replace(/\.conf$/, '.expect'), 'utf8').split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const colon = line.indexOf(':');
    const key = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (key === 'line') expectation.lines = value.split('|').map((n) => Number(n.trim()));
    else if (key === 'column') expectation.column = Number(value);
    else if (key === 'file') expectation.file = value;
    else if (key === 'message') expectation.messages.push(value.split(' || ').map((m) => m.trim()));
    else if (key === 'uses') expectation.uses = value.split(/\s+/).filter((d) => d !== '');
  }
  return expectation;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The README's position rule: NAME:LINE[:COLUMN] after a separator, space, quote or start, not followed by a digit. */
function assertPosition(output: string, name: string, expectation: Expectation): void {
  const lines = expectation.lines.map(String).join('|');
  const column = expectation.column === undefined ? '' : `:${expectation.column}`;
  const pattern = new RegExp(`(^|[/\\\\\\s'"])${escape(name)}:(${lines})${column}(?!\\d)`, 'm');
  assert.match(output, pattern, `expected ${name}:${lines}${column} in:\n${output}`);
}

function cases(folder: string): string[] {
  const dir = join(corpus, folder);
  return readdirSync(dir)
    .filter((name) => name.endsWith('.conf'))
    .sort()
    .map((name) => join(dir, name));
}

const present = existsSync(corpus);

/** The directives `foghorn -plugins` lists (the corpus README's rule for valid-unknown cases). */
async function directiveNames(): Promise<Set<string>> {
  const { stdout } = await runCli(['-plugins']);
  return new Set(stdout.split('\n').map((line) => line.split('\t')[0]!).filter((name) => name !== ''));
}

for (const folder of ['valid', 'valid-unknown', 'invalid'] as const) {
  test(`corpus ${folder}/: every case gets its verdict`, { skip: present ? false : `no corpus at ${corpus}` }, async (t) => {
    const files = cases(folder);
    assert.ok(files.length > 0);
    // Four validations at a time: each is a short-lived node process.
    const results = new Map<string, Promise<CliResult>>();
    const queue = [...files];
    const workers = Array.from({ length: 4 }, async () => {
      for (let file = queue.shift(); file; file = queue.shift()) {
        const run = runCli(['-validate', '-conf', file], { env: readEnv(file), cwd: dirname(file) });
        results.set(file, run);
        await run;
      }
    });
    await Promise.all(workers);
    const known = folder === 'valid-unknown' ? await directiveNames() : new Set<string>();
    for (const file of files) {
      const result = await results.get(file)!;
      const name = basename(file);
      const expected = folder === 'valid' ? undefined : readExpect(file);
      // valid-unknown: valid once every `uses:` directive exists; until then the error names the
      // first missing one (at the expectation's position while that is still the first `uses:`).
      const missing = expected?.uses.filter((d) => !known.has(d)) ?? [];
      const nowValid = folder === 'valid-unknown' && missing.length === 0;
      const shifted = folder === 'valid-unknown' && !nowValid && missing[0] !== expected!.uses[0];
      await t.test(name, () => {
        assert.doesNotMatch(result.stderr, /\n\s+at .+:\d+:\d+/, 'a clear error, not a stack trace');
        if (folder === 'valid' || nowValid) {
          assert.doesNotMatch(result.stderr, /\[ERROR\]/);
          assert.equal(result.stdout, 'OK\n', result.stderr);
          assert.equal(result.code, 0);
          return;
        }
        assert.notEqual(result.code, 0, 'rejected');
        const output = result.stdout + result.stderr;
        if (folder === 'valid-unknown') assert.match(output, /Unknown directive/);
        if (shifted) {
          assert.ok(output.includes(`Unknown directive '${missing[0]}'`), `expected Unknown directive '${missing[0]}' in:\n${output}`);
          return;
        }
        for (const alternatives of expected!.messages) {
          assert.ok(
            alternatives.some((m) => output.toLowerCase().includes(m.toLowerCase())),
            `expected one of ${JSON.stringify(alternatives)} in:\n${output}`,
          );
        }
        assertPosition(output, basename(expected!.file ?? name), expected!);
      });
    }
  });
}
