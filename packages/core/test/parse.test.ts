import { test } from 'node:test';
import assert from 'node:assert/strict';
import { definePlugin } from '../src/plugin.js';
import type { Controller } from '../src/plugin.js';
import { atoi, durationArg, errOnce, fallthroughZones, integerInRange, zonesFromArgs } from '../src/parse.js';
import { validateCorefile } from '../src/server.js';

/** Runs `parse` as the `probe` directive's setup over `KEY {\n BODY\n}`; returns its value or throws its error. */
async function parse<T>(body: string, run: (c: Controller) => T, key = 'example.org 10.0.0.0/24'): Promise<T> {
  let value: { v: T } | undefined;
  const probe = definePlugin({ name: 'probe', setup: (c) => void (value = { v: run(c) }) });
  await validateCorefile({ path: 'Corefile', contents: `${key} {\n${body}\n}\n` }, { directives: [{ name: 'probe', load: () => probe }] });
  assert.ok(value);
  return value.v;
}

const args = (c: Controller): string[] => (c.next(), c.remainingArgs());

test('zonesFromArgs normalises arguments like server block keys, or gives the block zones', async () => {
  assert.deepEqual(await parse('probe', (c) => zonesFromArgs(c, args(c))), ['example.org.', '0.0.10.in-addr.arpa.']);
  assert.deepEqual(await parse('probe Example.NET dns://a.example:1053 10.1.0.0/23', (c) => zonesFromArgs(c, args(c))), [
    'example.net.',
    'a.example.',
    '0.1.10.in-addr.arpa.',
    '1.1.10.in-addr.arpa.',
  ]);
  await assert.rejects(parse('probe a. grpc://b.', (c) => zonesFromArgs(c, args(c))), /plugin\/probe: Corefile:2:10 - Error during parsing: grpc:\/\/ server blocks/);
  assert.deepEqual(await parse('probe a. grpc://b.', (c) => zonesFromArgs(c, args(c), { ignoreInvalid: true })), ['a.']);
  assert.deepEqual(await parse('probe tls://b.', (c) => zonesFromArgs(c, args(c))), ['b.']);
});

test('durationArg, atoi and integerInRange give Go\'s and the plugin\'s error texts at the token', async () => {
  assert.equal(await parse('probe 1m30s', (c) => durationArg(c, args(c)[0]!)), 90_000);
  await assert.rejects(parse('probe 5x', (c) => durationArg(c, args(c)[0]!)), /Corefile:2:7 - Error during parsing: time: unknown unit "x" in duration "5x"$/);
  assert.equal(await parse('probe -12', (c) => atoi(c, args(c)[0]!)), -12);
  await assert.rejects(parse('probe 1.5', (c) => atoi(c, args(c)[0]!)), /Corefile:2:7 - Error during parsing: strconv.Atoi: parsing "1.5": invalid syntax$/);
  await assert.rejects(parse('probe 99999999999999999999', (c) => atoi(c, args(c)[0]!)), /value out of range$/);
  assert.equal(await parse('probe 7', (c) => integerInRange(c, args(c)[0]!, 0, 10, 'bad')), 7);
  for (const text of ['11', '-1', 'x']) {
    await assert.rejects(parse(`probe ${text}`, (c) => integerInRange(c, args(c)[0]!, 0, 10, `must be in [0, 10]: ${text}`)), new RegExp(`must be in \\[0, 10\\]: ${text}$`));
  }
});

test('errOnce is CoreDNS\'s ErrOnce text', async () => {
  await assert.rejects(
    parse('probe\nprobe', (c) => {
      c.next();
      if (c.next()) throw errOnce(c);
    }),
    /Corefile:3:1 - Error during parsing: this plugin can only be used once per Server Block$/,
  );
});

test('fallthroughZones is every name without arguments, else the arguments as zones', async () => {
  assert.deepEqual(await parse('probe', (c) => fallthroughZones(c, args(c))), ['.']);
  assert.deepEqual(await parse('probe In-Addr.Arpa 10.1.0.0/23', (c) => fallthroughZones(c, args(c))), ['in-addr.arpa.', '0.1.10.in-addr.arpa.', '1.1.10.in-addr.arpa.']);
});
