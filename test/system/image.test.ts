/**
 * The container image, without Docker (none runs here): the Dockerfile's runtime-tree RUN step,
 * read from the Dockerfile and run in a temp directory — compiled code only, production dependencies only, no source
 * maps or type declarations — then the server started from it, with the ENTRYPOINT's node flags,
 * as a non-root user and queried.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { spawn } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { v8Flags } from 'foghorn';
import { query, rcodeOf } from '@foghorn/testkit';
import { repoRoot, runCli } from '../cli-helpers.js';

/** Every file under `dir`, relative paths. */
function walk(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(dir, join(prefix, entry.name)) : [join(prefix, entry.name)],
  );
}

const NOBODY = 65534;

/** The shell commands of one Dockerfile stage's RUN steps, read from the Dockerfile itself. */
function stageSteps(name: string): string[] {
  const dockerfile = readFileSync(join(repoRoot, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const stage = dockerfile.split(/^FROM /m).find((part) => new RegExp(` AS ${name}\n`).test(part));
  const runs = stage?.split('\n').filter((line) => line.startsWith('RUN ')) ?? [];
  assert.ok(runs.length > 0, `the Dockerfile has a ${name} stage with a RUN step`);
  return runs.map((line) => line.slice('RUN '.length));
}

/** The node flags of the ENTRYPOINT (what stands between the node binary and the script). */
function entrypointNodeFlags(): string[] {
  const line = readFileSync(join(repoRoot, 'Dockerfile'), 'utf8').split('\n').find((l) => l.startsWith('ENTRYPOINT '));
  assert.ok(line, 'the Dockerfile has an ENTRYPOINT');
  const argv = JSON.parse(line.slice('ENTRYPOINT '.length)) as string[];
  assert.equal(argv[0], '/nodejs/bin/node');
  assert.equal(argv.at(-1), '/foghorn/packages/foghorn/dist/src/cli.js');
  return argv.slice(1, -1);
}

function runtimeTreeSteps(): string {
  return stageSteps('runtime-tree')[0]!;
}

/** Waits for `foghorn`'s zone line and returns its port. */
function servedPort(child: ReturnType<typeof spawn>, zone: RegExp): Promise<number> {
  let output = '';
  return new Promise<number>((resolve, reject) => {
    const collect = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = zone.exec(output);
      if (match) resolve(Number(match[1]));
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${output}`)));
  });
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
  // The ENTRYPOINT's flags are the serving process's (v8-flags.ts), and this node accepts them.
  const flags = entrypointNodeFlags();
  assert.deepEqual(flags, v8Flags);
  const child = spawn(process.execPath, [...flags, join(root, 'packages/foghorn/dist/src/cli.js'), '-conf', corefile], { cwd: root, uid: NOBODY, gid: NOBODY });
  t.after(() => child.kill('SIGKILL'));
  const port = await servedPort(child, /^example\.org\.:(\d+) on 127\.0\.0\.1$/m);
  const reply = await query({ port }, 'example.org', 'A');
  assert.equal(rcodeOf(reply), 'NOERROR');
  assert.equal(reply.additionals?.[0]?.type, 'A');
  const status = execFileSync('ps', ['-o', 'uid=', '-p', String(child.pid)]).toString().trim();
  assert.equal(Number(status), NOBODY, 'the server runs as nobody');
});

test("the image's node binary binds a port below 1024 as a non-root user, through its file capability", { timeout: 60_000 }, async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'foghorn-image-cap-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  chmodSync(root, 0o755);
  // The node-capability stage's setcap step, on a copy of this machine's node.
  const setcap = stageSteps('node-capability').find((step) => step.startsWith('setcap '));
  assert.ok(setcap, 'the node-capability stage runs setcap');
  const node = join(root, 'nodejs', 'bin', 'node');
  cpSync(process.execPath, node);
  execFileSync('sh', ['-c', setcap.replaceAll('/nodejs/', `${root}/nodejs/`)], { stdio: 'pipe' });
  assert.match(execFileSync('getcap', [node]).toString(), /cap_net_bind_service[=+]+e?p/);
  execFileSync('chmod', ['-R', 'a+rX', root]);

  // This machine lets unprivileged processes bind only from this port on.
  assert.ok(Number(readFileSync('/proc/sys/net/ipv4/ip_unprivileged_port_start', 'utf8')) > 953, 'port 953 needs a privilege here');
  const corefile = join(root, 'Corefile');
  writeFileSync(corefile, 'example.org:953 {\n    bind 127.0.0.1\n    whoami\n}\n');
  const child = spawn(node, [join(repoRoot, 'packages/foghorn/dist/src/cli.js'), '-conf', corefile], { cwd: root, uid: NOBODY, gid: NOBODY });
  t.after(() => child.kill('SIGKILL'));
  assert.equal(await servedPort(child, /^example\.org\.:(\d+) on 127\.0\.0\.1$/m), 953);
  assert.equal(rcodeOf(await query({ port: 953 }, 'example.org', 'A')), 'NOERROR');
  const uid = execFileSync('ps', ['-o', 'uid=', '-p', String(child.pid)]).toString().trim();
  assert.equal(Number(uid), NOBODY, 'the server runs as nobody');
});

test("the image's default Corefile works in a container: .:53, no bind, nothing from the repository", async () => {
  const corefile = readFileSync(join(repoRoot, 'examples/container/Corefile'), 'utf8');
  assert.match(readFileSync(join(repoRoot, 'Dockerfile'), 'utf8'), /^COPY examples\/container\/Corefile \/etc\/coredns\/Corefile$/m);
  assert.match(corefile, /^\.:53 \{$/m);
  assert.doesNotMatch(corefile, /^\s*(bind|import|manifests|kubeconfig)\b/m);
  const result = await runCli(['-validate', '-conf', join(repoRoot, 'examples/container/Corefile')]);
  assert.equal(result.stdout, 'OK\n', result.stderr);
});
