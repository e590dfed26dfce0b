/**
 * The README test every plugin runs: the page has CoreDNS's plugin-page sections in CoreDNS's
 * order, and every `~~~ corefile` example is a Corefile the real plugins accept.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { validateCorefile } from '@foghorn/core';
import type { DirectiveEntry } from '@foghorn/core';

export interface ReadmeCheck {
  /** The plugin's name: the page's `# NAME` title. */
  readonly name: string;
  /** The plugins the examples use (directivesOf(...) in the real directive order). */
  readonly directives: readonly DirectiveEntry[];
  /** `##` sections the page must have besides the standard ones, between Syntax and Examples (`Metrics`, `Ready`). */
  readonly sections?: readonly string[];
  /** How many `~~~ corefile` examples there must be at least; default 1. */
  readonly minExamples?: number;
  /** Environment for `{$NAME}` placeholders in the examples. */
  readonly env?: Readonly<Record<string, string>>;
}

/** The text of every `~~~ LANG` fenced block of `markdown`. */
function fencedBlocks(markdown: string, lang: string): string[] {
  return [...markdown.matchAll(new RegExp(`^~~~ ${lang}\\n([\\s\\S]*?)^~~~`, 'gm'))].map((m) => m[1] ?? '');
}

/** Registers the README tests for the README at `readme` (a path or a file URL). */
export function checkPluginReadme(readme: string | URL, check: ReadmeCheck): void {
  const text = readFileSync(readme, 'utf8');

  test('the README has the sections of a CoreDNS plugin page, in order', () => {
    const headings = [...text.matchAll(/^(##?) (.+)$/gm)].map((m) => `${m[1]} ${m[2]}`);
    const wanted = [`# ${check.name}`, '## Name', '## Description', '## Syntax', ...(check.sections ?? []).map((s) => `## ${s}`), '## Examples', '## See Also'];
    let last = -1;
    for (const section of wanted) {
      const at = headings.indexOf(section);
      assert.ok(at >= 0, `missing section ${section}`);
      assert.ok(at > last, `section ${section} is out of order`);
      last = at;
    }
    assert.ok(fencedBlocks(text, 'txt').length >= 1, 'no ~~~ txt syntax block');
  });

  test('every corefile example in the README is a valid Corefile', async () => {
    const examples = fencedBlocks(text, 'corefile');
    assert.ok(examples.length >= (check.minExamples ?? 1), `only ${examples.length} corefile examples`);
    for (const [i, contents] of examples.entries()) {
      // The path names the example in the error: `README example 2:3:5 - ...`.
      await validateCorefile({ path: `README example ${i + 1}`, contents }, { directives: check.directives, ...(check.env ? { env: check.env } : {}) });
    }
  });
}
