/**
 * The container image, without Docker (none runs here): the Dockerfile's runtime-tree RUN step,
 * read from the Dockerfile and run in a temp directory — compiled code only, production dependencies only, no source
 * maps or type declarations — then the server started from it as a non-root user and queried.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { spawn } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { query, rcodeOf } from '@foghorn/testkit';
import { repoRoot } from '../cli-helpers.js';

/** Every file under `dir`, relative paths. */
function walk(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(dir, join(prefix, entry.name)) : [join(prefix, entry.name)],
  );
}

const NOBODY = 65534;

/** The shell command of the Dockerfile's runtime-tree stage, read from the Dockerfile itself. */
function runtimeTreeSteps(): string {
  const dockerfile = readFileSync(join(repoRoot, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const stage = dockerfile.split(/^FROM /m).find((part) => / AS runtime-tree\n/.test(part));
  const run = stage?.split('\n').find((line) => line.startsWith('RUN '));
  assert.ok(run, 'the Dockerfile has a runtime-tree stage with a RUN step');
  return run.slice('RUN '.length);
}

test('the image steps give a production-only tree that serves DNS as a non-root user', { timeout: 240_000 }, async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'foghorn-image-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  chmodSync(root, 0o755);
  // COPY package.json package-lock.json packages, then the RUN of the runtime-tree stage.
  cpSync(join(repoRoot, 'package.json'), join(root, 'package.json'));
  cpSync(join(repoRoot, 'package-lock.json'), join(root, 'package-lock.json'));
  cpSync(join(repoRoot, 'packages'), join(root, 'packages'), {
    recursive: true,
    filter: (source) => !source.includes('node_modules'),
  });
  execFileSync('sh', ['-c', runtimeTreeSteps().replace('npm ci ', 'npm ci --prefer-offline ')], { cwd: root, stdio: 'pipe' });
  const files = walk(join(root, 'packages'));
  assert.deepEqual(files.filter((f) => /\.(map|ts)$/.test(f)), [], 'no sources, maps or declarations');
  assert.equal(existsSync(join(root, 'node_modules', 'typescript')), false, 'no dev dependencies');
  assert.ok(existsSync(join(root, 'node_modules', 'dns-packet')));

  const corefile = join(root, 'Corefile');
  writeFileSync(corefile, 'example.org:0 {\n    bind 127.0.0.1\n    whoami\n}\n');
  execFileSync('chmod', ['-R', 'a+rX', root]);
  const child = spawn(process.execPath, [join(root, 'packages/foghorn/dist/src/cli.js'), '-conf', corefile], { cwd: root, uid: NOBODY, gid: NOBODY });
  t.after(() => child.kill('SIGKILL'));
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    const collect = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /^example\.org\.:(\d+) on 127\.0\.0\.1$/m.exec(output);
      if (match) resolve(Number(match[1]));
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${output}`)));
  });
  const reply = await query({ port }, 'example.org', 'A');
  assert.equal(rcodeOf(reply), 'NOERROR');
  assert.equal(reply.additionals?.[0]?.type, 'A');
  const status = execFileSync('ps', ['-o', 'uid=', '-p', String(child.pid)]).toString().trim();
  assert.equal(Number(status), NOBODY, 'the server runs as nobody');
});
