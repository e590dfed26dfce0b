import assert from 'node:assert/strict';
import { test } from 'node:test';
import { definePlugin, validateCorefile } from '@foghorn/core';
import { directivesOf } from '@foghorn/testkit';
import whoami from '@foghorn/plugin-whoami';
import ready, { parseReady } from '../src/index.js';
import type { ReadyOptions } from '../src/index.js';

/** Runs parseReady on `ready` lines through the real Corefile parser and dispenser. */
async function parse(lines: string): Promise<ReadyOptions> {
  let parsed: ReadyOptions | undefined;
  const probe = definePlugin({ name: 'ready', setup: (c) => void (parsed = parseReady(c)) });
  await validateCorefile({ path: 'Corefile', contents: `example.org {\n${lines}\n    whoami\n}\n` }, { directives: directivesOf(probe, whoami) });
  assert.ok(parsed);
  return parsed;
}

const good: { input: string; want: ReadyOptions }[] = [
  { input: '    ready', want: { address: ':8181', monitor: 'until-ready' } },
  { input: '    ready localhost:8091', want: { address: 'localhost:8091', monitor: 'until-ready' } },
  { input: '    ready 127.0.0.1:0', want: { address: '127.0.0.1:0', monitor: 'until-ready' } },
  { input: '    ready {\n        monitor continuously\n    }', want: { address: ':8181', monitor: 'continuously' } },
  { input: '    ready :8182 {\n        monitor until-ready\n    }', want: { address: ':8182', monitor: 'until-ready' } },
];

for (const { input, want } of good) {
  test(`ready parses ${JSON.stringify(input.trim())}`, async () => {
    assert.deepEqual(await parse(input), want);
  });
}

const bad: { input: string; error: string }[] = [
  { input: '    ready foo', error: 'Corefile:2:11 - Error during parsing: address foo: missing port in address' },
  { input: '    ready :80 :81', error: "Corefile:2:15 - Error during parsing: Wrong argument count or unexpected line ending after ':81'" },
  { input: '    ready\n    ready', error: 'Corefile:3:5 - Error during parsing: this plugin can only be used once per Server Block' },
  { input: '    ready {\n        monitor\n    }', error: "Corefile:3:9 - Error during parsing: Wrong argument count or unexpected line ending after 'monitor'" },
  { input: '    ready {\n        monitor a b\n    }', error: "Wrong argument count or unexpected line ending after 'b'" },
  { input: '    ready {\n        monitor sometimes\n    }', error: "Corefile:3:17 - Error during parsing: monitor type 'sometimes' not supported" },
  { input: '    ready {\n        foo\n    }', error: "Corefile:3:9 - Error during parsing: unknown property 'foo'" },
];

for (const { input, error } of bad) {
  test(`ready rejects ${JSON.stringify(input.trim())}`, async () => {
    await assert.rejects(parse(input), (e: Error) => {
      assert.ok(e.message.includes(error), `${e.message}\n  does not contain\n${error}`);
      return true;
    });
  });
}

test('ready errors are wrapped as plugin/ready with the position', async () => {
  await assert.rejects(
    validateCorefile({ path: 'Corefile', contents: 'example.org {\n    ready\n    ready\n}\n' }, { directives: directivesOf(ready) }),
    { message: 'plugin/ready: Corefile:3:5 - Error during parsing: this plugin can only be used once per Server Block' },
  );
});
