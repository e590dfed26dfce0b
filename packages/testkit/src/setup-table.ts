/**
 * Table tests for a plugin's option parser, through the real Corefile parser and dispenser:
 * each input is a server block body, each case either the options it yields or the error
 * (matched by substring, so it can pin `Corefile:LINE:COLUMN`).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { definePlugin, validateCorefile } from '@foghorn/core';
import type { Controller } from '@foghorn/core';

/**
 * Runs `parse` on the directive's tokens of `body` (the lines inside `KEY { ... }`), exactly as
 * setup would see them, and returns what it returned.
 */
export async function parseDirective<T>(directive: string, parse: (c: Controller) => T, body: string, key = 'example.org'): Promise<T> {
  let parsed: { value: T } | undefined;
  const probe = definePlugin({
    name: directive,
    setup(c) {
      parsed = { value: parse(c) };
    },
  });
  await validateCorefile({ path: 'Corefile', contents: `${key} {\n${body}\n}\n` }, { directives: [{ name: directive, load: () => probe }] });
  assert.ok(parsed, `${directive} setup did not run`);
  return parsed.value;
}

/** One accepted input and the options it must give. */
export interface GoodCase<T> {
  readonly input: string;
  readonly want: T;
}

/** One refused input and a substring of its error message. */
export interface BadCase {
  readonly input: string;
  readonly error: string;
}

/** Registers one test per case: `<directive> accepts …` and `<directive> rejects …`. */
export function setupTable<T>(
  directive: string,
  parse: (c: Controller) => T,
  cases: { readonly good?: readonly GoodCase<T>[]; readonly bad?: readonly BadCase[]; readonly key?: string },
): void {
  for (const { input, want } of cases.good ?? []) {
    test(`${directive} accepts ${JSON.stringify(input.trim())}`, async () => {
      assert.deepEqual(await parseDirective(directive, parse, input, cases.key), want);
    });
  }
  for (const { input, error } of cases.bad ?? []) {
    test(`${directive} rejects ${JSON.stringify(input.trim())}`, async () => {
      await assert.rejects(parseDirective(directive, parse, input, cases.key), (e: Error) => {
        assert.ok(e.message.includes(error), `${e.message}\n  does not contain\n${error}`);
        return true;
      });
    });
  }
}
