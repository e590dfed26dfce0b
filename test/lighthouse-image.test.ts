import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { runCli } from './cli-helpers.js';

/** Lighthouse's main.go directive list, one per line (the fixture names its source). */
const lighthouseDirectives = readFileSync(new URL('../lighthouse-directives.txt', import.meta.url), 'utf8')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('#'));

test("foghorn -plugins lists every directive of Lighthouse's image (coredns/main.go)", async () => {
  assert.equal(lighthouseDirectives.length, 38, 'main.go compiles in 38 directives');
  const result = await runCli(['-plugins']);
  assert.equal(result.code, 0, result.stderr);
  const ours = new Set(result.stdout.trim().split('\n').map((line) => line.split('\t')[0]));
  assert.deepEqual(lighthouseDirectives.filter((name) => !ours.has(name)), [], 'directives of the Lighthouse image Foghorn lacks');
});
