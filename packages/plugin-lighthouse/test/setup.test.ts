/**
 * Lighthouse's coredns/plugin/setup_internal_test.go and the connection/source options: Corefile snippets through
 * the real parser and dispenser into `parseLighthouse`, or the positioned error they give.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { definePlugin } from '@foghorn/core';
import { validateCorefile } from '@foghorn/core/server';
import { directivesOf, requireFixture, sharedPath } from '@foghorn/testkit';
import whoami from '@foghorn/plugin-whoami';
import lighthouse, { parseLighthouse } from '../src/index.js';
import type { LighthouseOptions } from '../src/index.js';

async function parse(lines: string, env: NodeJS.ProcessEnv = {}): Promise<LighthouseOptions> {
  let parsed: LighthouseOptions | undefined;
  const probe = definePlugin({ name: 'lighthouse', setup: (c) => void (parsed = parseLighthouse(c, env)) });
  await validateCorefile({ path: 'Corefile', contents: `clusterset.local {\n${lines}\n    whoami\n}\n` }, { directives: directivesOf(probe, whoami) });
  assert.ok(parsed);
  return parsed;
}

// `kubeconfig PATH` must name a readable file (start-up would refuse it otherwise): a real one.
const kubeconfigDir = mkdtempSync(join(tmpdir(), 'lighthouse-setup-'));
after(() => rmSync(kubeconfigDir, { recursive: true, force: true }));
const kubeconfig = join(kubeconfigDir, 'kube.conf');
writeFileSync(kubeconfig, '');

const kube = { kind: 'kubernetes', connection: {} } as const;
const defaults: LighthouseOptions = { zones: [], fallthrough: null, ttlSeconds: 5, source: kube, clusterId: '', families: { v4: true, v6: false } };

const good: { input: string; env?: NodeJS.ProcessEnv; want: Partial<LighthouseOptions> }[] = [
  { input: '    lighthouse', want: {} },
  {
    input: '    lighthouse cluster2.local cluster3.local {\n        fallthrough cluster2.local\n    }',
    want: { zones: ['cluster2.local.', 'cluster3.local.'], fallthrough: ['cluster2.local.'] },
  },
  { input: '    lighthouse {\n        fallthrough\n    }', want: { fallthrough: ['.'] } },
  { input: '    lighthouse {\n        ttl 30\n    }', want: { ttlSeconds: 30 } },
  { input: '    lighthouse {\n        ttl 0\n    }', want: { ttlSeconds: 0 } },
  { input: '    lighthouse {\n        ttl 3600\n    }', want: { ttlSeconds: 3600 } },
  { input: '    lighthouse Clusterset.Local 243.1.0.0/16', want: { zones: ['clusterset.local.', '1.243.in-addr.arpa.'] } },
  { input: `    lighthouse {\n        kubeconfig ${kubeconfig}\n    }`, want: { source: { kind: 'kubernetes', connection: { kubeconfig } } } },
  {
    input: `    lighthouse {\n        kubeconfig ${kubeconfig} east\n        endpoint https://10.0.0.1:6443\n    }`,
    want: { source: { kind: 'kubernetes', connection: { kubeconfig, context: 'east', endpoint: 'https://10.0.0.1:6443' } } },
  },
  { input: '    lighthouse {\n        endpoint http://127.0.0.1:8001\n    }', want: { source: { kind: 'kubernetes', connection: { endpoint: 'http://127.0.0.1:8001' } } } },
  { input: '    lighthouse {\n        manifests examples/clusterset\n    }', want: { source: { kind: 'manifests', dir: 'examples/clusterset' } } },
  { input: '    lighthouse', env: { SUBMARINER_CLUSTERID: 'cluster1' }, want: { clusterId: 'cluster1' } },
  { input: '    lighthouse {\n        cluster_id east\n    }', env: { SUBMARINER_CLUSTERID: 'cluster1' }, want: { clusterId: 'east' } },
  { input: '    lighthouse', env: { SUBMARINER_CLUSTERCIDR: '10.0.0.0/16,fd00::/48' }, want: { families: { v4: true, v6: true } } },
  { input: '    lighthouse {\n        cluster_cidr fd00::/48\n    }', want: { families: { v4: false, v6: true } } },
];

for (const { input, env, want } of good) {
  test(`lighthouse parses ${JSON.stringify(input.trim())}${env ? ` with ${JSON.stringify(env)}` : ''}`, async () => {
    assert.deepEqual(await parse(input, env), { ...defaults, ...want });
  });
}

const bad: { input: string; error: string }[] = [
  { input: '    lighthouse {\n        dummy\n    }', error: "Corefile:3:9 - Error during parsing: unknown property 'dummy'" },
  { input: '    lighthouse {\n        ttl\n    }', error: "Corefile:3:9 - Error during parsing: Wrong argument count or unexpected line ending after 'ttl'" },
  { input: '    lighthouse {\n        ttl -10\n    }', error: 'ttl must be in range [0, 3600]: -10' },
  { input: '    lighthouse {\n        ttl 3601\n    }', error: 'ttl must be in range [0, 3600]: 3601' },
  { input: '    lighthouse {\n        ttl 5s\n    }', error: 'ttl must be in range [0, 3600]: 5s' },
  { input: '    lighthouse\n    lighthouse', error: 'Corefile:3:5 - Error during parsing: this plugin can only be used once per Server Block' },
  { input: '    lighthouse {\n        kubeconfig\n    }', error: 'Wrong argument count' },
  // What start-up would refuse, refused at setup so `-validate` catches it, at the argument.
  {
    input: '    lighthouse {\n        manifests  /nonexistent/manifests\n    }',
    error: "Corefile:3:20 - Error during parsing: manifests directory '/nonexistent/manifests': no such file or directory",
  },
  { input: '    lighthouse {\n        manifests examples/clusterset/cluster1.yaml\n    }', error: "manifests directory 'examples/clusterset/cluster1.yaml' is not a directory" },
  {
    input: '    lighthouse {\n        kubeconfig /nonexistent/kube.conf east\n    }',
    error: "Corefile:3:20 - Error during parsing: kubeconfig '/nonexistent/kube.conf': no such file or directory",
  },
  { input: '    lighthouse {\n        kubeconfig examples/clusterset\n    }', error: "kubeconfig 'examples/clusterset': is a directory" },
  { input: '    lighthouse {\n        endpoint 10.0.0.1\n    }', error: "endpoint must be an http:// or https:// URL, got '10.0.0.1'" },
  { input: '    lighthouse {\n        manifests examples/clusterset\n        endpoint http://127.0.0.1:8001\n    }', error: "manifests cannot be combined with 'kubeconfig' or 'endpoint'" },
  { input: '    lighthouse {\n        cluster_id East_1\n    }', error: "cluster_id must be a DNS label (or two, 'name.registry'), got 'East_1'" },
  { input: '    lighthouse {\n        cluster_cidr 10.0.0.0\n    }', error: "cluster_cidr must be CIDRs, got '10.0.0.0'" },
];

for (const { input, error } of bad) {
  test(`lighthouse rejects ${JSON.stringify(input.trim())}`, async () => {
    await assert.rejects(parse(input), (e: Error) => {
      assert.ok(e.message.includes(error), `${e.message}\n  does not contain\n${error}`);
      return true;
    });
  });
}

test('lighthouse errors are wrapped as plugin/lighthouse with the position', async () => {
  await assert.rejects(
    validateCorefile({ path: 'Corefile', contents: 'clusterset.local {\n    lighthouse {\n        ttl 4000\n    }\n}\n' }, { directives: directivesOf(lighthouse) }),
    { message: 'plugin/lighthouse: Corefile:3:13 - Error during parsing: ttl must be in range [0, 3600]: 4000' },
  );
});

const corpus = sharedPath('corefile-corpus/valid');

test('validating the corpus Corefiles that use lighthouse starts nothing and succeeds', async () => {
  requireFixture(existsSync(corpus), `the Corefile corpus at ${corpus}`);
  // The lighthouse-*.conf cases whose blocks use the directive (some only forward to it).
  const files = readdirSync(corpus)
    .filter((f) => f.startsWith('lighthouse-') && f.endsWith('.conf'))
    .filter((f) => /^\s*lighthouse\b/m.test(readFileSync(join(corpus, f), 'utf8')));
  assert.ok(files.length >= 3, `only ${files.length} corpus Corefiles use lighthouse in ${corpus}`);
  for (const file of files) {
    const contents = readFileSync(join(corpus, file), 'utf8');
    // With no directive but lighthouse known, strip the other plugins: only lighthouse's setup runs.
    const only = contents.replace(/^\s*(errors|health|ready|prometheus|log|forward|cache|reload)\b.*$/gm, '');
    await validateCorefile({ path: file, contents: only.replace(/\{\s*lameduck[^}]*\}/g, '').replace(/\{\s*max_concurrent[^}]*\}/g, '') }, { directives: directivesOf(lighthouse) });
  }
});
