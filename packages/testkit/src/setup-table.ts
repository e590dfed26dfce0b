/**
 * Table tests for a plugin's option parser, through the real Corefile parser and dispenser:
 * each input is a server block body, each case either the options it yields or the error it
 * raises. Every error must carry its position (`plugin/NAME: Corefile:LINE:COLUMN - ...`).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { definePlugin } from '@foghorn/core';
import type { Controller, PluginDefinition } from '@foghorn/core';
import { validateCorefile } from '@foghorn/core/server';

/** Where a table's inputs are parsed: the server block key and the Corefile's environment. */
export interface ParseContext {
  /** Server block key(s) around the body; default `example.org`. */
  readonly key?: string;
  /** Environment for `{$NAME}` placeholders. */
  readonly env?: Readonly<Record<string, string>>;
}

/** Validates `KEY {\n BODY\n}` with `plugin` as the only directive, named `directive`. */
async function validateBody(directive: string, plugin: PluginDefinition, body: string, where: string | ParseContext): Promise<void> {
  const { key = 'example.org', env } = typeof where === 'string' ? { key: where } : where;
  await validateCorefile(
    { path: 'Corefile', contents: `${key} {\n${body}\n}\n` },
    { directives: [{ name: directive, load: () => plugin }], ...(env ? { env } : {}) },
  );
}

/**
 * Runs `parse` on the directive's tokens of `body` (the lines inside `KEY { ... }`), exactly as
 * setup would see them, and returns what it returned. `where` is the key, or key and environment.
 */
export async function parseDirective<T>(directive: string, parse: (c: Controller) => T, body: string, where: string | ParseContext = {}): Promise<T> {
  let parsed: { value: T } | undefined;
  const probe = definePlugin({
    name: directive,
    setup(c) {
      parsed = { value: parse(c) };
    },
  });
  await validateBody(directive, probe, body, where);
  assert.ok(parsed, `${directive} setup did not run`);
  return parsed.value;
}

/** One accepted input and the options it must give. */
export interface GoodCase<T> {
  readonly input: string;
  readonly want: T;
  /** Server block key for this case only. */
  readonly key?: string;
}

/**
 * One refused input and its error: when `error` starts with `Corefile:` the message must start
 * with `plugin/NAME: ` and then `error` (position pinned); otherwise it must contain `error`.
 */
export interface BadCase {
  readonly input: string;
  readonly error: string;
  /** Server block key for this case only. */
  readonly key?: string;
}

/** A table: accepted and refused inputs, and where they are parsed. */
export interface SetupCases<W> extends ParseContext {
  readonly good?: readonly GoodCase<W>[];
  readonly bad?: readonly BadCase[];
  /** The real plugin: its setup must refuse every bad input with the same error as `parse`. */
  readonly plugin?: PluginDefinition;
}

/** What a test title shows of an input: one line, at most 70 characters. */
function title(input: string, key: string | undefined): string {
  const line = input.replace(/\s+/g, ' ').trim();
  const shown = JSON.stringify(line.length > 70 ? `${line.slice(0, 69)}…` : line);
  return key === undefined ? shown : `${shown} in block ${key}`;
}

/**
 * Registers one test per case: `<directive> accepts …` (the result deep-equals `want`) and
 * `<directive> rejects …` (and so does `plugin`'s setup, when given). With `partial: true` a `want`
 * lists only the fields it checks.
 */
export function setupTable<T>(directive: string, parse: (c: Controller) => T, cases: SetupCases<T>): void;
export function setupTable<T extends object>(directive: string, parse: (c: Controller) => T, cases: SetupCases<Partial<T>> & { readonly partial: true }): void;
export function setupTable<T>(directive: string, parse: (c: Controller) => T, cases: SetupCases<T> & { readonly partial?: boolean }): void {
  const where = (key: string | undefined): ParseContext => ({ key: key ?? cases.key, ...(cases.env ? { env: cases.env } : {}) });
  for (const { input, want, key } of cases.good ?? []) {
    test(`${directive} accepts ${title(input, key)}`, async () => {
      const got = await parseDirective(directive, parse, input, where(key));
      if (!cases.partial) return assert.deepEqual(got, want);
      for (const [field, value] of Object.entries(want as object)) assert.deepEqual((got as Record<string, unknown>)[field], value, field);
    });
  }
  for (const { input, error, key } of cases.bad ?? []) {
    const prefix = `plugin/${directive}: `;
    const matches = (e: Error): true => {
      if (error.startsWith('Corefile:')) {
        assert.ok(e.message.startsWith(`${prefix}${error}`), `${e.message}\n  does not start with\n${prefix}${error}`);
      } else {
        assert.ok(e.message.startsWith(`${prefix}Corefile:`), `${e.message}\n  has no position`);
        assert.ok(e.message.includes(error), `${e.message}\n  does not contain\n${error}`);
      }
      return true;
    };
    test(`${directive} rejects ${title(input, key)}`, async () => {
      await assert.rejects(parseDirective(directive, parse, input, where(key)), matches);
      if (cases.plugin) await assert.rejects(validateBody(directive, cases.plugin, input, where(key)), matches);
    });
  }
}
