import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { Profile } from 'pprof-format';
import { directivesOf, freeTcpPort, hasTool, httpGet, query, requireFixture, startServer, tempFile } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import whoami from '@foghorn/plugin-whoami';
import pprof from '../src/index.js';

const run = promisify(execFile);
const directives = directivesOf(bind, pprof, whoami);

/** `go tool pprof -top FILE` (Debian's golang-go): what pprof's own reader makes of a profile. */
async function pprofTop(t: Parameters<typeof tempFile>[0], profile: Buffer, ...flags: string[]): Promise<string> {
  requireFixture(hasTool('go', ['version']), 'go (golang-go)');
  const file = tempFile(t, '', 'profile.pb.gz');
  const { writeFileSync } = await import('node:fs');
  writeFileSync(file, profile);
  const { stdout } = await run('go', ['tool', 'pprof', '-top', ...flags, file], { env: { ...process.env, HOME: process.env['HOME'] ?? '/tmp', PPROF_TMPDIR: '/tmp' } });
  return stdout;
}

async function startPprof(t: { after(fn: () => unknown): void }): Promise<{ port: number; dns: number }> {
  const port = await freeTcpPort();
  const server = await startServer(`example.org:0 {\n bind 127.0.0.1\n pprof 127.0.0.1:${port}\n whoami\n}\n`, { directives });
  t.after(() => server.close());
  return { port, dns: server.port() };
}

test('the endpoints answer as Go net/http/pprof does for the profiles Node has', async (t) => {
  const { port } = await startPprof(t);
  const redirect = await httpGet(port, '/debug/pprof');
  assert.equal(redirect.status, 302);
  assert.equal(redirect.headers.location, '/debug/pprof/');
  const index = await httpGet(port, '/debug/pprof/');
  assert.equal(index.status, 200);
  assert.match(index.headers['content-type'] ?? '', /^text\/html/);
  for (const name of ['cmdline', 'heap', 'profile']) assert.match(index.text, new RegExp(`<a href='${name}\\?debug=1'>${name}</a>`));
  const cmdline = await httpGet(port, '/debug/pprof/cmdline');
  assert.equal(cmdline.status, 200);
  assert.deepEqual(cmdline.text.split('\0'), process.argv);
  assert.equal((await httpGet(port, '/debug/pprof/symbol')).text, 'num_symbols: 0\n');
  for (const name of ['goroutine', 'allocs', 'block', 'mutex', 'threadcreate', 'trace', 'nope']) {
    const reply = await httpGet(port, `/debug/pprof/${name}`);
    assert.deepEqual([reply.status, reply.text, reply.headers['x-go-pprof']], [404, 'Unknown profile\n', '1'], name);
  }
  const other = await httpGet(port, '/debug/');
  assert.deepEqual([other.status, other.text], [404, '404 page not found\n']);
});

test('a CPU profile of the serving process reads in go tool pprof, and a second one at once is refused', async (t) => {
  const { port, dns } = await startPprof(t);
  const profiling = httpGet(port, '/debug/pprof/profile?seconds=1');
  const busy = await httpGet(port, '/debug/pprof/profile?seconds=1');
  assert.deepEqual([busy.status, busy.text], [500, 'Could not enable CPU profiling: cpu profiling already in use\n']);
  // Work for the profiler to see.
  const until = Date.now() + 800;
  while (Date.now() < until) await query({ port: dns }, 'example.org', 'A');
  const reply = await profiling;
  assert.equal(reply.status, 200);
  assert.equal(reply.headers['content-type'], 'application/octet-stream');
  assert.equal(reply.headers['content-disposition'], 'attachment; filename="profile"');
  const profile = Profile.decode(gunzipSync(reply.body));
  assert.ok(profile.sample.length > 0);
  const top = await pprofTop(t, reply.body);
  assert.match(top, /^Type: cpu$/m);
  assert.match(top, /^Duration: 1(\.\d+)?s, Total samples = /m);
  assert.match(top, /flat%/);
});

test('a heap profile of live objects reads in go tool pprof', async (t) => {
  const { port } = await startPprof(t);
  // Something to find: 8 arrays of 2^20 elements, 64 MiB of V8 heap kept alive by this test.
  const kept = Array.from({ length: 8 }, (_, i) => new Array<number>(1 << 20).fill(i));
  const reply = await httpGet(port, '/debug/pprof/heap?gc=1');
  assert.equal(reply.status, 200);
  assert.equal(reply.headers['content-disposition'], 'attachment; filename="heap"');
  const top = await pprofTop(t, reply.body, '-sample_index=inuse_space');
  assert.match(top, /^Type: inuse_space$/m);
  const total = /of ([\d.]+)(kB|MB|GB) total/.exec(top);
  const megabytes = total ? Number(total[1]) * { kB: 1 / 1024, MB: 1, GB: 1024 }[total[2] as 'kB' | 'MB' | 'GB'] : 0;
  assert.ok(megabytes > 60, top);
  // The allocation site (the arrow function above, anonymous to V8) holds nearly all of it.
  assert.match(top, /^\s*\S+\s+(9\d|100)(\.\d+)?%.*\(anonymous\)$/m);
  assert.equal(kept.length, 8);
});
