// The embedding example, run as a program: it serves clusterset.local from examples/clusterset
// with its own directive list, and refuses directives outside that list.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { query, rcodeOf } from '@foghorn/testkit';

const program = fileURLToPath(new URL('../lighthouse-dns.js', import.meta.url));
const clusterset = fileURLToPath(new URL('../../clusterset', import.meta.url));

function run(args) {
  const child = spawn(process.execPath, [program, ...args]);
  let output = '';
  const started = new Promise((resolve, reject) => {
    const collect = (chunk) => {
      output += chunk.toString();
      const match = /^clusterset\.local\. on 127\.0\.0\.1:(\d+)$/m.exec(output);
      if (match) resolve(Number(match[1]));
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${output}`)));
  });
  return { child, started, output: () => output };
}

test('the embedded Lighthouse-only server answers clusterset.local names', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'foghorn-embed-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const corefile = join(dir, 'Corefile');
  writeFileSync(corefile, `clusterset.local:0 {\n    bind 127.0.0.1\n    lighthouse {\n        manifests ${clusterset}\n        cluster_id cluster1\n    }\n}\n`);
  const { child, started } = run([corefile]);
  t.after(() => child.kill('SIGKILL'));
  const port = await started;
  const reply = await query({ port }, 'nginx.default.svc.clusterset.local', 'A');
  assert.equal(rcodeOf(reply), 'NOERROR');
  assert.deepEqual(reply.answers?.map((rr) => rr.data), ['100.1.10.20']);
  assert.equal(rcodeOf(await query({ port }, 'example.org', 'A')), 'REFUSED');
});

test('the embedded server knows only the directives it chose', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'foghorn-embed-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const corefile = join(dir, 'Corefile');
  writeFileSync(corefile, 'example.org:0 {\n    whoami\n}\n');
  const { child, started, output } = run([corefile]);
  t.after(() => child.kill('SIGKILL'));
  await assert.rejects(started);
  assert.match(output(), /Corefile:2:5 - Error during parsing: Unknown directive 'whoami'/);
});
