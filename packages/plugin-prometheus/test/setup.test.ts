import { test } from 'node:test';
import assert from 'node:assert/strict';
import { directivesOf, setupTable, startServer } from '@foghorn/testkit';
import type { BadCase, GoodCase } from '@foghorn/testkit';
import whoami from '@foghorn/plugin-whoami';
import prometheus, { parsePrometheus } from '../src/index.js';
import type { ListenAddress } from '../src/index.js';

const good: GoodCase<Partial<ListenAddress>>[] = [
  { input: ' prometheus', want: { text: 'localhost:9153', host: 'localhost', port: 9153 } },
  { input: ' prometheus :9153', want: { host: '', port: 9153 } },
  { input: ' prometheus localhost:9253', want: { host: 'localhost', port: 9253 } },
  { input: ' prometheus 127.0.0.1:0', want: { host: '127.0.0.1', port: 0 } },
  { input: ' prometheus 0.0.0.0:9153', want: { host: '0.0.0.0', port: 9153 } },
  { input: ' prometheus [::1]:9153', want: { host: '::1', port: 9153 } },
  { input: ' prometheus [::]:9153', want: { host: '::', port: 9153 } },
  { input: ' prometheus :{$METRICS_PORT}', want: { text: ':9999', host: '', port: 9999 } },
  { input: ' prometheus :9153 {\n  runtime_metrics\n }', want: { host: '', port: 9153 } },
  { input: ' prometheus {\n }', want: { host: 'localhost', port: 9153 } },
];

const bad: BadCase[] = [
  { input: ' prometheus 9153', error: 'Corefile:2:13 - Error during parsing: address 9153: missing port in address' },
  { input: ' prometheus ::1:9153', error: 'Corefile:2:13 - Error during parsing: address ::1:9153: too many colons in address' },
  { input: ' prometheus [::1]', error: 'Corefile:2:13 - Error during parsing: address [::1]: missing port in address' },
  { input: ' prometheus [::1', error: "Corefile:2:13 - Error during parsing: address [::1: missing ']' in address" },
  { input: ' prometheus localhost:http', error: "Corefile:2:13 - Error during parsing: address localhost:http: port must be a number from 0 to 65535, got 'http'" },
  { input: ' prometheus :70000', error: "Corefile:2:13 - Error during parsing: address :70000: port must be a number from 0 to 65535, got '70000'" },
  { input: ' prometheus localhost:', error: "Corefile:2:13 - Error during parsing: address localhost:: port must be a number from 0 to 65535, got ''" },
  { input: ' prometheus :9153 :9154', error: "Corefile:2:19 - Error during parsing: Wrong argument count or unexpected line ending after ':9154'" },
  { input: ' prometheus :9153 {\n  foo\n }', error: 'Corefile:3:3 - Error during parsing: unknown option: foo' },
  { input: ' prometheus {\n  runtime_metrics yes\n }', error: "Corefile:3:19 - Error during parsing: Wrong argument count or unexpected line ending after 'yes'" },
  { input: ' prometheus {\n  tls web.yml\n }', error: 'Corefile:3:3 - Error during parsing: tls is not supported' },
  { input: ' prometheus :9153\n prometheus :9154', error: 'Corefile:3:2 - Error during parsing: this plugin can only be used once per Server Block' },
];

// `{$METRICS_PORT}` is read from this environment.
setupTable('prometheus', (c) => parsePrometheus(c).address, { good, bad, key: '.', env: { METRICS_PORT: '9999' }, partial: true, plugin: prometheus });

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
