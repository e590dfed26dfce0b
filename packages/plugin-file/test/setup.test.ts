import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Controller } from '@foghorn/core';
import { validateCorefile } from '@foghorn/core/server';
import { directivesOf, setupTable } from '@foghorn/testkit';
import type { BadCase, GoodCase } from '@foghorn/testkit';
import file, { parseFile } from '@foghorn/plugin-file';

const dir = mkdtempSync(join(tmpdir(), 'foghorn-file-setup-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const db = join(dir, 'db.example.org');
writeFileSync(db, '$ORIGIN example.org.\n@ 3600 IN SOA ns1 admin 7 7200 3600 1209600 3600\n@ IN NS ns1\nns1 IN A 192.0.2.1\n');
const broken = join(dir, 'db.broken');
writeFileSync(broken, '$ORIGIN example.org.\n@ 3600 IN SOA ns1 admin 7 7200 3600 1209600 3600\n\nwww IN A 192.0.2.300\n');
const missing = join(dir, 'db.missing');

interface Summary {
  zones: { origin: string; reloadMs: number; reloadByMtime: boolean; serial: number | null }[];
  fallthrough: readonly string[] | null;
}

function summarize(c: Controller): Summary {
  const options = parseFile(c);
  return {
    zones: options.zones.map((z) => ({ origin: z.origin, reloadMs: z.reloadMs, reloadByMtime: z.reloadByMtime, serial: z.data?.serial ?? null })),
    fallthrough: options.fallthrough,
  };
}

const zone = (origin: string, extra: Partial<Summary['zones'][number]> = {}): Summary['zones'][number] => ({ origin, reloadMs: 60_000, reloadByMtime: false, serial: 7, ...extra });

const good: GoodCase<Summary>[] = [
  { input: `file ${db}`, want: { zones: [zone('example.org.')], fallthrough: null } },
  { input: `file ${db} example.org {\n reload 30s\n}`, want: { zones: [zone('example.org.', { reloadMs: 30_000 })], fallthrough: null } },
  { input: `file ${db} {\n reload 0\n reload_by_mtime\n fallthrough\n}`, want: { zones: [zone('example.org.', { reloadMs: 0, reloadByMtime: true })], fallthrough: ['.'] } },
  { input: `file ${db} {\n fallthrough in-addr.arpa 10.0.0.0/8\n upstream\n}`, want: { zones: [zone('example.org.')], fallthrough: ['in-addr.arpa.', '10.in-addr.arpa.'] } },
  // A file that cannot be opened yet is retried while reload is on (CoreDNS: a warning).
  { input: `file ${missing}`, want: { zones: [zone('example.org.', { serial: null })], fallthrough: null } },
  { input: `file ${db} Example.ORG`, key: '.', want: { zones: [zone('example.org.')], fallthrough: null } },
];

const bad: BadCase[] = [
  { input: 'file', error: "Corefile:2:1 - Error during parsing: Wrong argument count or unexpected line ending after 'file'" },
  { input: `file ${db} {\n reload\n}`, error: 'Error during parsing: reload duration value is expected' },
  { input: `file ${db} {\n reload soon\n}`, error: 'time: invalid duration "soon"' },
  { input: `file ${db} {\n ttl 30\n}`, error: "Corefile:3:2 - Error during parsing: unknown property 'ttl'" },
  { input: `file ${missing} {\n reload 0\n}`, error: 'ENOENT' },
  // One file for two origins: the second has no SOA of its own (CoreDNS refuses it too).
  { input: `file ${db} example.org example.net`, key: '.', error: 'has no SOA record for origin example.net.' },
  { input: `file ${broken}`, error: `Corefile:2:6 - Error during parsing: failed to parse file "${broken}" for origin example.org. with error ${broken}:4: A bad address: "192.0.2.300"` },
];

setupTable('file', summarize, { good, bad, plugin: file });

test('a zone file error names the zone file line, with $INCLUDE and parentheses', async () => {
  writeFileSync(join(dir, 'inc.hosts'), 'www IN A 192.0.2.10\nmail IN MX 10 (\n   www\n   extra )\n');
  const main = join(dir, 'db.include');
  writeFileSync(main, '$ORIGIN example.org.\n@ 3600 IN SOA ns1 admin 7 7200 3600 1209600 3600\n$INCLUDE inc.hosts\n');
  await assert.rejects(
    validateCorefile({ path: 'Corefile', contents: `example.org {\n file ${main}\n}\n` }, { directives: directivesOf(file) }),
    (error: Error) => {
      assert.match(error.message, /inc\.hosts:4: MX needs 2 rdata fields, got 3/);
      return true;
    },
  );
});
