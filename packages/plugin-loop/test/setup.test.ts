import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setupTable } from '@foghorn/testkit';
import loop, { parseLoop } from '@foghorn/plugin-loop';

// CoreDNS plugin/loop/setup_test.go: TestSetup and TestParseServerBlockKeys. The probe name is
// random, so the table checks the zone; its shape is checked below.
const zoneOf = (c: Parameters<typeof parseLoop>[0]): string => parseLoop(c).zone;

setupTable('loop', zoneOf, {
  plugin: loop,
  good: [
    { input: 'loop', want: 'example.org.' },
    { input: 'loop', key: 'Example.ORG:1053', want: 'example.org.' },
    { input: 'loop', key: '.', want: '.' },
    { input: 'loop', key: 'dns://.:53', want: '.' },
    // The first key only, as `plugin.Host(c.ServerBlockKeys[0]).NormalizeExact()[0]`.
    { input: 'loop', key: 'b.example.org a.example.org', want: 'b.example.org.' },
    { input: 'loop', key: '10.0.0.0/24', want: '0.0.10.in-addr.arpa.' },
  ],
  bad: [
    { input: 'loop argument', error: "Corefile:2:6 - Error during parsing: Wrong argument count or unexpected line ending after 'argument'" },
    { input: 'loop {\n  reload 5s\n}', error: "Corefile:3:3 - Error during parsing: Wrong argument count or unexpected line ending after 'reload'" },
    { input: 'loop\nloop', error: 'Corefile:3:1 - Error during parsing: this plugin can only be used once per Server Block' },
  ],
});

test('the probe name is <r1>.<r2>.<zone> with two random integers below 2^62', async () => {
  const { parseDirective } = await import('@foghorn/testkit');
  const names = new Set<string>();
  for (const key of ['example.org', '.', 'example.org', '.']) {
    const { qname, zone } = await parseDirective('loop', parseLoop, 'loop', key);
    const match = /^(\d+)\.(\d+)\.(.*)$/.exec(qname);
    assert.ok(match, qname);
    assert.equal(match[3] === '' ? '.' : match[3], zone);
    for (const label of [match[1]!, match[2]!]) assert.ok(BigInt(label) < 1n << 62n, label);
    names.add(qname);
  }
  assert.equal(names.size, 4, 'every setup draws new labels');
});
