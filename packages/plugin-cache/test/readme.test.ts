import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import whoami from '@foghorn/plugin-whoami';
import cache from '@foghorn/plugin-cache';

const readme = new URL('../../README.md', import.meta.url);

checkPluginReadme(readme, { name: 'cache', directives: directivesOf(cache, whoami), sections: ['Metrics'], minExamples: 3 });

test('the README lists every metric metrics.ts defines', () => {
  const text = readFileSync(readme, 'utf8');
  for (const name of ['entries', 'hits_total', 'misses_total', 'requests_total', 'prefetch_total', 'drops_total', 'served_stale_total', 'evictions_total']) {
    assert.ok(text.includes(`coredns_cache_${name}{`), name);
  }
});
