import assert from 'node:assert/strict';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { Server } from '@foghorn/core/server';
import { captureLog, directivesOf, eventually, makeQuery, query, rcodeOf, udpExchange } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import whoami from '@foghorn/plugin-whoami';
import { createReloadPlugin } from '../src/index.js';
import { hashCorefile } from '../src/hash.js';

// CoreDNS's 2s minimum would make every test wait seconds; the watcher is the same code.
const reload = createReloadPlugin({ limits: { minIntervalMs: 0, minJitterMs: 0 } });
const directives = directivesOf(reload, bind, whoami);

function block(zone: string, extra = '    reload 50ms 20ms\n'): string {
  return `${zone}:0 {\n${extra}    bind 127.0.0.1\n    whoami\n}\n`;
}

/** A server whose Corefile is a real file in a temp directory, re-read on every load. */
async function serveFile(t: TestContext, contents: string): Promise<{ server: Server; path: string; lines: string[]; port: () => number }> {
  const dir = await mkdtemp(join(tmpdir(), 'foghorn-reload-'));
  const path = join(dir, 'Corefile');
  await writeFile(path, contents);
  const { logger, lines } = captureLog();
  const server = new Server({ directives, dnsPort: 0, logger, loadCorefile: async () => ({ path, contents: await readFile(path, 'utf8') }) });
  await server.start();
  t.after(async () => {
    await server.stop({ graceful: false });
    await rm(dir, { recursive: true, force: true });
  });
  return { server, path, lines, port: () => server.addresses[0]!.port };
}

/**
 * Replaces the file in one step, as editors and Kubernetes ConfigMap updates do, so a check never
 * reads a half-written Corefile.
 */
async function replaceFile(path: string, contents: string): Promise<void> {
  await writeFile(`${path}.tmp`, contents);
  await rename(`${path}.tmp`, path);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const count = (lines: string[], text: string): number => lines.filter((line) => line.includes(text)).length;

async function metric(server: Server, name: string): Promise<string[]> {
  return (await server.registry.metrics()).split('\n').filter((line) => line.startsWith(name));
}

test('a changed Corefile is picked up and the new configuration serves', async (t) => {
  const first = block('example.org');
  const { server, path, lines, port } = await serveFile(t, first);
  const firstHash = hashCorefile({ path, contents: first });
  assert.deepEqual(lines.filter((l) => l.includes('SHA512')), [`[INFO] plugin/reload: Running configuration SHA512 = ${firstHash}`]);
  assert.equal(rcodeOf(await query({ port: port() }, 'example.net', 'A')), 'REFUSED');
  // Nothing is set before the first reload attempt (CoreDNS's plugin/reload).
  assert.deepEqual(await metric(server, 'coredns_reload_version_info{'), []);

  const second = block('example.net');
  await replaceFile(path, second);
  await eventually(() => lines.includes('[INFO] Reloading complete'), 10_000, 'the reload');
  const secondHash = hashCorefile({ path, contents: second });
  assert.ok(lines.includes(`[INFO] plugin/reload: Running configuration SHA512 = ${secondHash}`), lines.join('\n'));
  assert.equal(rcodeOf(await query({ port: port() }, 'example.net', 'A')), 'NOERROR');
  assert.equal(rcodeOf(await query({ port: port() }, 'example.org', 'A')), 'REFUSED');
  assert.deepEqual(await metric(server, 'coredns_reload_version_info{'), [`coredns_reload_version_info{hash="sha512",value="${secondHash}"} 1`]);

  // The next change replaces the version label instead of adding one.
  const third = block('example.com');
  await replaceFile(path, third);
  await eventually(() => count(lines, 'Reloading complete') === 2, 10_000, 'the second reload');
  const thirdHash = hashCorefile({ path, contents: third });
  assert.deepEqual(await metric(server, 'coredns_reload_version_info{'), [`coredns_reload_version_info{hash="sha512",value="${thirdHash}"} 1`]);
  assert.deepEqual(await metric(server, 'coredns_reload_failed_total '), ['coredns_reload_failed_total 0']);
});

test('a broken Corefile keeps the old one serving, is counted once and not retried', async (t) => {
  const { server, path, lines, port } = await serveFile(t, block('example.org'));
  await replaceFile(path, block('example.org', '    reload 50ms 20ms\n    nosuch\n'));
  await eventually(() => lines.some((line) => /^\[ERROR\] plugin\/reload: Corefile changed but reload failed: .*Unknown directive 'nosuch'/.test(line)), 10_000, 'the failed reload');
  assert.ok(lines.some((l) => /^\[ERROR\] Restart failed: .*Unknown directive 'nosuch'/.test(l)), lines.join('\n'));
  assert.deepEqual(await metric(server, 'coredns_reload_failed_total '), ['coredns_reload_failed_total 1']);
  assert.equal(rcodeOf(await query({ port: port() }, 'example.org', 'A')), 'NOERROR');
  // Several more periods: the same broken content is not tried again.
  await sleep(250);
  assert.equal(count(lines, 'Restart failed'), 1);
  assert.deepEqual(await metric(server, 'coredns_reload_failed_total '), ['coredns_reload_failed_total 1']);
  // Fixing it reloads.
  await replaceFile(path, block('example.net'));
  await eventually(() => lines.includes('[INFO] Reloading complete'), 10_000, 'the reload');
  assert.equal(rcodeOf(await query({ port: port() }, 'example.net', 'A')), 'NOERROR');
});

test('a Corefile that does not parse is reported and no reload is tried', async (t) => {
  const { server, path, lines, port } = await serveFile(t, block('example.org'));
  await replaceFile(path, 'example.org:0 {\n    reload 50ms\n    whoami\n');
  await eventually(() => lines.some((l) => l.startsWith('[WARNING] plugin/reload: Corefile parse failed: ')), 10_000, 'the parse warning');
  assert.equal(count(lines, 'Reloading'), 0);
  assert.deepEqual(await metric(server, 'coredns_reload_failed_total '), ['coredns_reload_failed_total 0']);
  assert.equal(rcodeOf(await query({ port: port() }, 'example.org', 'A')), 'NOERROR');
});

test('a Corefile without reload stops the watching after it is loaded', async (t) => {
  const { path, lines } = await serveFile(t, block('example.org'));
  await replaceFile(path, block('example.net', ''));
  await eventually(() => lines.includes('[INFO] Reloading complete'), 10_000, 'the reload');
  await replaceFile(path, block('example.com', ''));
  await sleep(250);
  assert.equal(count(lines, 'Reloading complete'), 1);
  assert.equal(count(lines, 'SHA512'), 1);
});

test('several blocks with reload share one watcher', async (t) => {
  const { path, lines } = await serveFile(t, block('example.org') + block('example.net'));
  assert.equal(count(lines, 'SHA512'), 1);
  await replaceFile(path, block('example.org') + block('example.com'));
  await eventually(() => lines.includes('[INFO] Reloading complete'), 10_000, 'the reload');
  await sleep(150);
  assert.equal(count(lines, '[INFO] Reloading'), 2, lines.join('\n')); // "Reloading" and "Reloading complete", once
  assert.equal(count(lines, 'SHA512'), 2);
});

test('a reload triggered from outside re-bases the watcher on the new configuration', async (t) => {
  const { server, path, lines } = await serveFile(t, block('example.org', '    reload 1h\n'));
  await replaceFile(path, block('example.net'));
  assert.equal(await server.reload(), true);
  // The new configuration's shorter period now applies, and its content isn't reloaded again.
  await sleep(200);
  assert.equal(count(lines, 'Reloading complete'), 1);
  await replaceFile(path, block('example.com'));
  await eventually(() => count(lines, 'Reloading complete') === 2, 10_000, 'the watcher reload');
});

test('a reload while a load of queries runs loses none', async (t) => {
  const { server, port } = await serveFile(t, block('example.org', ''));
  const total = 2_000;
  const concurrency = 32;
  let sent = 0;
  let answered = 0;
  const unanswered: number[] = [];
  const worker = async (): Promise<void> => {
    while (sent < total) {
      const id = sent++;
      const reply = await udpExchange({ port: port() }, makeQuery('example.org', 'A', { id }));
      if (reply && reply.readUInt16BE(0) === id) answered++;
      else unanswered.push(id);
    }
  };
  let reloads = 0;
  let done = false;
  const reloader = (async () => {
    // Every reload builds a new configuration and chain and swaps it into the listener.
    while (!done) {
      assert.equal(await server.reload(), true);
      reloads++;
    }
  })();
  await Promise.all(Array.from({ length: concurrency }, worker));
  done = true;
  await reloader;
  assert.deepEqual(unanswered, []);
  assert.equal(answered, total);
  assert.ok(reloads >= 5, `only ${reloads} reloads happened during the load`);
  t.diagnostic(`${total} queries answered across ${reloads} reloads`);
});
