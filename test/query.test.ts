/**
 * `foghorn -query NAME [TYPE]`: one query through the Corefile's chain in-process, printed as dig
 * prints it with the path it took. Run through the real CLI, as operators do.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reply, rr, upstreamFor } from '@foghorn/testkit';
import { runCli } from './cli-helpers.js';

function corefile(t: { after(fn: () => void): void }, contents: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'foghorn-query-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'Corefile');
  writeFileSync(path, contents);
  return path;
}

test('-query answers a lighthouse name of Corefile.example from the clusterset manifests, with the path', async () => {
  const result = await runCli(['-conf', 'Corefile.example', '-query', 'nginx.default.svc.clusterset.local']);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /^;; ->>HEADER<<- opcode: QUERY, status: NOERROR, id: \d+\n;; flags: qr aa rd; QUERY: 1, ANSWER: 1, AUTHORITY: 0, ADDITIONAL: 1\n/);
  assert.ok(result.stdout.includes('\n;; OPT PSEUDOSECTION:\n; EDNS: version: 0, flags:; udp: 1232\n'));
  assert.ok(result.stdout.includes('\n;; QUESTION SECTION:\n;nginx.default.svc.clusterset.local.\t\tIN\tA\n'));
  assert.ok(result.stdout.includes('\n;; ANSWER SECTION:\nnginx.default.svc.clusterset.local.\t5\tIN\tA\t100.1.10.20\n'), 'cluster1 (local and healthy) answers');
  assert.ok(result.stdout.includes("\n;; ZONE: clusterset.local. on dns://127.0.0.1:1053, server block 'clusterset.local:1053' at Corefile.example:19:1\n"));
  assert.ok(result.stdout.includes('\n;; PATH: prometheus -> errors -> log -> lighthouse\n;; WRITTEN BY: lighthouse\n'), result.stdout);
  assert.doesNotMatch(result.stdout, /\[INFO\]/, 'logs go to stderr; stdout is the reply');

  const srv = await runCli(['-conf', 'Corefile.example', '-query', 'web.shop.svc.clusterset.local', 'SRV']);
  assert.equal(srv.code, 0, srv.stderr);
  assert.match(srv.stdout, /;; ANSWER SECTION:\n(web\.shop\.svc\.clusterset\.local\.\t5\tIN\tSRV\t0 50 8080 web-\d\.cluster\d\.web\.shop\.svc\.clusterset\.local\.\n){3}\n/);
});

test('-query runs the same chain where code generation is turned off', async () => {
  // Chain links and log formats are generated code; under this hardening flag both fall back to
  // shared code (core's link, log's compileWriter), and the query takes the same path.
  const env = { ...process.env, NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --disallow-code-generation-from-strings` };
  const result = await runCli(['-conf', 'Corefile.example', '-query', 'whoami.example.org'], { env });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /^;; ->>HEADER<<- opcode: QUERY, status: NOERROR, id: \d+\n/);
  assert.ok(result.stdout.includes('\n;; PATH: prometheus -> errors -> log -> whoami\n;; WRITTEN BY: whoami\n'), result.stdout);
  assert.match(result.stderr, /\[INFO\] 127\.0\.0\.1:53000 - \d+ "A IN whoami\.example\.org\. udp \d+ false 1232" NOERROR qr,aa,rd \d+ \d+(\.\d+)?s\n/);
});

test('-query follows a fallthrough to forward, which asks the upstream', async (t) => {
  const upstream = await upstreamFor(t, (q) => [reply(q, { answers: [rr(`${q.questions[0]!.name}. 30 IN A 192.0.2.53`)] })]);
  const path = corefile(t, `.:0 {\n    bind 127.0.0.1\n    hosts {\n        192.0.2.1 local.test\n        fallthrough\n    }\n    forward . 127.0.0.1:${upstream.port}\n}\n`);
  const result = await runCli(['-conf', path, '-query', 'far.test.', 'a']);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /status: NOERROR/);
  assert.ok(result.stdout.includes('\n;; ANSWER SECTION:\nfar.test.\t30\tIN\tA\t192.0.2.53\n'), result.stdout);
  assert.ok(result.stdout.includes(`\n;; ZONE: . on dns://127.0.0.1:0, server block '.:0' at ${path}:1:1\n`), result.stdout);
  assert.ok(result.stdout.includes('\n;; PATH: hosts -> forward\n;; FALLTHROUGH: hosts passed the query on\n;; WRITTEN BY: forward\n'), result.stdout);
  assert.equal(upstream.lookups.length, 1, 'one query reached the upstream');
  assert.equal(upstream.lookups[0]!.name, 'far.test');

  const local = await runCli(['-conf', path, '-query', 'local.test']);
  assert.ok(local.stdout.includes('\nlocal.test.\t3600\tIN\tA\t192.0.2.1\n'), local.stdout);
  assert.ok(local.stdout.includes('\n;; PATH: hosts\n;; WRITTEN BY: hosts\n'), local.stdout);
});

test('-query of a name no server block serves is REFUSED by the server', async (t) => {
  const path = corefile(t, 'example.org:0 {\n    bind 127.0.0.1\n    whoami\n}\n');
  const result = await runCli(['-conf', path, '-query', 'www.example.com', 'AAAA']);
  assert.equal(result.code, 0, 'a reply was produced');
  assert.match(result.stdout, /^;; ->>HEADER<<- opcode: QUERY, status: REFUSED, id: \d+\n;; flags: qr rd; QUERY: 1, ANSWER: 0, AUTHORITY: 0, ADDITIONAL: 1\n/);
  assert.ok(result.stdout.includes(';www.example.com.\t\tIN\tAAAA\n'));
  assert.ok(result.stdout.endsWith('\n;; ZONE: none (no server block serves www.example.com.)\n;; WRITTEN BY: the server (REFUSED)\n'), result.stdout);
});

test('-query reports a startup failure as start-up does, and refuses an unknown type', async (t) => {
  const path = corefile(t, `clusterset.local:0 {\n    lighthouse {\n        manifests ${tmpdir()}/foghorn-query-nope\n    }\n}\n`);
  const missing = await runCli(['-conf', path, '-query', 'x.clusterset.local']);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /^plugin\/lighthouse: .*Corefile:3:19 - Error during parsing: manifests directory '.*foghorn-query-nope': no such file or directory\n$/);
  const badType = await runCli(['-conf', 'Corefile.example', '-query', 'example.org', 'NOPE']);
  assert.equal(badType.code, 2);
  assert.equal(badType.stderr, "-query: unknown type 'NOPE'\n");
});

test('-query takes the listeners path: class CH is REFUSED unless a plugin answers it, and an unknown EDNS version gets BADVERS', async (t) => {
  const path = corefile(t, 'example.org:0 {\n    bind 127.0.0.1\n    whoami\n}\n');
  const chaos = await runCli(['-conf', path, '-query', 'example.org', 'TXT', 'CH']);
  assert.equal(chaos.code, 0, chaos.stderr);
  assert.match(chaos.stdout, /^;; ->>HEADER<<- opcode: QUERY, status: REFUSED, id: \d+\n/);
  assert.ok(chaos.stdout.includes(';example.org.\t\tCH\tTXT\n'), chaos.stdout);
  assert.ok(chaos.stdout.endsWith(';; WRITTEN BY: the server (REFUSED: class CH, and no plugin here answers classes other than IN)\n'), chaos.stdout);

  const badvers = await runCli(['-conf', path, '-query', 'example.org', '+edns=1']);
  assert.equal(badvers.code, 0, badvers.stderr);
  // BADVERS is 16: its low four bits in the header are 0, the rest in the OPT record.
  assert.match(badvers.stdout, /^;; ->>HEADER<<- opcode: QUERY, status: NOERROR, id: \d+\n;; flags: qr rd; QUERY: 1, ANSWER: 0, AUTHORITY: 0, ADDITIONAL: 1\n/);
  assert.ok(badvers.stdout.includes('\n; EDNS: version: 0, flags:; udp: 1232\n'), badvers.stdout);
  assert.ok(badvers.stdout.endsWith(';; WRITTEN BY: the server (BADVERS: EDNS version 1, only 0 is known)\n'), badvers.stdout);
  assert.doesNotMatch(badvers.stdout, /PATH:/, 'no plugin runs');

  const plain = await runCli(['-conf', path, '-query', 'example.org', 'A', 'IN', '+noedns']);
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stdout, /ADDITIONAL: 2\n/, 'whoami adds its A and SRV records');
  assert.doesNotMatch(plain.stdout, /OPT PSEUDOSECTION/, 'no OPT in the query, none in the reply');
  assert.ok(plain.stdout.endsWith(';; PATH: whoami\n;; WRITTEN BY: whoami\n'), plain.stdout);
});

test('-query of class CH reaches chaos, a plugin that answers every class', async (t) => {
  const path = corefile(t, '.:0 {\n    bind 127.0.0.1\n    chaos Foghorn-test\n}\n');
  const result = await runCli(['-conf', path, '-query', 'version.bind', 'TXT', 'CHAOS']);
  assert.equal(result.code, 0, result.stderr);
  assert.ok(result.stdout.includes('\n;; ANSWER SECTION:\nversion.bind.\t0\tCH\tTXT\t"Foghorn-test"\n'), result.stdout);
  assert.ok(result.stdout.endsWith(';; PATH: chaos\n;; WRITTEN BY: chaos\n'), result.stdout);
  const bad = await runCli(['-conf', path, '-query', 'version.bind', 'TXT', 'CH', 'extra']);
  assert.equal(bad.code, 2);
  assert.equal(bad.stderr, "-query: unexpected 'extra' after the type and class\n");
});
