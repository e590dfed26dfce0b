import { test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { definePlugin, MetadataProviders, replyTo } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import type { OptAnswer } from 'dns-packet';
import bind from '@foghorn/plugin-bind';
import file from '@foghorn/plugin-file';
import forward from '@foghorn/plugin-forward';
import { createLogPlugin } from '@foghorn/plugin-log';
import rewrite from '@foghorn/plugin-rewrite';
import template from '@foghorn/plugin-template';
import whoami from '@foghorn/plugin-whoami';
import { directivesOf, formatRr, query, rcodeOf, startServer, testPlugin, upstreamFor } from '@foghorn/testkit';
import type { TestServer } from '@foghorn/testkit';
import { makeTempDir } from '@foghorn/testkit/kube';
import metadata from '../src/index.js';

/**
 * A provider of fixed labels (CoreDNS's tests' `testProvider`), counting how often it is asked:
 * `values` by label, for every query of its block.
 */
function provider(name: string, values: Readonly<Record<string, string>>, asked: string[] = []): PluginDefinition {
  return definePlugin({
    name,
    setup(c) {
      while (c.next()) c.remainingArgs();
      c.provide(MetadataProviders, {
        metadata: (_req, label) => {
          asked.push(label);
          return values[label];
        },
      });
    },
  });
}

const logged: string[] = [];
const log = createLogPlugin({ sink: (line) => logged.push(line) });
/** The EDNS options of the queries the probe saw: what *rewrite* sent down. */
const probed: string[][] = [];
const probe = testPlugin('probe', () => ({
  name: 'probe',
  serveDNS(req, w) {
    const opt = req.message.additionals?.find((rr): rr is OptAnswer => rr.type === 'OPT');
    probed.push((opt?.options ?? []).map((o) => `${o.code.toString(16)}=${Buffer.from(o.data ?? []).toString()}`));
    w.write(replyTo(req));
    return 0;
  },
}));
const asked: string[] = [];
const meta = provider('meta', { 'test/meta2': 'two', 'test/meta3': 'three', 'test/label': 'my-value', 'test/empty': '', foo: 'myfoo', bar: 'mybar' }, asked);
const late = provider('late', { 'test/meta3': 'three, later' });
// In the standard directive order, the test plugins where their kind would be.
const directives = directivesOf(metadata, bind, log, rewrite, template, meta, late, file, forward, probe, whoami);

async function serve(t: TestContext, body: string, key = '.'): Promise<TestServer> {
  const server = await startServer(`${key}:0 {\n    bind 127.0.0.1\n${body}\n}\n`, { directives });
  t.after(() => server.close());
  logged.length = 0;
  probed.length = 0;
  asked.length = 0;
  return server;
}

test('log prints a provider label, - for one nobody set, and the later provider wins (CoreDNS replacer tests)', async (t) => {
  const server = await serve(t, '    metadata\n    meta\n    late\n    log . "{/test/meta2}|{/test/meta2} {/test/key4}|{/test/meta2} {/test/meta3}|{/test/empty}|{/test/meta2|{test/meta2} {/test/meta4}|{test}"\n    whoami');
  await query({ port: server.port() }, 'example.org', 'HINFO');
  assert.deepEqual(logged, ['[INFO] two|two -|two three, later||{/test/meta2|{test/meta2} -|{test}']);
});

test('without the metadata plugin a label prints -, and no provider is asked', async (t) => {
  const server = await serve(t, '    meta\n    log . "{/test/meta2} {/log/class}"\n    whoami');
  await query({ port: server.port() }, 'example.org', 'A');
  assert.deepEqual(logged, ['[INFO] - -']);
  assert.deepEqual(asked, []);
});

test('providers are asked only for labels read, once per query and label', async (t) => {
  const server = await serve(t, '    metadata\n    meta\n    log . "{/test/meta2} {/test/meta2} {/test/meta3}"\n    whoami');
  await query({ port: server.port() }, 'example.org', 'A');
  assert.deepEqual(asked, ['test/meta2', 'test/meta3']);
  asked.length = 0;
  await query({ port: server.port() }, 'example.org', 'A');
  assert.deepEqual(asked, ['test/meta2', 'test/meta3'], 'a new query asks again');
});

test('metadata ZONES: providers are asked only for names in them; plugins still publish elsewhere', async (t) => {
  const upstream = await upstreamFor(t);
  const server = await serve(t, `    metadata example.org\n    meta\n    log . "{name} {/test/meta2} {/forward/upstream}"\n    forward . 127.0.0.1:${upstream.port}`);
  await query({ port: server.port() }, 'a.example.org', 'A');
  await query({ port: server.port() }, 'a.example.net', 'A');
  assert.deepEqual(logged, [`[INFO] a.example.org. two 127.0.0.1:${upstream.port}`, `[INFO] a.example.net. - 127.0.0.1:${upstream.port}`]);
});

test('log publishes log/type and log/class for the reply', async (t) => {
  const server = await serve(
    t,
    [
      '    metadata',
      '    log . "{name} {/log/type} {/log/class}"',
      '    template IN A nx.example.org {',
      '        rcode NXDOMAIN',
      '        authority "example.org. 60 IN SOA ns.example.org. hostmaster.example.org. 1 7200 3600 1209600 60"',
      '    }',
      '    template IN A empty.example.org {',
      '        authority "example.org. 60 IN SOA ns.example.org. hostmaster.example.org. 1 7200 3600 1209600 60"',
      '    }',
      '    template IN A refused.example.org {',
      '        rcode REFUSED',
      '    }',
      '    whoami',
    ].join('\n'),
  );
  for (const name of ['a.example.org', 'nx.example.org', 'empty.example.org', 'refused.example.org']) await query({ port: server.port() }, name, 'A');
  assert.deepEqual(logged, [
    '[INFO] a.example.org. NOERROR success',
    '[INFO] nx.example.org. NXDOMAIN denial',
    '[INFO] empty.example.org. NODATA denial',
    '[INFO] refused.example.org. OTHERERROR error',
  ]);
});

// CoreDNS's plugin/rewrite/rewrite_test.go TestRewriteEDNS0LocalVariable, the metadata rows.
test('rewrite sets an EDNS0 local option from a label, and not when it is empty or missing', async (t) => {
  const server = await serve(
    t,
    '    metadata\n    meta\n    rewrite edns0 local set 0xffee {test/label}\n    rewrite edns0 local set 0xffef {test/empty}\n    rewrite edns0 local set 0xfff0 {test/does-not-exist}\n    probe',
  );
  await query({ port: server.port() }, 'example.com', 'A', { udpSize: 1232 });
  assert.deepEqual(probed, [['ffee=my-value']]);
});

// CoreDNS's plugin/template/template_test.go, cases mdMatch and mdMissing.
test('template reads labels with .Meta, the empty string for a missing one', async (t) => {
  const server = await serve(
    t,
    [
      '    metadata',
      '    meta',
      '    template ANY ANY example {',
      '        match "(^|[.])ip-10-(?P<b>[0-9]*)-(?P<c>[0-9]*)-(?P<d>[0-9]*)[.]example[.]$"',
      '        answer "{{ .Meta \\"foo\\" }}-{{ .Name }} 60 IN A 10.{{ .Group.b }}.{{ .Group.c }}.{{ .Group.d }}"',
      '        additional "{{ .Meta \\"bar\\" }}.example. IN A 203.0.113.8"',
      '        authority "example. IN NS {{ .Meta \\"bar\\" }}.example.com."',
      '    }',
      '    template ANY ANY missing {',
      '        answer "{{ .Meta \\"foofoo\\" }}{{ .Name }} 60 IN A 10.95.12.8"',
      '    }',
    ].join('\n'),
  );
  const matched = await query({ port: server.port() }, 'ip-10-95-12-8.example', 'A');
  assert.deepEqual(matched.answers?.map(formatRr), ['myfoo-ip-10-95-12-8.example. 60 IN A 10.95.12.8']);
  assert.deepEqual(matched.additionals?.map(formatRr), ['mybar.example. 3600 IN A 203.0.113.8']);
  assert.deepEqual(matched.authorities?.map(formatRr), ['example. 3600 IN NS mybar.example.com.']);
  const missing = await query({ port: server.port() }, 'ip-10-95-12-8.missing', 'A');
  assert.deepEqual(missing.answers?.map(formatRr), ['ip-10-95-12-8.missing. 60 IN A 10.95.12.8']);
});

test('file publishes zone/wildcard for an answer synthesised from a wildcard', async (t) => {
  const dir = makeTempDir();
  t.after(() => dir.remove());
  const zone = join(dir.path, 'example.org.zone');
  writeFileSync(
    zone,
    [
      '$ORIGIN example.org.',
      '@ 3600 IN SOA ns.example.org. hostmaster.example.org. 1 7200 3600 1209600 60',
      '@ 3600 IN NS ns.example.org.',
      'ns 3600 IN A 192.0.2.53',
      '*.wild 3600 IN A 192.0.2.1',
      '',
    ].join('\n'),
  );
  const server = await serve(t, `    metadata\n    log . "{name} {/zone/wildcard}"\n    file ${zone}`, 'example.org');
  for (const name of ['a.wild.example.org', 'ns.example.org']) assert.equal(rcodeOf(await query({ port: server.port() }, name, 'A')), 'NOERROR');
  assert.deepEqual(logged, ['[INFO] a.wild.example.org. *.wild.example.org.', '[INFO] ns.example.org. -']);
});
