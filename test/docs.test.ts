/**
 * The documentation's own rules: the README stays a page for users (within its line budget; runs
 * and figures live in docs/performance.md and bench/results/), and every relative link in the
 * Markdown a reader follows points at a file that exists and, with a `#fragment`, at a heading
 * that exists in it, spelled as GitHub spells its anchors.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { repoRoot } from './cli-helpers.js';

/** The README's budget: quick start, the CLI, directives, deployment, a summary of figures. */
const readmeMaxLines = 350;

/** The Markdown pages whose links are checked, relative to the repository. */
function pages(): string[] {
  const inDir = (dir: string, deep = false): string[] =>
    existsSync(join(repoRoot, dir))
      ? readdirSync(join(repoRoot, dir), { withFileTypes: true }).flatMap((entry) => {
          const path = `${dir}/${entry.name}`;
          if (entry.isDirectory()) return deep && entry.name !== 'node_modules' && entry.name !== 'dist' ? inDir(path, deep) : [];
          return entry.name.endsWith('.md') ? [path] : [];
        })
      : [];
  const packageReadmes = readdirSync(join(repoRoot, 'packages'))
    .map((name) => `packages/${name}/README.md`)
    .filter((path) => existsSync(join(repoRoot, path)));
  const exampleReadmes = inDir('examples', true).filter((path) => path.endsWith('/README.md'));
  return ['README.md', 'bench/README.md', ...inDir('docs'), ...packageReadmes, ...exampleReadmes];
}

/** Markdown without its fenced blocks, where `#` starts no heading and link syntax is only text. */
const withoutFences = (markdown: string): string => markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
/** Markdown without its fenced blocks and inline code. */
const prose = (markdown: string): string => withoutFences(markdown).replace(/`[^`\n]*`/g, '');

/**
 * The anchors GitHub gives a page's headings: the heading's text without its Markdown, lower
 * case, everything but letters, digits, spaces, hyphens and underscores dropped, spaces as
 * hyphens; a repeated one gets `-1`, `-2`, ...
 */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading] of withoutFences(markdown).replace(/`([^`\n]*)`/g, '$1').matchAll(/^#{1,6} (.+?)\s*#*$/gm)) {
    const text = heading!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[*_]{1,2}([^*_]+)[*_]{1,2}/g, '$1');
    const slug = text.toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

/** The relative link targets of a page: `[text](target)`, without web addresses. */
function relativeLinks(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

test(`the README stays a page for users: at most ${readmeMaxLines} lines`, () => {
  const lines = readFileSync(join(repoRoot, 'README.md'), 'utf8').trimEnd().split('\n').length;
  assert.ok(lines <= readmeMaxLines, `README.md has ${lines} lines; move benchmark runs to bench/results/ and the why to docs/performance.md`);
});

test('every relative link in the README, docs, bench and package pages resolves, #anchors included', () => {
  const checked = pages();
  assert.ok(checked.length > 30, `found the pages: ${checked.length}`);
  const broken: string[] = [];
  let links = 0;
  for (const page of checked) {
    const text = readFileSync(join(repoRoot, page), 'utf8');
    for (const link of relativeLinks(text)) {
      links++;
      const [path = '', fragment] = link.split('#') as [string, string | undefined];
      const target = path === '' ? join(repoRoot, page) : resolve(join(repoRoot, dirname(page)), decodeURIComponent(path));
      if (!existsSync(target)) {
        broken.push(`${page}: ${link} (no ${relative(repoRoot, target)})`);
        continue;
      }
      if (fragment === undefined || fragment === '') continue;
      if (statSync(target).isDirectory() || !target.endsWith('.md')) {
        broken.push(`${page}: ${link} (an anchor into something that is not a Markdown page)`);
        continue;
      }
      if (!anchors(readFileSync(target, 'utf8')).has(fragment)) broken.push(`${page}: ${link} (no heading #${fragment} in ${relative(repoRoot, target)})`);
    }
  }
  assert.ok(links > 50, `found the links: ${links}`);
  assert.deepEqual(broken, [], 'broken links');
});

test('the anchor rule spells headings as GitHub does', () => {
  const page = "# The `foghorn` command\n## Replace a cluster's CoreDNS\n### The informer hub (`-workers`)\n## Run it\n## Run it\n```\n# not a heading\n```\n";
  assert.deepEqual([...anchors(page)], ['the-foghorn-command', 'replace-a-clusters-coredns', 'the-informer-hub--workers', 'run-it', 'run-it-1']);
});
