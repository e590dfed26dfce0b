/**
 * The README test every plugin runs: the page has CoreDNS's plugin-page sections in CoreDNS's
 * order, every `~~~ corefile` example is a Corefile the real plugins accept, and the Metrics
 * section lists exactly the metrics the plugin registers.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { validateCorefile } from '@foghorn/core/server';
import type { DirectiveEntry } from '@foghorn/core/server';
import { startServer } from './index.js';

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
  /**
   * Where the plugin's metrics are read from: `corefile` is served (on 127.0.0.1, port 0) with
   * `directives` and every metric it registers beyond core's own must be listed in the Metrics
   * section, and every metric listed must be registered. A plugin with no metrics has no
   * Metrics section or says "None." there, and registers nothing.
   */
  readonly metrics: { readonly corefile: string };
}

/**
 * Metric names the Metrics section lists: backticked names with an underscore in the section's
 * bullet items (`coredns_cache_hits_total{server, type}`); `process_*` lists a family by prefix.
 * Prose paragraphs are not read, so the section can name metrics that are not exported.
 */
export function listedMetrics(markdown: string): string[] {
  const section = /^## Metrics\n([\s\S]*?)(?=^## )/m.exec(markdown)?.[1] ?? '';
  const bullets = section.split(/\n(?=\* )|\n\s*\n/).filter((item) => item.startsWith('* '));
  const names = bullets.flatMap((item) => [...item.matchAll(/`([a-z][a-z0-9]*(?:_[a-z0-9]+)*_(?:[a-z0-9]+|\*))(?:\{[^`]*)?`/g)].map((m) => m[1]!));
  return [...new Set(names)].sort();
}

/** Names of the metrics a server started from `corefile` has registered. */
async function registeredMetrics(corefile: string, directives: readonly DirectiveEntry[]): Promise<Set<string>> {
  const server = await startServer(corefile, { directives });
  try {
    return new Set((await server.server.registry.getMetricsAsJSON()).map((metric) => metric.name));
  } finally {
    await server.close();
  }
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

  test('the Metrics section lists exactly the metrics the plugin registers', async () => {
    // Core registers a few of its own (coredns_panics_total); a block with no plugin shows them.
    const core = await registeredMetrics('.:0 {\n}\n', check.directives);
    const registered = [...(await registeredMetrics(check.metrics.corefile, check.directives))].filter((name) => !core.has(name));
    const listed = listedMetrics(text);
    const families = listed.filter((name) => name.endsWith('_*')).map((name) => name.slice(0, -1));
    for (const family of families) assert.ok(registered.some((name) => name.startsWith(family)), `the README lists ${family}* but nothing of it is registered`);
    const exact = registered.filter((name) => !families.some((family) => name.startsWith(family))).sort();
    assert.deepEqual(exact, listed.filter((name) => !name.endsWith('_*')), 'registered (left) against listed in ## Metrics (right)');
  });
}
