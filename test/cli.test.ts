/** The `foghorn` command: flags, -validate, the default Corefile, signals and SIGUSR1 reloads. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { holdTcpPort, query, rcodeOf } from '@foghorn/testkit';
import { runCli, RunningCli } from './cli-helpers.js';

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'foghorn-cli-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('-version prints the banner and exits 0', async () => {
  const result = await runCli(['-version']);
  assert.equal(result.code, 0);
  assert.match(result.stdout, /^Foghorn-\d+\.\d+\.\d+\n/);
});

test('-plugins lists the directives in chain order with their packages', async () => {
  const result = await runCli(['-plugins']);
  assert.equal(result.code, 0);
  const names = result.stdout.trim().split('\n').map((line) => line.split('\t')[0]);
  assert.ok(names.includes('whoami') && names.includes('bind'));
  assert.ok(names.indexOf('bind') < names.indexOf('whoami'), 'bind comes before whoami as in plugin.cfg');
  assert.match(result.stdout, /whoami\t@foghorn\/plugin-whoami\t/);
});

test('unknown flags and positional arguments are refused', async () => {
  const unknown = await runCli(['-nope']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /flag provided but not defined: -nope/);
  const extra = await runCli(['Corefile']);
  assert.equal(extra.code, 2);
  assert.match(extra.stderr, /extra command line arguments: \[Corefile\]/);
});

test('-validate prints OK for a good Corefile and file:line:column for a bad one', async (t) => {
  const dir = tempDir(t);
  const good = join(dir, 'Corefile');
  writeFileSync(good, 'example.org:1053 {\n    bind 192.0.2.1\n    whoami\n}\n');
  const ok = await runCli(['-validate', '-conf', good]);
  assert.equal(ok.stdout, 'OK\n');
  assert.equal(ok.code, 0, 'validating never binds, even an address that is not local');
  const bad = join(dir, 'Bad');
  writeFileSync(bad, '.:1053 {\n    whoami\n    nosuch arg\n}\n');
  const failed = await runCli(['-validate', '-conf', bad]);
  assert.equal(failed.code, 1);
  assert.equal(failed.stderr.trim(), `${bad}:3:5 - Error during parsing: Unknown directive 'nosuch'`);
  const typo = join(dir, 'Typo');
  writeFileSync(typo, '.:1053 {\n    whoami\n    forwrd . 127.0.0.1\n');
  const hinted = await runCli(['-validate', '-conf', typo]);
  assert.equal(hinted.stderr.trim(), `${typo}:3:5 - Error during parsing: Unknown directive 'forwrd' (did you mean 'forward'?)`);
  const missing = await runCli(['-validate', '-conf', join(dir, 'missing')]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /loading Corefile via flag: open .*missing: no such file or directory/);
  const argument = join(dir, 'Arg');
  writeFileSync(argument, '.:1053 {\n    whoami extra\n}\n');
  const argError = await runCli(['-validate', '-conf', argument]);
  assert.equal(argError.stderr.trim(), `plugin/whoami: ${argument}:2:12 - Error during parsing: Wrong argument count or unexpected line ending after 'extra'`);
  const stdin = await runCli(['-validate', '-conf', 'stdin'], { input: 'tls://.:853 {\n  whoami\n}\n' });
  assert.equal(stdin.code, 1);
  assert.equal(stdin.stderr.trim(), 'stdin:1:1 - Error during parsing: cannot serve tls://.:853 - a tls:// server block needs the tls directive (tls CERT KEY [CA])');
  const quic = await runCli(['-validate', '-conf', 'stdin'], { input: 'quic://.:853 {\n  whoami\n}\n' });
  assert.match(quic.stderr, /^stdin:1:1 - Error during parsing: quic:\/\/ server blocks are not supported yet/);
});

test('without a Corefile the built-in default serves whoami on -dns.port', async (t) => {
  const dir = tempDir(t);
  const cli = new RunningCli(['-dns.port', '0'], { cwd: dir });
  t.after(() => cli.kill('SIGKILL'));
  const [, port] = await cli.waitFor(/^\.:(\d+)$/m);
  assert.match(cli.output, /\[WARNING\] no Corefile found/);
  const reply = await query({ port: Number(port) }, 'example.org', 'A');
  assert.equal(rcodeOf(reply), 'NOERROR');
  assert.equal(reply.additionals?.[0]?.type, 'A');
});

test('SIGUSR1 reloads a good Corefile, keeps the old one on a bad one, and SIGTERM exits 0', async (t) => {
  const dir = tempDir(t);
  const corefile = join(dir, 'Corefile');
  const pidfile = join(dir, 'foghorn.pid');
  writeFileSync(corefile, 'a.test:0 {\n    bind 127.0.0.1\n    whoami\n}\n');
  const cli = new RunningCli(['-conf', corefile, '-pidfile', pidfile]);
  t.after(() => cli.kill('SIGKILL'));
  const [, portText] = await cli.waitFor(/^a\.test\.:(\d+) on 127\.0\.0\.1$/m);
  const target = { port: Number(portText) };
  assert.ok(existsSync(pidfile));
  assert.equal(rcodeOf(await query(target, 'x.b.test', 'A')), 'REFUSED');

  writeFileSync(corefile, 'a.test:0 {\n    bind 127.0.0.1\n    whoami\n}\nb.test:0 {\n    bind 127.0.0.1\n    whoami\n}\n');
  cli.kill('SIGUSR1');
  await cli.waitFor(/\[INFO\] Reloading complete/);
  assert.equal(rcodeOf(await query(target, 'x.b.test', 'A')), 'NOERROR', 'the new zone is served on the same port');

  writeFileSync(corefile, 'a.test:0 {\n    bind 127.0.0.1\n    whoami\n    broken\n}\n');
  cli.kill('SIGUSR1');
  await cli.waitFor(/\[ERROR\] Restart failed: .*Corefile:4:5 - Error during parsing: Unknown directive 'broken'/);
  assert.equal(rcodeOf(await query(target, 'x.b.test', 'A')), 'NOERROR', 'the old configuration keeps serving');

  cli.kill('SIGTERM');
  assert.equal(await cli.exited, 0);
  assert.match(cli.output, /\[INFO\] SIGTERM: Shutting down servers then terminating/);
  assert.equal(existsSync(pidfile), false, 'the pidfile is removed on exit');
});

test('-validate refuses what start-up would: a missing manifests directory or kubeconfig, at the argument', async (t) => {
  const dir = tempDir(t);
  const manifests = join(dir, 'Manifests');
  writeFileSync(manifests, `clusterset.local:1053 {\n    lighthouse {\n        manifests ${join(dir, 'nope')}\n    }\n}\n`);
  const noDir = await runCli(['-validate', '-conf', manifests]);
  assert.equal(noDir.code, 1);
  assert.equal(
    noDir.stderr.trim(),
    `plugin/lighthouse: ${manifests}:3:19 - Error during parsing: manifests directory '${join(dir, 'nope')}': no such file or directory`,
  );
  const kubeconfig = join(dir, 'Kubeconfig');
  writeFileSync(kubeconfig, `clusterset.local:1053 {\n    lighthouse {\n        kubeconfig ${join(dir, 'kube.conf')} east\n    }\n}\n`);
  const noFile = await runCli(['-validate', '-conf', kubeconfig]);
  assert.equal(noFile.code, 1);
  assert.equal(noFile.stderr.trim(), `plugin/lighthouse: ${kubeconfig}:3:20 - Error during parsing: kubeconfig '${join(dir, 'kube.conf')}': no such file or directory`);
  writeFileSync(join(dir, 'kube.conf'), 'not: [a kubeconfig\n');
  const exists = await runCli(['-validate', '-conf', kubeconfig]);
  assert.equal(exists.stdout, 'OK\n', 'validating reads nothing: whether the file is a usable kubeconfig is for start-up to say');
});

test('start-up failures name the plugin and where the Corefile uses it; listen errors keep CoreDNS wording', async (t) => {
  const dir = tempDir(t);
  const kubeconfig = join(dir, 'kube.conf');
  writeFileSync(kubeconfig, 'not: [a kubeconfig\n');
  const garbage = join(dir, 'Garbage');
  writeFileSync(garbage, `clusterset.local:0 {\n    bind 127.0.0.1\n    lighthouse {\n        kubeconfig ${kubeconfig}\n    }\n}\n`);
  const failed = await runCli(['-conf', garbage]);
  assert.equal(failed.code, 1);
  assert.ok(failed.stderr.startsWith(`plugin/lighthouse: ${garbage}:3:5 - kubeconfig '${kubeconfig}': `), failed.stderr);

  const held = await holdTcpPort();
  t.after(held.close);
  const taken = held.port;
  const health = join(dir, 'Health');
  writeFileSync(health, `.:0 {\n    bind 127.0.0.1\n    whoami\n    health 127.0.0.1:${taken}\n}\n`);
  const busy = await runCli(['-conf', health]);
  assert.equal(busy.code, 1);
  assert.equal(busy.stderr, `plugin/health: ${health}:4:5 - listen tcp 127.0.0.1:${taken}: bind: address already in use\n`);

  const dns = join(dir, 'Dns');
  writeFileSync(dns, `.:${taken} {\n    bind 127.0.0.1\n    whoami\n}\n`);
  const listen = await runCli(['-conf', dns]);
  assert.equal(listen.code, 1);
  assert.equal(listen.stderr, `Listen: listen tcp 127.0.0.1:${taken}: bind: address already in use\n`);
});

