/**
 * Importing @foghorn/kube must not load the client's modules: every bundled plugin is imported
 * at startup, and only a Corefile that talks to a cluster should pay for them. And talking to a
 * cluster must not load @kubernetes/client-node (65 MB resident for its import) unless the
 * kubeconfig needs it (an exec plugin, an auth-provider, a proxy). Checked on the compiled
 * modules, whose static imports are what Node loads.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

/** The specifiers of a compiled module's static `import`/`export ... from` statements. */
function staticImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^(?:import|export)\s[^;]*?from\s+'([^']+)';/gms), ...text.matchAll(/^import\s+'([^']+)';/gm)].map((m) => m[1]!);
}

/** Every module the entry point loads statically, as specifiers (relative ones resolved). */
function staticGraph(entry: URL): Set<string> {
  const seen = new Set<string>();
  const queue = [entry.href];
  while (queue.length > 0) {
    const href = queue.pop()!;
    if (seen.has(href)) continue;
    seen.add(href);
    if (!href.startsWith('file:')) continue;
    for (const specifier of staticImports(fileURLToPath(href))) queue.push(specifier.startsWith('.') ? new URL(specifier, href).href : specifier);
  }
  return seen;
}

test('the entry point loads @kubernetes/client-node only through the dynamic imports of watch.ts', () => {
  const graph = staticGraph(new URL('../src/index.js', import.meta.url));
  assert.ok(graph.has(new URL('../src/registry.js', import.meta.url).href), 'the walk follows relative imports');
  assert.ok(graph.has('@foghorn/core'));
  assert.equal([...graph].some((m) => m.includes('@kubernetes/client-node') || m.endsWith('/informer.js') || m.endsWith('/connection.js')), false, [...graph].join('\n'));
  // Nor the YAML parser: a pod reads its service account, and JSON kubeconfigs and manifests need none.
  assert.equal(graph.has('yaml'), false, [...graph].join('\n'));
  const watch = readFileSync(new URL('../src/watch.js', import.meta.url), 'utf8');
  assert.match(watch, /await import\('\.\/connection\.js'\)/);
  assert.match(watch, /await import\('\.\/informer\.js'\)/);
});

test('listing and watching load @kubernetes/client-node only for the credentials it alone handles', () => {
  for (const entry of ['../src/connection.js', '../src/informer.js']) {
    const graph = staticGraph(new URL(entry, import.meta.url));
    assert.equal([...graph].some((m) => m.includes('@kubernetes/client-node') || m.endsWith('/client-node-auth.js')), false, [...graph].join('\n'));
  }
  const connection = readFileSync(new URL('../src/connection.js', import.meta.url), 'utf8');
  assert.match(connection, /await import\('\.\/client-node-auth\.js'\)/);
});
