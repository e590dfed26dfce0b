/**
 * The *loop* plugin end to end: the real `foghorn` process forwarding to itself detects the loop,
 * logs CoreDNS's fatal line and exits with status 1; one forwarding elsewhere keeps serving.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, freeDnsPort, query, rcodeOf, tempFile, upstreamFor } from '@foghorn/testkit';
import { RunningCli } from './cli-helpers.js';

test('foghorn forwarding to itself logs the loop as FATAL and exits with status 1', async (t) => {
  const port = await freeDnsPort();
  const conf = tempFile(t, `.:${port} {\n    bind 127.0.0.1\n    loop\n    forward . 127.0.0.1:${port}\n}\n`, 'Corefile');
  const cli = new RunningCli(['-conf', conf]);
  t.after(() => cli.child.exitCode === null && cli.kill('SIGKILL'));
  const code = await cli.exited;
  assert.equal(code, 1, cli.output);
  assert.match(
    cli.output,
    new RegExp(
      `^\\[FATAL\\] plugin/loop: Loop \\(127\\.0\\.0\\.1:\\d+ -> 127\\.0\\.0\\.1:${port}\\) detected for zone "\\.", see https://coredns\\.io/plugins/loop#troubleshooting\\. Query: "HINFO \\d+\\.\\d+\\."$`,
      'm',
    ),
  );
});

test('foghorn with loop and a forward that does not come back keeps serving', async (t) => {
  const upstream = await upstreamFor(t);
  const probes = (): number => upstream.queries.filter((q) => q.type === 'HINFO').length;
  const port = await freeDnsPort();
  const conf = tempFile(t, `.:${port} {\n    bind 127.0.0.1\n    loop\n    forward . ${upstream.address}\n}\n`, 'Corefile');
  const cli = new RunningCli(['-conf', conf]);
  t.after(() => cli.child.exitCode === null && cli.kill('SIGKILL'));
  await cli.waitFor(/^Foghorn-/m);
  await eventually(() => probes() > 0, 10_000, 'the probe at the upstream');
  assert.equal(probes(), 1, 'the probe reached the upstream and was answered');
  assert.equal(rcodeOf(await query({ port }, 'example.org', 'HINFO')), 'NOERROR');
  assert.equal(cli.child.exitCode, null, 'still running');
  assert.doesNotMatch(cli.output, /FATAL/);
  cli.kill('SIGTERM');
  assert.equal(await cli.exited, 0);
});
