/**
 * The *loop* plugin end to end: the real `foghorn` process forwarding to itself detects the loop,
 * logs CoreDNS's fatal line and exits with status 1; one forwarding elsewhere keeps serving.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Request, ResponseWriter } from '@foghorn/core';
import { directivesOf, freeTcpPort, query, rcodeOf, startServer, testPlugin } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import { Whoami } from '@foghorn/plugin-whoami';
import { RunningCli } from './cli-helpers.js';

function corefileIn(t: { after(fn: () => void): void }, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'foghorn-loop-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'Corefile');
  writeFileSync(path, text);
  return path;
}

test('foghorn forwarding to itself logs the loop as FATAL and exits with status 1', async (t) => {
  const port = await freeTcpPort();
  const conf = corefileIn(t, `.:${port} {\n    bind 127.0.0.1\n    loop\n    forward . 127.0.0.1:${port}\n}\n`);
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
  let probes = 0;
  const upstream = await startServer('.:0 {\n bind 127.0.0.1\n recorder\n}\n', {
    directives: directivesOf(
      bind,
      testPlugin('recorder', () => {
        const answer = new Whoami();
        return {
          name: 'recorder',
          serveDNS(req: Request, w: ResponseWriter): number {
            if (req.type === 'HINFO') probes++;
            return answer.serveDNS(req, w);
          },
        };
      }),
    ),
  });
  t.after(() => upstream.close());
  const port = await freeTcpPort();
  const conf = corefileIn(t, `.:${port} {\n    bind 127.0.0.1\n    loop\n    forward . 127.0.0.1:${upstream.port()}\n}\n`);
  const cli = new RunningCli(['-conf', conf]);
  t.after(() => cli.child.exitCode === null && cli.kill('SIGKILL'));
  await cli.waitFor(/^Foghorn-/m);
  const deadline = Date.now() + 10_000;
  while (probes === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(probes, 1, 'the probe reached the upstream and was answered');
  assert.equal(rcodeOf(await query({ port }, 'example.org', 'HINFO')), 'NOERROR');
  assert.equal(cli.child.exitCode, null, 'still running');
  assert.doesNotMatch(cli.output, /FATAL/);
  cli.kill('SIGTERM');
  assert.equal(await cli.exited, 0);
});
