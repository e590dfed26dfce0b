import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Dispenser, parseCorefile } from '@foghorn/core';
import { directivesOf, startServer } from '@foghorn/testkit';
import whoami from '@foghorn/plugin-whoami';
import prometheus, { parsePrometheus } from '../src/index.js';
import type { ListenAddress } from '../src/index.js';

/** The dispenser for the `prometheus` lines of the first block of `corefile`. */
function dispenser(corefile: string, env: Record<string, string> = {}): Dispenser {
  const [block] = parseCorefile(corefile, { file: 'Corefile', env });
  assert.ok(block);
  return Dispenser.fromBlock(block, 'prometheus');
}

const valid: ReadonlyArray<{ input: string; want: Omit<ListenAddress, 'text'> & { text?: string }; env?: Record<string, string> }> = [
  { input: '. {\n prometheus\n}', want: { text: 'localhost:9153', host: 'localhost', port: 9153 } },
  { input: '. {\n prometheus :9153\n}', want: { host: '', port: 9153 } },
  { input: '. {\n prometheus localhost:9253\n}', want: { host: 'localhost', port: 9253 } },
  { input: '. {\n prometheus 127.0.0.1:0\n}', want: { host: '127.0.0.1', port: 0 } },
  { input: '. {\n prometheus 0.0.0.0:9153\n}', want: { host: '0.0.0.0', port: 9153 } },
  { input: '. {\n prometheus [::1]:9153\n}', want: { host: '::1', port: 9153 } },
  { input: '. {\n prometheus [::]:9153\n}', want: { host: '::', port: 9153 } },
  { input: '. {\n prometheus :{$METRICS_PORT}\n}', want: { text: ':9999', host: '', port: 9999 }, env: { METRICS_PORT: '9999' } },
  { input: '. {\n prometheus :9153 {\n  runtime_metrics\n }\n}', want: { host: '', port: 9153 } },
  { input: '. {\n prometheus {\n }\n}', want: { host: 'localhost', port: 9153 } },
];

for (const { input, want, env } of valid) {
  test(`parsePrometheus reads ${JSON.stringify(input.split('\n')[1]!.trim())} as ${want.host || '*'}:${want.port}`, () => {
    const options = parsePrometheus(dispenser(input, env));
    assert.equal(options.address.host, want.host);
    assert.equal(options.address.port, want.port);
    if (want.text !== undefined) assert.equal(options.address.text, want.text);
  });
}

const invalid: ReadonlyArray<{ input: string; error: string; at: string }> = [
  { input: '. {\n prometheus 9153\n}', error: 'address 9153: missing port in address', at: 'Corefile:2:13' },
  { input: '. {\n prometheus ::1:9153\n}', error: 'address ::1:9153: too many colons in address', at: 'Corefile:2:13' },
  { input: '. {\n prometheus [::1]\n}', error: 'missing port in address', at: 'Corefile:2:13' },
  { input: '. {\n prometheus [::1\n}', error: "missing ']' in address", at: 'Corefile:2:13' },
  { input: '. {\n prometheus localhost:http\n}', error: "port must be a number from 0 to 65535, got 'http'", at: 'Corefile:2:13' },
  { input: '. {\n prometheus :70000\n}', error: "got '70000'", at: 'Corefile:2:13' },
  { input: '. {\n prometheus localhost:\n}', error: "got ''", at: 'Corefile:2:13' },
  { input: '. {\n prometheus :9153 :9154\n}', error: "Wrong argument count or unexpected line ending after ':9154'", at: 'Corefile:2:19' },
  { input: '. {\n prometheus :9153 {\n  foo\n }\n}', error: 'unknown option: foo', at: 'Corefile:3:3' },
  { input: '. {\n prometheus {\n  runtime_metrics yes\n }\n}', error: "Wrong argument count or unexpected line ending after 'yes'", at: 'Corefile:3:19' },
  { input: '. {\n prometheus {\n  tls web.yml\n }\n}', error: 'tls is not supported', at: 'Corefile:3:3' },
  { input: '. {\n prometheus :9153\n prometheus :9154\n}', error: 'this plugin can only be used once per Server Block', at: 'Corefile:3:2' },
];

for (const { input, error, at } of invalid) {
  test(`parsePrometheus rejects ${JSON.stringify(input.split('\n').slice(1, -1).join(' ').trim())} at ${at}`, () => {
    assert.throws(
      () => parsePrometheus(dispenser(input)),
      (e: unknown) => {
        assert.ok(e instanceof Error);
        assert.ok(e.message.includes(error), `${e.message} should include ${error}`);
        assert.ok(e.message.startsWith(`${at} `), `${e.message} should start with ${at}`);
        return true;
      },
    );
  });
}

test('prometheus and its alias metrics in one block are refused like a repeated directive', async () => {
  const metrics = { ...prometheus, name: 'metrics' };
  await assert.rejects(
    startServer('.:0 {\n prometheus 127.0.0.1:0\n metrics 127.0.0.1:0\n whoami\n}', { directives: directivesOf(prometheus, metrics, whoami) }),
    /plugin\/metrics: Corefile:3:2 - Error during parsing: this plugin can only be used once per Server Block/,
  );
});

test('a setup error names the directive as the Corefile spells it', async () => {
  const metrics = { ...prometheus, name: 'metrics' };
  await assert.rejects(
    startServer('.:0 {\n metrics 9153\n whoami\n}', { directives: directivesOf(metrics, whoami) }),
    /plugin\/metrics: Corefile:2:10 - Error during parsing: address 9153: missing port in address$/,
  );
});
