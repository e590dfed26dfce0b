import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CorefileError, parseCorefile, type ServerBlock } from '../src/index.js';

// dist/test → dist → corefile → packages → repo root; the corpus sits beside the repo in ../shared.
// (testkit's sharedPath/requireFixture do this for other packages; corefile sits below testkit.)
const corpus = fileURLToPath(new URL('../../../../../shared/corefile-corpus/', import.meta.url));
if (!existsSync(corpus)) throw new Error(`the Corefile corpus at ${corpus} is missing: clone the repository beside ../shared`);

/** The environment of a case: ours plus its NAME.env (KEY=VALUE, `unset KEY`, @CASEDIR@, @CORPUS@). */
function caseEnv(conf: string, dir: string): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env };
  const envFile = conf.replace(/\.conf$/, '.env');
  if (!existsSync(envFile)) return env;
  for (const raw of readFileSync(envFile, 'utf8').split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const unset = /^unset\s+(\S+)$/.exec(line);
    if (unset?.[1] !== undefined) {
      delete env[unset[1]];
      continue;
    }
    const eq = raw.indexOf('=');
    if (eq === -1) continue;
    let value = raw.slice(eq + 1).replace(/\r$/, '');
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    env[raw.slice(0, eq).trim()] = value.replaceAll('@CASEDIR@', dir).replaceAll('@CORPUS@', corpus.replace(/\/$/, ''));
  }
  return env;
}

function cases(folder: string): string[] {
  const dir = join(corpus, folder);
  return readdirSync(dir)
    .filter((name) => name.endsWith('.conf'))
    .sort()
    .map((name) => join(dir, name));
}

function parseCase(conf: string, isDirective?: (name: string) => boolean): ServerBlock[] {
  const dir = join(conf, '..');
  return parseCorefile(readFileSync(conf, 'utf8'), {
    file: conf,
    env: caseEnv(conf, dir),
    warn: () => {},
    ...(isDirective === undefined ? {} : { isDirective }),
  });
}

// Every directive the valid cases use: a stand-in for Foghorn's directive list.
const known = new Set<string>();

test('corpus: every valid/ Corefile parses', async (t) => {
  for (const conf of cases('valid')) {
    await t.test(basename(conf), () => {
      for (const block of parseCase(conf)) for (const d of block.directives) known.add(d.name);
    });
  }
  assert.ok(known.has('forward'));
});

test('corpus: every valid-unknown/ Corefile parses without a directive list', async (t) => {
  for (const conf of cases('valid-unknown')) {
    await t.test(basename(conf), () => {
      parseCase(conf);
    });
  }
});

test('corpus: with the valid/ directives, valid-unknown/ fails with its expected Unknown directive', async (t) => {
  for (const conf of cases('valid-unknown')) {
    const expectFile = conf.replace(/\.conf$/, '.expect');
    await t.test(basename(conf), () => {
      const expected = new Map<string, string>();
      for (const line of readFileSync(expectFile, 'utf8').split('\n')) {
        const m = /^(\w+):\s*(.*)$/.exec(line.trim());
        if (m?.[1] !== undefined && m[2] !== undefined) expected.set(m[1], m[2]);
      }
      assert.throws(
        () => parseCase(conf, (name) => known.has(name)),
        (error: unknown) => {
          assert.ok(error instanceof CorefileError);
          const file = expected.get('file');
          assert.equal(error.file, file === undefined ? conf : join(conf, '..', file));
          assert.ok(expected.get('line')?.split('|').map((l) => Number(l.trim())).includes(error.line), error.message);
          const column = expected.get('column');
          if (column !== undefined) assert.equal(error.column, Number(column));
          assert.ok(error.message.toLowerCase().includes(expected.get('message')?.toLowerCase() ?? '?'), error.message);
          return true;
        },
      );
    });
  }
});
