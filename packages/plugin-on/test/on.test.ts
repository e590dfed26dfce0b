/**
 * *on* with real commands: startup commands run once the listeners are open, again after each
 * successful reload, one after another; shutdown commands run when the server stops; `&` starts
 * a command without waiting; failures are logged with Go's wording; -validate runs nothing.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { validateCorefile } from '@foghorn/core/server';
import bind from '@foghorn/plugin-bind';
import whoami from '@foghorn/plugin-whoami';
import { directivesOf, eventually, freeDnsPort, startServer } from '@foghorn/testkit';
import on from '../src/index.js';

const directives = directivesOf(bind, whoami, on);

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'foghorn-on-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
const block = (port: number | string, lines: string): string => `.:${port} {\n  bind 127.0.0.1\n  whoami\n${lines}\n}\n`;
const uuid = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

test('startup commands run once the server listens, one after another, and log caddy\'s line', async (t) => {
  const dir = tempDir(t);
  const port = await freeDnsPort();
  // The first command connects to the server's TCP port: it works only if the listener is open.
  const probe = join(dir, 'probe.cjs');
  writeFileSync(
    probe,
    `require('net').connect(${port}, '127.0.0.1')
       .on('connect', () => { require('fs').appendFileSync(${JSON.stringify(join(dir, 'log'))}, 'listening\\n'); process.exit(0); })
       .on('error', () => process.exit(1));`,
  );
  const server = await startServer(block(port, `  on startup ${process.execPath} ${probe}\n  on startup sh -c 'echo second >> ${dir}/log'`), { directives });
  t.after(() => server.close());
  await eventually(() => readFileSync(join(dir, 'log'), 'utf8') === 'listening\nsecond\n');
  assert.match(server.lines.find((line) => line.includes('Blocking Command "sh')) ?? '', new RegExp(`^\\[INFO\\] plugin/on: Blocking Command "sh -c echo second >> ${dir}/log" with ID ${uuid}$`));
  assert.deepEqual(server.lines.filter((line) => line.startsWith('[ERROR]')), []);
});

test('startup commands run again after a successful reload, with the new configuration\'s commands', async (t) => {
  const dir = tempDir(t);
  const server = await startServer(block(0, `  on startup sh -c 'echo first >> ${dir}/log'`), { directives });
  t.after(() => server.close());
  await eventually(() => existsSync(join(dir, 'log')));
  assert.equal(await server.reload(block(0, `  on startup sh -c 'echo second >> ${dir}/log'`)), true);
  await eventually(() => readFileSync(join(dir, 'log'), 'utf8') === 'first\nsecond\n');
  // A reload that fails starts nothing.
  assert.equal(await server.reload(block(0, `  on startup sh -c 'echo third >> ${dir}/log'\n  nonsense_directive`)), false);
  assert.equal(await server.reload(block(0, `  on startup sh -c 'echo fourth >> ${dir}/log'`)), true);
  await eventually(() => readFileSync(join(dir, 'log'), 'utf8') === 'first\nsecond\nfourth\n');
});

test('shutdown commands run when the server stops, and are waited for', async (t) => {
  const dir = tempDir(t);
  const server = await startServer(block(0, `  on shutdown sh -c 'sleep 0.2; touch ${dir}/stopped'\n  on startup touch ${dir}/started`), { directives });
  await eventually(() => existsSync(join(dir, 'started')));
  assert.equal(existsSync(join(dir, 'stopped')), false);
  await server.close();
  assert.equal(existsSync(join(dir, 'stopped')), true);
});

test('a command ending in & is started and not waited for', async (t) => {
  const dir = tempDir(t);
  const release = join(dir, 'release');
  // The background command waits for a file the test writes; the next command runs meanwhile.
  const server = await startServer(block(0, `  on startup sh -c 'while [ ! -e ${release} ]; do sleep 0.05; done; touch ${dir}/background' &\n  on startup touch ${dir}/next`), { directives });
  t.after(() => server.close());
  await eventually(() => existsSync(join(dir, 'next')));
  assert.equal(existsSync(join(dir, 'background')), false);
  assert.ok(server.lines.some((line) => new RegExp(`^\\[INFO\\] plugin/on: Nonblocking Command "sh -c while .*" with ID ${uuid}$`).test(line)));
  writeFileSync(release, '');
  await eventually(() => existsSync(join(dir, 'background')));
});

test('commands that cannot start or that fail are logged with Go\'s wording; the server serves on', async (t) => {
  const dir = tempDir(t);
  const server = await startServer(
    block(0, `  on startup /nonexistent/cmd\n  on startup no-such-command-foghorn\n  on startup false\n  on startup sh -c 'kill -9 $$'\n  on startup touch ${dir}/last`),
    { directives },
  );
  t.after(() => server.close());
  await eventually(() => existsSync(join(dir, 'last')));
  const errors = server.lines.filter((line) => line.startsWith('[ERROR]')).map((line) => line.replace(new RegExp(uuid), 'ID'));
  assert.deepEqual(errors, [
    "[ERROR] plugin/on: error on 'on-ID' hook: fork/exec /nonexistent/cmd: no such file or directory",
    `[ERROR] plugin/on: error on 'on-ID' hook: exec: "no-such-command-foghorn": executable file not found in $PATH`,
    "[ERROR] plugin/on: error on 'on-ID' hook: exit status 1",
    "[ERROR] plugin/on: error on 'on-ID' hook: signal: killed",
  ]);
});

test('-validate runs no command', async (t) => {
  const dir = tempDir(t);
  await validateCorefile({ path: 'Corefile', contents: block(53, `  on startup touch ${dir}/started\n  on shutdown touch ${dir}/stopped`) }, { directives });
  assert.equal(existsSync(join(dir, 'started')), false);
  assert.equal(existsSync(join(dir, 'stopped')), false);
});
