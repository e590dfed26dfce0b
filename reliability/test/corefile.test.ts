/**
 * Property-based tests of the Corefile parser: random token soups and the real Corefiles of the
 * corpus (`../shared/corefile-corpus`, beside the repository) mutated by deletions, insertions
 * of syntax characters and keywords, line swaps and duplications. Every input gives either a
 * parse or a CorefileError with a file:line:column position, within a bounded time: never an
 * exception from inside the lexer (chevrotain) or the parser, never a hang.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { CorefileError, parseCorefile } from '@foghorn/corefile';
import { standardDirectives } from 'foghorn';
import { repoRoot } from '../harness.js';

const corpus = resolve(repoRoot, '../shared/corefile-corpus');
const RUNS = 1000;
/** Far above any real parse (a few ms): a parse this slow is a hang in the making. */
const PARSE_BUDGET_MS = 2000;

/** Every `.conf` case of the corpus with its text; a missing corpus fails the test. */
function corpusFiles(): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = [];
  for (const group of ['valid', 'valid-unknown', 'invalid']) {
    const dir = join(corpus, group);
    for (const name of readdirSync(dir)) {
      const file = join(dir, name);
      if (name.endsWith('.conf') && statSync(file).isFile()) out.push({ file, text: readFileSync(file, 'utf8') });
    }
  }
  return out;
}

const names = new Set<string>(standardDirectives().map((entry) => entry.name));
const isDirective = (name: string): boolean => names.has(name);

/** Parses and checks the outcome; returns what happened for the counters. */
function parseChecked(text: string, file: string, withDirectives: boolean): 'parsed' | 'error' {
  const started = performance.now();
  try {
    parseCorefile(text, { file, env: { FOO: 'bar', EMPTY: '' }, ...(withDirectives ? { isDirective, directiveNames: names } : {}), warn: () => {} });
    return 'parsed';
  } catch (error) {
    if (!(error instanceof CorefileError)) throw new Error(`not a CorefileError: ${(error as Error)?.stack ?? String(error)}\ninput: ${JSON.stringify(text)}`);
    assert.ok(error.line >= 1 && error.column >= 1, `position ${error.line}:${error.column}`);
    assert.ok(error.message.includes(`:${error.line}:${error.column}`) || error.message.includes(`${error.file}:${error.line}`), `message names its position: ${error.message}`);
    return 'error';
  } finally {
    const took = performance.now() - started;
    assert.ok(took < PARSE_BUDGET_MS, `parse took ${took.toFixed(0)} ms: ${JSON.stringify(text.slice(0, 200))}`);
  }
}

/** Syntax of the language and its edges: braces, quotes, escapes, env, snippets, imports, keys. */
const tokens = [
  '{', '}', '(', ')', '"', "'", '`', '\\', '\n', '\r\n', ' ', '\t', '#', '# comment\n', '.', ':', ':53', '.:53', 'dns://', 'tls://.:853', 'https://', 'grpc://',
  'example.org', 'clusterset.local:1053', '10.0.0.0/8', '[::1]:53', '{$FOO}', '{$UNSET}', '{%FOO%}', '{$', '$}', '{$FOO', '{env.FOO}',
  'import', '(snippet)', 'snippet', 'import snippet', 'import *', 'import nonexistent', 'import aks-custom/*.server', '*', '**',
  'forward', 'cache', 'log', 'errors', 'whoami', 'lighthouse', 'health', 'prometheus', 'reload', 'bind', 'hosts', 'loop', 'unknowndirective',
  '. 8.8.8.8', '30', '5s', '-1', '65536', 'ünïcödé', '\u0000', '\uFEFF', '\u2028', 'a'.repeat(300), '{{', '}}', '""', '"unterminated', '\\\n',
];
const tokenSoup = fc.array(fc.constantFrom(...tokens), { maxLength: 60 }).map((parts) => parts.join(''));

type Edit = { at: number; kind: 'delete' | 'insert' | 'swap' | 'duplicate'; length: number; token: string };
const edit: fc.Arbitrary<Edit> = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom('delete', 'insert', 'swap', 'duplicate'),
  length: fc.integer({ min: 1, max: 40 }),
  token: fc.constantFrom(...tokens),
});

function applyEdits(text: string, edits: readonly Edit[]): string {
  let out = text;
  for (const e of edits) {
    const at = out.length === 0 ? 0 : e.at % (out.length + 1);
    if (e.kind === 'delete') out = out.slice(0, at) + out.slice(at + e.length);
    else if (e.kind === 'insert') out = out.slice(0, at) + e.token + out.slice(at);
    else {
      const lines = out.split('\n');
      const i = e.at % lines.length;
      const j = (e.at + e.length) % lines.length;
      if (e.kind === 'duplicate') lines.splice(i, 0, lines[i]!);
      else [lines[i], lines[j]] = [lines[j]!, lines[i]!];
      out = lines.join('\n');
    }
  }
  return out;
}

test('random token soups: a parse or a positioned CorefileError, quickly, never another exception', () => {
  const seen = { parsed: 0, error: 0 };
  fc.assert(
    fc.property(tokenSoup, fc.boolean(), (text, withDirectives) => {
      seen[parseChecked(text, join(corpus, 'valid', 'Corefile'), withDirectives)]++;
    }),
    { numRuns: RUNS },
  );
  assert.ok(seen.parsed > 0 && seen.error > 0, `both outcomes drawn: ${JSON.stringify(seen)}`);
});

test('mutated corpus Corefiles: a parse or a positioned CorefileError, quickly, never another exception', () => {
  const files = corpusFiles();
  assert.ok(files.length > 100, `${files.length} corpus files under ${corpus}`);
  const seen = { parsed: 0, error: 0 };
  fc.assert(
    fc.property(fc.constantFrom(...files), fc.array(edit, { minLength: 1, maxLength: 6 }), fc.boolean(), (source, edits, withDirectives) => {
      seen[parseChecked(applyEdits(source.text, edits), source.file, withDirectives)]++;
    }),
    { numRuns: RUNS },
  );
  assert.ok(seen.parsed > 0 && seen.error > 0, `both outcomes drawn: ${JSON.stringify(seen)}`);
});

test('every corpus Corefile unmutated parses or fails with a position (the baseline of the mutations)', () => {
  for (const { file, text } of corpusFiles()) parseChecked(text, file, true);
});
