import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { validateCorefile } from '@foghorn/core';
import { directivesOf } from '@foghorn/testkit';
import whoami from '@foghorn/plugin-whoami';
import errors from '@foghorn/plugin-errors';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

test('the README has the sections of a CoreDNS plugin page', () => {
  const headings = [...readme.matchAll(/^##? (.+)$/gm)].map((m) => m[1]);
  for (const section of ['errors', 'Name', 'Description', 'Syntax', 'Metrics', 'Examples', 'See Also']) {
    assert.ok(headings.includes(section), `missing section ${section}`);
  }
});

test('every corefile example in the README is a valid Corefile', async () => {
  const blocks = [...readme.matchAll(/~~~ corefile\n([\s\S]*?)~~~/g)].map((m) => m[1]!);
  assert.ok(blocks.length >= 1);
  for (const contents of blocks) await validateCorefile({ path: 'README', contents }, { directives: directivesOf(errors, whoami) });
});
