import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { validateCorefile } from '@foghorn/core/server';
import { captureLog, directivesOf, setupTable } from '@foghorn/testkit';
import hosts, { parseHosts } from '@foghorn/plugin-hosts';
import type { HostsOptions } from '@foghorn/plugin-hosts';

const dir = mkdtempSync(join(tmpdir(), 'foghorn-hosts-setup-'));
after(() => rmSync(dir, { recursive: true, force: true }));

// CoreDNS plugin/hosts/setup_test.go: TestHostsParse, TestHostsInlineParse,
// TestHostsParseFallthroughUnsupported, and the option errors of setup.go.
setupTable<HostsOptions>('hosts', parseHosts, {
  plugin: hosts,
  key: '.',
  partial: true,
  good: [
    { input: 'hosts', want: { path: '/etc/hosts', origins: ['.'], fallthrough: null, ttl: 3600, reloadMs: 5000, autoReverse: true, inline: [] } },
    { input: 'hosts', key: 'Example.org 10.0.0.0/24', want: { origins: ['example.org.', '0.0.10.in-addr.arpa.'] } },
    { input: `hosts ${dir}`, want: { path: dir, origins: ['.'] } },
    { input: 'hosts /etc/hosts miek.nl.', want: { path: '/etc/hosts', origins: ['miek.nl.'] } },
    { input: 'hosts /etc/hosts miek.nl. pun.gent.', want: { origins: ['miek.nl.', 'pun.gent.'] } },
    { input: 'hosts {\n fallthrough\n}', want: { path: '/etc/hosts', fallthrough: ['.'] } },
    { input: `hosts ${dir} {\n fallthrough\n}`, want: { path: dir, fallthrough: ['.'] } },
    { input: 'hosts /etc/hosts miek.nl 10.0.0.9/8 {\n fallthrough\n}', want: { origins: ['miek.nl.', '10.in-addr.arpa.'], fallthrough: ['.'] } },
    { input: 'hosts {\n fallthrough Example.org 10.0.0.0/8\n}', want: { fallthrough: ['example.org.', '10.in-addr.arpa.'] } },
    { input: 'hosts missing_hosts_file example.org {\n 10.0.0.1 example.org\n fallthrough\n}', want: { path: 'missing_hosts_file', inline: ['10.0.0.1 example.org'], fallthrough: ['.'] } },
    { input: 'hosts missing_hosts_file example.org {\n 10.0.0.1 example.org\n}', want: { inline: ['10.0.0.1 example.org'], fallthrough: null } },
    { input: 'hosts {\n fallthrough\n fallthrough_unsupported\n}', want: { fallthroughUnsupported: true } },
    { input: 'hosts {\n fallthrough_unsupported\n fallthrough example.org\n}', want: { fallthroughUnsupported: true, fallthrough: ['example.org.'] } },
    { input: 'hosts {\n ttl 60\n reload 15s\n no_reverse\n}', want: { ttl: 60, reloadMs: 15_000, autoReverse: false } },
    { input: 'hosts {\n ttl 65535\n reload 0s\n}', want: { ttl: 65535, reloadMs: 0 } },
  ],
  bad: [
    { input: 'hosts /etc/hosts {\n fallthrough\n}\nhosts /etc/hosts {\n fallthrough\n}', error: 'Corefile:5:1 - Error during parsing: this plugin can only be used once per Server Block' },
    { input: 'hosts missing example.org {\n fallthrough\n 10.0.0.1 example.org\n}', error: "Corefile:4:2 - Error during parsing: unknown property '10.0.0.1'" },
    { input: 'hosts {\n fallthrough_unsupported\n}', error: 'Error during parsing: fallthrough_unsupported requires fallthrough' },
    { input: 'hosts {\n fallthrough\n fallthrough_unsupported example.org\n}', error: "Corefile:4:26 - Error during parsing: Wrong argument count or unexpected line ending after 'example.org'" },
    { input: 'hosts {\n ttl\n}', error: 'Corefile:3:2 - Error during parsing: ttl needs a time in second' },
    { input: 'hosts {\n ttl x\n}', error: 'Corefile:3:6 - Error during parsing: ttl needs a number of second' },
    { input: 'hosts {\n ttl 0\n}', error: 'Corefile:3:6 - Error during parsing: ttl provided is invalid' },
    { input: 'hosts {\n ttl 65536\n}', error: 'Corefile:3:6 - Error during parsing: ttl provided is invalid' },
    { input: 'hosts {\n reload\n}', error: 'Corefile:3:2 - Error during parsing: reload needs a duration (zero seconds to disable)' },
    { input: 'hosts {\n reload 1s 2s\n}', error: 'Corefile:3:12 - Error during parsing: reload needs a duration (zero seconds to disable)' },
    { input: 'hosts {\n reload 5\n}', error: "Corefile:3:9 - Error during parsing: invalid duration for reload '5'" },
    { input: 'hosts {\n reload -1s\n}', error: "Corefile:3:9 - Error during parsing: invalid negative duration for reload '-1s'" },
  ],
});

test('a missing FILE and a directory are warnings, as in CoreDNS', async () => {
  const { logger, lines } = captureLog();
  const missing = join(dir, 'nope');
  const contents = `a.example {\n hosts ${missing}\n}\nb.example {\n hosts ${dir}\n}\n`;
  await validateCorefile({ path: 'Corefile', contents }, { directives: directivesOf(hosts), logger });
  assert.deepEqual(lines, [`[WARNING] plugin/hosts: File does not exist: ${missing}`, `[WARNING] plugin/hosts: Hosts file "${dir}" is a directory`]);
});

test('a FILE that cannot be examined is an error with its position', async () => {
  const inside = join('/etc/hosts', 'x');
  await assert.rejects(
    validateCorefile({ path: 'Corefile', contents: `. {\n hosts ${inside}\n}\n` }, { directives: directivesOf(hosts) }),
    { message: `plugin/hosts: Corefile:2:8 - Error during parsing: unable to access hosts file '${inside}': stat ${inside}: not a directory` },
  );
});
