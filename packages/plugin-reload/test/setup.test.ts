import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCorefile } from '@foghorn/core/wire';
import { setupTable } from '@foghorn/testkit';
import type { BadCase, GoodCase } from '@foghorn/testkit';
import reload, { parseReload } from '../src/index.js';
import { corefileJson, hashCorefile } from '../src/hash.js';
import { reloadPeriodMs } from '../src/setup.js';
import type { ReloadOptions } from '../src/index.js';

const good: GoodCase<ReloadOptions>[] = [
  { input: '    reload', want: { intervalMs: 30_000, jitterMs: 15_000 } },
  { input: '    reload 10s', want: { intervalMs: 10_000, jitterMs: 5_000 } }, // jitter cut to interval/2
  { input: '    reload 1m 10s', want: { intervalMs: 60_000, jitterMs: 10_000 } },
  { input: '    reload 2s 0', want: { intervalMs: 2_000, jitterMs: 0 } },
  { input: '    reload 2s 1s', want: { intervalMs: 2_000, jitterMs: 1_000 } },
  { input: '    reload 3s 2s', want: { intervalMs: 3_000, jitterMs: 1_500 } },
];

const bad: BadCase[] = [
  { input: '    reload 1s', error: 'Corefile:2:12 - Error during parsing: interval value must be greater or equal to 2s' },
  { input: '    reload 1999ms', error: 'Corefile:2:12 - Error during parsing: interval value must be greater or equal to 2s' },
  { input: '    reload 10s 500ms', error: 'Corefile:2:16 - Error during parsing: jitter value must be 0 or greater or equal to 1s' },
  { input: '    reload x', error: 'Corefile:2:12 - Error during parsing: time: invalid duration "x"' },
  { input: '    reload 10', error: 'Corefile:2:12 - Error during parsing: time: missing unit in duration "10"' },
  { input: '    reload 10s 1d', error: 'Corefile:2:16 - Error during parsing: time: unknown unit "d" in duration "1d"' },
  { input: '    reload 10s 1s 1s', error: "Corefile:2:19 - Error during parsing: Wrong argument count or unexpected line ending after '1s'" },
  { input: '    reload 10s {\n        foo\n    }', error: "Corefile:3:9 - Error during parsing: unknown property 'foo'" },
];

setupTable('reload', parseReload, { good, bad, plugin: reload });

test('the period is the interval plus a draw from minus to plus half the jitter', () => {
  const options = { intervalMs: 30_000, jitterMs: 10_000 };
  assert.equal(reloadPeriodMs(options, () => 0), 25_000);
  assert.equal(reloadPeriodMs(options, () => 0.5), 30_000);
  assert.equal(reloadPeriodMs(options, () => 0.9999999), 34_999);
  assert.equal(reloadPeriodMs({ intervalMs: 2_000, jitterMs: 0 }, () => 0), 2_000);
});

test('the hash covers parsed tokens as CoreDNS serialises them, not bytes', () => {
  const a = 'example.org {\n    whoami\n    log\n}\n';
  assert.equal(
    corefileJson(parseCorefile(a, { file: 'Corefile' })),
    '[{"Keys":["example.org"],"Tokens":{"log":[{"File":"Corefile","Line":3,"Text":"log"}],"whoami":[{"File":"Corefile","Line":2,"Text":"whoami"}]}}]',
  );
  assert.equal(corefileJson([]), 'null');
  assert.match(corefileJson(parseCorefile('. {\n    template "<&>"\n}\n')), /"Text":"\\u003c\\u0026\\u003e"/);
  const hash = hashCorefile({ path: 'Corefile', contents: a });
  assert.match(hash, /^[0-9a-f]{128}$/);
  // Spaces within a line and comments that move no token change nothing...
  assert.equal(hashCorefile({ path: 'Corefile', contents: 'example.org   {\n    whoami # me\n    log\n}\n' }), hash);
  // ...a token moving to another line does.
  assert.notEqual(hashCorefile({ path: 'Corefile', contents: '\nexample.org {\n    whoami\n    log\n}\n' }), hash);
});
