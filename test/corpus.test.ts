/**
 * Every real-world Corefile of the corpus (`../shared/corefile-corpus`, beside the repository)
 * checked against its verdict, as its README gives the rules: `valid/` must validate, `invalid/`
 * must fail at the given position with the given message, and a `valid-unknown/` case is valid
 * once every directive of its `uses:` line exists, else it must fail with `Unknown directive`
 * naming the first one missing.
 *
 * The cases run in-process through `validateCorefile` with the distribution's directive list,
 * which is what `foghorn -validate` does; a few also run through the CLI to keep the two honest.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { createLogger } from '@foghorn/core';
import { validateCorefile } from '@foghorn/core/server';
import { standardDirectives } from 'foghorn';
import { repoRoot, runCli } from './cli-helpers.js';

const corpus = resolve(repoRoot, '../shared/corefile-corpus');

interface Expectation {
  lines: number[];
  column?: number;
  file?: string;
  uses: string[];
  messages: string[][];
}

interface Verdict {
  ok: boolean;
  output: string;
}

function readEnv(caseFile: string): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env };
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
  const expectation: Expectation = { lines: [], uses: [], messages: [] };
  for (const raw of readFileSync(caseFile.replace(/\.conf$/, '.expect'), 'utf8').split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const colon = line.indexOf(':');
    const key = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (key === 'line') expectation.lines = value.split('|').map((n) => Number(n.trim()));
    else if (key === 'column') expectation.column = Number(value);
    else if (key === 'file') expectation.file = value;
    else if (key === 'uses') expectation.uses = value.split(/\s+/);
    else if (key === 'message') expectation.messages.push(value.split(' || ').map((m) => m.trim()));
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

/**
 * Cases whose `uses:` directives all exist but which no CoreDNS accepts either, so the rule's
 * "valid" cannot hold; each gets the verdict CoreDNS v1.14.7 gives instead, asserted below.
 */
const refusedByCoreDns: Readonly<Record<string, { message: RegExp; why: string }>> = {
  'coredns-readme-quic-tls.conf': {
    message: /quic-tls\.conf:1:1 - Error during parsing: quic:\/\/ server blocks are not supported/,
    why: "a README fragment: its certificate files do not exist (CoreDNS: could not load TLS cert: open mycert), and DoQ is not served",
  },
};

const directives = standardDirectives();
const known = new Set(directives.map((entry) => entry.name));

/**
 * `foghorn -validate -conf FILE` in-process: the case's environment, its folder as working
 * directory (relative paths in a Corefile are relative to it), the error message as the CLI
 * prints it, warnings as they would reach stderr.
 */
async function validate(file: string): Promise<Verdict> {
  const lines: string[] = [];
  const logger = createLogger((line) => lines.push(line));
  const cwd = process.cwd();
  process.chdir(dirname(file));
  try {
    await validateCorefile({ path: file, contents: readFileSync(file, 'utf8') }, { directives, dnsPort: 53, logger, env: readEnv(file) });
    return { ok: true, output: lines.join('\n') };
  } catch (error) {
    assert.ok(error instanceof Error, `a thrown Error, not ${String(error)}`);
    return { ok: false, output: [...lines, error.message].join('\n') };
  } finally {
    process.chdir(cwd);
  }
}

function assertValid(verdict: Verdict): void {
  assert.doesNotMatch(verdict.output, /\[ERROR\]/);
  assert.ok(verdict.ok, verdict.output);
}

function assertRejected(verdict: Verdict, name: string, expected: Expectation, checkPosition = true): void {
  assert.ok(!verdict.ok, 'rejected');
  assert.doesNotMatch(verdict.output, /\n\s+at .+:\d+:\d+/, 'a clear error, not a stack trace');
  for (const alternatives of expected.messages) {
    assert.ok(
      alternatives.some((m) => verdict.output.toLowerCase().includes(m.toLowerCase())),
      `expected one of ${JSON.stringify(alternatives)} in:\n${verdict.output}`,
    );
  }
  if (checkPosition) assertPosition(verdict.output, basename(expected.file ?? name), expected);
}

test('the corpus is beside the repository', () => {
  assert.ok(existsSync(corpus), `no Corefile corpus at ${corpus}: clone the repository next to ../shared`);
});

test('corpus valid/: every case validates', async (t) => {
  const files = cases('valid');
  assert.ok(files.length > 0);
  for (const file of files) {
    const verdict = await validate(file);
    await t.test(basename(file), () => assertValid(verdict));
  }
});

test('corpus invalid/: every case is rejected at its position', async (t) => {
  const files = cases('invalid');
  assert.ok(files.length > 0);
  for (const file of files) {
    const verdict = await validate(file);
    await t.test(basename(file), () => assertRejected(verdict, basename(file), readExpect(file)));
  }
});

test('corpus valid-unknown/: valid once every directive it uses exists, else Unknown directive', async (t) => {
  const files = cases('valid-unknown');
  assert.ok(files.length > 0);
  for (const file of files) {
    const expected = readExpect(file);
    assert.ok(expected.uses.length > 0, `${basename(file)} has a uses: line`);
    const missing = expected.uses.filter((name) => !known.has(name));
    const verdict = await validate(file);
    await t.test(`${basename(file)} (missing: ${missing.join(' ') || 'none'})`, () => {
      const refused = refusedByCoreDns[basename(file)];
      if (missing.length === 0 && refused) {
        assert.ok(!verdict.ok, `rejected: ${refused.why}`);
        return assert.match(verdict.output, refused.message);
      }
      if (missing.length === 0) return assertValid(verdict);
      assert.match(verdict.output, new RegExp(`Unknown directive '${escape(missing[0]!)}'`));
      // The expectation's position and message describe the error while the first directive is missing.
      if (missing[0] === expected.uses[0]) assertRejected(verdict, basename(file), expected);
      else assertRejected(verdict, basename(file), { ...expected, messages: [] }, false);
    });
  }
});

test('the CLI gives the in-process verdicts', async () => {
  const valid = join(corpus, 'valid', 'coredns-readme-whoami.conf');
  const ok = await runCli(['-validate', '-conf', valid], { cwd: dirname(valid) });
  assert.equal(ok.stdout, 'OK\n', ok.stderr);
  assert.equal(ok.code, 0);

  for (const file of cases('invalid').slice(0, 2)) {
    const result = await runCli(['-validate', '-conf', file], { env: readEnv(file) as NodeJS.ProcessEnv, cwd: dirname(file) });
    assert.notEqual(result.code, 0);
    assert.equal(result.stdout, '');
    assert.doesNotMatch(result.stderr, /\n\s+at .+:\d+:\d+/);
    const inProcess = await validate(file);
    assert.ok(result.stderr.includes(inProcess.output.split('\n').at(-1)!), `${result.stderr} vs ${inProcess.output}`);
  }
});
