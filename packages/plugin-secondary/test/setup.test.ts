import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Controller } from '@foghorn/core';
import { validateCorefile } from '@foghorn/core/server';
import { delay, directivesOf, setupTable, startPrimary } from '@foghorn/testkit';
import type { BadCase, GoodCase } from '@foghorn/testkit';
import secondary, { defaultMaxRecords, parseSecondary } from '@foghorn/plugin-secondary';

interface Summary {
  zones: { origin: string; primaries: readonly string[] }[];
  fallthrough: readonly string[] | null;
  maxRecords: number;
}

function summarize(c: Controller): Summary {
  const options = parseSecondary(c);
  return { zones: options.zones.map((z) => ({ origin: z.origin, primaries: z.primaries })), fallthrough: options.fallthrough, maxRecords: options.limits.maxRecords };
}

const zones = (origin: string, ...primaries: string[]): Summary['zones'][number] => ({ origin, primaries });
const summary = (zoneList: Summary['zones'], extra: Partial<Summary> = {}): Summary => ({ zones: zoneList, fallthrough: null, maxRecords: defaultMaxRecords, ...extra });

/** CoreDNS's plugin/secondary/setup_test.go, with positions, and the options of v1.14.7. */
const good: GoodCase<Summary>[] = [
  { input: 'secondary {\n transfer from 127.0.0.1\n}', want: summary([zones('example.org.', '127.0.0.1:53')]) },
  { input: 'secondary example.org {\n transfer from 127.0.0.1\n}', want: summary([zones('example.org.', '127.0.0.1:53')]) },
  { input: 'secondary example.org example.net {\n transfer from 10.0.1.1 10.1.2.1:5300\n transfer from [2001:db8::1]\n}', key: 'example.org example.net', want: summary([zones('example.org.', '10.0.1.1:53', '10.1.2.1:5300', '[2001:db8::1]:53'), zones('example.net.', '10.0.1.1:53', '10.1.2.1:5300', '[2001:db8::1]:53')]) },
  { input: 'secondary {\n transfer from 127.0.0.1\n fallthrough\n}', want: summary([zones('example.org.', '127.0.0.1:53')], { fallthrough: ['.'] }) },
  { input: 'secondary {\n transfer from 127.0.0.1\n fallthrough sub.example.org\n max_records 5000000\n}', want: summary([zones('example.org.', '127.0.0.1:53')], { fallthrough: ['sub.example.org.'], maxRecords: 5_000_000 }) },
];

const bad: BadCase[] = [
  { input: 'secondary', error: 'Corefile:2:1 - Error during parsing: secondary zones require a transfer from property' },
  { input: 'secondary example.org {\n transferr from 127.0.0.1\n}', error: "Corefile:3:2 - Error during parsing: unknown property 'transferr'" },
  { input: 'secondary {\n transfer to 127.0.0.1\n}', error: 'Corefile:3:11 - Error during parsing: unknown property to' },
  { input: 'secondary {\n transfer\n}', error: "Corefile:3:2 - Error during parsing: Wrong argument count or unexpected line ending after 'transfer'" },
  { input: 'secondary {\n transfer from\n}', error: "Corefile:3:11 - Error during parsing: Wrong argument count or unexpected line ending after 'from'" },
  { input: 'secondary {\n transfer from *\n}', error: "Corefile:3:16 - Error during parsing: can't use '*' in transfer from" },
  { input: 'secondary {\n transfer from 127.0.0.1 ns1.example.org\n}', error: "Corefile:3:26 - Error during parsing: must specify an IP address: `ns1.example.org'" },
  { input: 'secondary {\n transfer from 127.0.0.1\n max_records 0\n}', error: "Corefile:4:14 - Error during parsing: max_records must be at least 1, got '0'" },
  { input: 'secondary {\n transfer from 127.0.0.1\n max_records many\n}', error: 'Corefile:4:14 - Error during parsing: strconv.Atoi: parsing "many": invalid syntax' },
  { input: 'secondary {\n transfer from 127.0.0.1\n catalog\n}', error: "Corefile:4:2 - Error during parsing: unknown property 'catalog'" },
];

setupTable('secondary', summarize, { good, bad, plugin: secondary });

test('-validate runs the setup without asking the primary anything', async (t) => {
  const primary = await startPrimary({ serial: 1, axfr: async () => {} });
  t.after(() => primary.close());
  await validateCorefile({ path: 'Corefile', contents: `example.org {\n secondary {\n  transfer from ${primary.address}\n }\n}\n` }, { directives: directivesOf(secondary) });
  await delay(300);
  assert.deepEqual({ checks: primary.checks, transfers: primary.transfers }, { checks: 0, transfers: 0 });
});
