import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { validateCorefile } from '@foghorn/core';
import { directivesOf } from '@foghorn/testkit';
import whoami from '@foghorn/plugin-whoami';
import cache from '@foghorn/plugin-cache';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

test('the README has the CoreDNS sections and every metric metrics.ts defines', () => {
  for (const section of ['# cache', '## Name', '## Description', '## Syntax', '## Metrics', '## Examples', '## See Also']) {
    assert.ok(readme.includes(`\n${section}\n`) || readme.startsWith(`${section}\n`), section);
  }
  for (const name of ['entries', 'hits_total', 'misses_total', 'requests_total', 'prefetch_total', 'drops_total', 'served_stale_total', 'evictions_total']) {
    assert.ok(readme.includes(`coredns_cache_${name}{`), name);
  }
});

test('every corefile example in the README is a valid Corefile', async () => {
  const blocks = [...readme.matchAll(/~~~ corefile\n([\s\S]*?)~~~/g)].map((m) => m[1]!);
  assert.ok(blocks.length >= 3);
  for (const contents of blocks) {
    await validateCorefile({ path: 'Corefile', contents }, { directives: directivesOf(cache, whoami) });
  }
});
