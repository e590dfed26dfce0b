/**
 * `foghorn -workers N` end to end: the real CLI with two workers serving one set of ports over
 * real UDP and TCP sockets; /metrics, /health and /ready for the whole group; reloads, a killed
 * worker, a fatal error, start-up errors, and log lines that stay whole.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { parseFlags, usage, v8Flags, withV8Flags } from 'foghorn';
import { eventually, freeDnsPort, freeTcpPort, holdTcpPort, httpGet, query, rcodeOf, tempFile } from '@foghorn/testkit';
import type { HttpReply, Reply } from '@foghorn/testkit';
import { startKubeApiServer } from '@foghorn/testkit/kube';
import type { ApiObject } from '@foghorn/testkit/kube';
import { exampleObjects } from './example-objects.js';
import { runCli, RunningCli } from './cli-helpers.js';

/** The worker processes of a primary, from Linux's /proc. */
function workerPids(primary: number): number[] {
  return readFileSync(`/proc/${primary}/task/${primary}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
}

/** The TXT text of `version.bind CH`: which worker answered, with `chaos worker-{$FOGHORN_WORKER}`. */
async function whoAnswered(port: number, transport: 'udp' | 'tcp'): Promise<string> {
  const reply: Reply = await query({ port }, 'version.bind', 'TXT', { class: 'CH', transport });
  const data = (reply.answers?.[0] as { data?: Buffer[] } | undefined)?.data;
  return data?.map((part) => part.toString()).join('') ?? '';
}

/** Starts `foghorn -workers 2` on `corefile`; resolves with the CLI and its DNS port once it serves. */
/**
 * Starts `foghorn -workers 2` on `corefile`, its `:0` server keys on one port free for UDP and TCP
 * (see testkit's freeDnsPort for why not port 0).
 */
async function startWorkers(t: { after(fn: () => void): void }, corefile: string, args: string[] = [], env?: NodeJS.ProcessEnv): Promise<{ cli: RunningCli; port: number }> {
  const fixed = await freeDnsPort();
  const conf = tempFile(t, corefile.replace(/:0 \{/g, `:${fixed} {`), 'Corefile');
  const cli = new RunningCli(['-conf', conf, '-workers', '2', ...args], env ? { env } : {});
  t.after(() => {
    if (cli.child.exitCode === null) cli.kill('SIGKILL');
  });
  const [, port] = await cli.waitFor(/^\S+:(\d+) on 127\.0\.0\.1$/m);
  await cli.waitFor(/^Foghorn-/m);
  return { cli, port: Number(port) };
}

test('-workers takes a count or auto; anything else is a usage error', async () => {
  assert.equal(parseFlags([]).workers, 1);
  assert.equal(parseFlags(['-workers', '3']).workers, 3);
  assert.equal(parseFlags(['-workers=auto']).workers, availableParallelism());
  for (const bad of ['0', '-1', 'two', '1.5', '257']) {
    assert.throws(() => parseFlags(['-workers', bad]), { message: `invalid value "${bad}" for flag -workers: must be auto or a number from 1 to 256` });
  }
  const result = await runCli(['-workers', 'two', '-validate']);
  assert.equal(result.code, 2);
  assert.equal(result.stderr, 'invalid value "two" for flag -workers: must be auto or a number from 1 to 256\n');
  assert.match(usage, /^ {2}-workers string\n {8}Processes serving the same ports, N or "auto"/m);
});

test("workers get the V8 flags unless the operator's node command line sets them", () => {
  const inlining = '--max-inlined-bytecode-size-cumulative=4000';
  assert.deepEqual(withV8Flags([]), ['--min-semi-space-size=4', '--max-semi-space-size=4', inlining]);
  assert.deepEqual(withV8Flags(['--import', 'x.js']), ['--min-semi-space-size=4', '--max-semi-space-size=4', inlining, '--import', 'x.js']);
  // V8 reads `_` and `-` alike in a flag's name.
  assert.deepEqual(withV8Flags(['--min_semi_space_size=16']), [inlining, '--min_semi_space_size=16']);
  assert.deepEqual(withV8Flags(['--min-semi-space-size=1']), [inlining, '--min-semi-space-size=1']);
  // Either semi-space flag sizes the young generation: an operator's one stands alone.
  assert.deepEqual(withV8Flags(['--max-semi-space-size=32', '--import', 'x.js']), [inlining, '--max-semi-space-size=32', '--import', 'x.js']);
  assert.deepEqual(withV8Flags(['--max_inlined_bytecode_size_cumulative=920']), ['--min-semi-space-size=4', '--max-semi-space-size=4', '--max_inlined_bytecode_size_cumulative=920']);
});

test('FOGHORN_DISABLE=v8-flags: workers run with V8 defaults, and answer over UDP and TCP', async (t) => {
  const env = { ...process.env, FOGHORN_DISABLE: 'v8-flags' };
  const { cli, port } = await startWorkers(t, `.:0 {\n    bind 127.0.0.1\n    chaos worker-{$FOGHORN_WORKER}\n}\n`, [], env);
  const pids = workerPids(cli.child.pid!);
  assert.equal(pids.length, 2);
  for (const pid of pids) {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    for (const flag of v8Flags) assert.ok(!argv.includes(flag), `worker ${pid} runs without ${flag}: ${argv.join(' ')}`);
  }
  for (const transport of ['udp', 'tcp'] as const) assert.match(await whoAnswered(port, transport), /^worker-[12]$/);
});

test('two workers answer over UDP and TCP on one port, both of them, and /metrics sums them', async (t) => {
  const metricsPort = await freeTcpPort();
  const pidfile = tempFile(t, '', 'foghorn.pid');
  const { cli, port } = await startWorkers(
    t,
    `.:0 {\n    bind 127.0.0.1\n    chaos worker-{$FOGHORN_WORKER}\n    prometheus 127.0.0.1:${metricsPort}\n}\n`,
    ['-pidfile', pidfile],
  );
  assert.equal(readFileSync(pidfile, 'utf8'), `${cli.child.pid}\n`, 'the pidfile holds the primary');
  assert.equal(cli.output.match(/^Foghorn-/gm)?.length, 1, 'one banner for the group');
  assert.equal(workerPids(cli.child.pid!).length, 2);
  // Started without them, the primary still gives its workers the V8 flags (v8-flags.ts).
  for (const pid of workerPids(cli.child.pid!)) {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    for (const flag of v8Flags) assert.ok(argv.includes(flag), `worker ${pid} runs with ${flag}: ${argv.join(' ')}`);
  }

  const seen = new Map<string, number>();
  const sent = { udp: 0, tcp: 0 };
  for (const transport of ['udp', 'tcp'] as const) {
    // TCP connections are dealt round-robin; a UDP datagram goes to whichever worker the kernel
    // wakes first, which on a quiet machine may be the same one for a while: bursts in parallel
    // until both answered (a worker that never answers fails the test at the deadline).
    const deadline = Date.now() + 15_000;
    do {
      const answers = await Promise.all(Array.from({ length: 20 }, () => whoAnswered(port, transport)));
      sent[transport] += answers.length;
      for (const answer of answers) seen.set(`${transport} ${answer}`, (seen.get(`${transport} ${answer}`) ?? 0) + 1);
    } while (!(seen.has(`${transport} worker-1`) && seen.has(`${transport} worker-2`)) && Date.now() < deadline);
  }
  assert.deepEqual([...seen.keys()].sort(), ['tcp worker-1', 'tcp worker-2', 'udp worker-1', 'udp worker-2'], JSON.stringify([...seen]));

  const scrape = await httpGet(metricsPort, '/metrics');
  assert.equal(scrape.status, 200);
  const count = (proto: string): number =>
    Number(new RegExp(`^coredns_dns_requests_total\\{[^}]*proto="${proto}"[^}]*type="TXT"\\} (\\d+)$`, 'm').exec(scrape.text)?.[1]);
  assert.equal(count('udp'), sent.udp, 'every UDP query, whichever worker answered it');
  assert.equal(count('tcp'), sent.tcp);
  assert.match(scrape.text, /^coredns_build_info\{[^}]*\} 1$/m, 'a build-info gauge is not summed');
  assert.match(scrape.text, /^coredns_plugin_enabled\{[^}]*name="chaos"\} 1$/m);
  assert.equal(scrape.text.match(/^process_start_time_seconds \d+/gm)?.length, 1);

  cli.kill('SIGTERM');
  assert.equal(await cli.exited, 0);
  assert.equal(cli.output.match(/SIGTERM: Shutting down servers then terminating/g)?.length, 1);
  assert.equal(existsSync(pidfile), false);
});

test('SIGINT and SIGQUIT on the primary end every worker, with the single process\'s exit status', async (t) => {
  for (const [signal, line] of [
    ['SIGINT', 'SIGINT: Shutting down'],
    ['SIGQUIT', 'SIGQUIT: Quitting process immediately'],
  ] as const) {
    const { cli } = await startWorkers(t, `.:0 {\n    bind 127.0.0.1\n    whoami\n}\n`);
    const workers = workerPids(cli.child.pid!);
    cli.kill(signal);
    assert.equal(await cli.exited, 0, signal);
    assert.equal(cli.output.split(line).length - 1, 1, `one ${signal} line`);
    for (const pid of workers) assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, `worker ${pid} is gone after ${signal}`);
  }
});

test('/health and /ready answer for every worker: a stopped worker makes both 503', async (t) => {
  const health = await freeTcpPort();
  const ready = await freeTcpPort();
  const { cli } = await startWorkers(t, `.:0 {\n    bind 127.0.0.1\n    whoami\n    health 127.0.0.1:${health}\n    ready 127.0.0.1:${ready}\n}\n`);
  await eventually(async () => (await httpGet(ready, '/ready')).status === 200, 5_000, '/ready');
  assert.equal((await httpGet(health, '/health')).text, 'OK');

  const [, second] = workerPids(cli.child.pid!);
  process.kill(second!, 'SIGSTOP');
  t.after(() => {
    try {
      process.kill(second!, 'SIGCONT');
    } catch {
      // Gone already.
    }
  });
  // A connection the primary hands to the stopped worker is never answered (a probe's timeout);
  // the running worker answers 503, naming the one that did not answer.
  const statuses = async (port: number, path: string): Promise<HttpReply> => {
    for (;;) {
      const reply = await httpGet(port, path, { timeoutMs: 1_500 }).catch(() => undefined);
      if (reply) return reply;
    }
  };
  const sick = await statuses(health, '/health');
  assert.equal(sick.status, 503);
  assert.equal(sick.text, 'worker 2 not answering');
  const notReady = await statuses(ready, '/ready');
  assert.equal(notReady.status, 503);
  assert.equal(notReady.text, 'worker 2');
  process.kill(second!, 'SIGCONT');
  await eventually(async () => (await httpGet(health, '/health', { timeoutMs: 2_000 })).status === 200, 5_000, '/health again');
  assert.equal((await httpGet(ready, '/ready', { timeoutMs: 2_000 })).status, 200);
});

test('SIGUSR1 reloads every worker in turn while queries keep being answered', async (t) => {
  const { cli, port } = await startWorkers(t, `.:0 {\n    bind 127.0.0.1\n    chaos before\n}\n`);
  const conf = cli.child.spawnargs[cli.child.spawnargs.indexOf('-conf') + 1]!;
  let streaming = true;
  let answered = 0;
  const lost: string[] = [];
  // One query at a time, no retry: any query a reloading worker dropped shows up as lost.
  const stream = (async () => {
    while (streaming) {
      try {
        await whoAnswered(port, 'udp');
        answered++;
      } catch (error) {
        lost.push((error as Error).message);
      }
    }
  })();
  await eventually(() => answered > 20, 5_000, 'queries before the reload');
  writeFileSync(conf, `.:${port} {\n    bind 127.0.0.1\n    chaos after\n}\n`);
  cli.kill('SIGUSR1');
  await cli.waitFor(/(\[INFO\] Reloading complete[\s\S]*){2}/);
  const before = answered;
  await eventually(() => answered > before + 20, 5_000, 'queries after the reload');
  streaming = false;
  await stream;
  assert.deepEqual(lost, []);
  assert.equal(cli.output.match(/SIGUSR1: Reloading/g)?.length, 1, 'the primary logs the signal once');
  const answers = new Set(await Promise.all(Array.from({ length: 20 }, () => whoAnswered(port, 'tcp'))));
  assert.deepEqual([...answers], ['after'], 'every worker serves the new Corefile');
});

test("the reload plugin's request reloads every worker, once", async (t) => {
  const { cli, port } = await startWorkers(t, `.:0 {\n    bind 127.0.0.1\n    reload 2s 1s\n    chaos before\n}\n`);
  // Both workers printed it at start-up; the primary writes such a line once, as one process does.
  assert.equal(cli.output.match(/plugin\/reload: Running configuration SHA512/g)?.length, 1);
  const conf = cli.child.spawnargs[cli.child.spawnargs.indexOf('-conf') + 1]!;
  // Written aside and renamed: a watcher never reads a half-written Corefile.
  writeFileSync(`${conf}.new`, `.:${port} {\n    bind 127.0.0.1\n    reload 2s 1s\n    chaos after\n}\n`);
  renameSync(`${conf}.new`, conf);
  await cli.waitFor(/(\[INFO\] Reloading complete[\s\S]*){2}/, 20_000);
  const answers = new Set(await Promise.all(Array.from({ length: 20 }, () => whoAnswered(port, 'tcp'))));
  assert.deepEqual([...answers], ['after']);
  // Both workers' watchers see the change; the second request joins the round the first started.
  // One line from start-up, then one from each worker's new instance.
  await eventually(() => (cli.output.match(/plugin\/reload: Running configuration SHA512/g)?.length ?? 0) >= 3, 10_000, 'both watchers on the new Corefile');
  assert.equal(cli.output.match(/\[INFO\] Reloading complete/g)?.length, 2);
});

test('a killed worker is logged and restarted, and the port keeps answering', async (t) => {
  const { cli, port } = await startWorkers(t, `.:0 {\n    bind 127.0.0.1\n    whoami\n}\n`);
  const [first] = workerPids(cli.child.pid!);
  process.kill(first!, 'SIGKILL');
  await cli.waitFor(new RegExp(`^\\[ERROR\\] worker 1 \\(pid ${first}\\) was killed by signal SIGKILL: restarting in 100ms$`, 'm'));
  const [, restarted] = await cli.waitFor(/^\[INFO\] worker 1 \(pid (\d+)\) restarted$/m);
  assert.notEqual(Number(restarted), first);
  assert.deepEqual(workerPids(cli.child.pid!).includes(Number(restarted)), true);
  assert.equal(workerPids(cli.child.pid!).length, 2);
  for (const transport of ['udp', 'tcp'] as const) {
    const replies = await Promise.all(Array.from({ length: 10 }, () => query({ port }, 'example.org', 'A', { transport })));
    assert.ok(replies.every((reply) => rcodeOf(reply) === 'NOERROR'));
  }
});

test("a restarted worker carries on the counters of the one it replaces: /metrics's sums never go down", async (t) => {
  const metricsPort = await freeTcpPort();
  const { cli, port } = await startWorkers(t, `.:0 {\n    bind 127.0.0.1\n    chaos worker-{$FOGHORN_WORKER}\n    prometheus 127.0.0.1:${metricsPort}\n}\n`);
  const scrape = async (): Promise<{ requests: number; durations: number }> => {
    const { text } = await httpGet(metricsPort, '/metrics');
    const sum = (pattern: RegExp): number => [...text.matchAll(pattern)].reduce((total, [, value]) => total + Number(value), 0);
    return {
      requests: sum(/^coredns_dns_requests_total\{[^}]*type="TXT"\} (\d+)$/gm),
      durations: sum(/^coredns_dns_request_duration_seconds_count\{[^}]*\} (\d+)$/gm),
    };
  };
  // TCP connections are dealt round-robin: both workers answer some.
  const answers = await Promise.all(Array.from({ length: 20 }, () => whoAnswered(port, 'tcp')));
  assert.ok(answers.includes('worker-1') && answers.includes('worker-2'), answers.join(' '));
  assert.deepEqual(await scrape(), { requests: 20, durations: 20 });

  const restarts = (): string[] => [...cli.output.matchAll(/^\[INFO\] worker 1 \(pid (\d+)\) restarted$/gm)].map(([, pid]) => pid!);
  const [first] = workerPids(cli.child.pid!);
  process.kill(first!, 'SIGKILL');
  await eventually(() => restarts().length === 1, 10_000, 'worker 1 restarted');
  assert.deepEqual(await scrape(), { requests: 20, durations: 20 }, "worker 1's share is still counted");
  await Promise.all(Array.from({ length: 10 }, () => whoAnswered(port, 'tcp')));
  assert.deepEqual(await scrape(), { requests: 30, durations: 30 });

  // Killed twice more, the second time before any scrape reached it: its successor still
  // carries what it had inherited.
  process.kill(Number(restarts()[0]), 'SIGKILL');
  await eventually(() => restarts().length === 2, 10_000, 'worker 1 restarted again');
  process.kill(Number(restarts()[1]), 'SIGKILL');
  await eventually(() => restarts().length === 3, 10_000, 'worker 1 restarted a third time');
  assert.deepEqual(await scrape(), { requests: 30, durations: 30 });
});

test("a worker's fatal error ends every worker with exit status 1, as CoreDNS's log.Fatal", async (t) => {
  const port = await freeDnsPort();
  const conf = tempFile(t, `.:${port} {\n    bind 127.0.0.1\n    loop\n    forward . 127.0.0.1:${port}\n}\n`, 'Corefile');
  const cli = new RunningCli(['-conf', conf, '-workers', '2']);
  t.after(() => {
    if (cli.child.exitCode === null) cli.kill('SIGKILL');
  });
  assert.equal(await cli.exited, 1, cli.output);
  assert.match(cli.output, /^\[FATAL\] plugin\/loop: Loop \(127\.0\.0\.1:\d+ -> 127\.0\.0\.1:\d+\) detected for zone "\."/m);
  assert.doesNotMatch(cli.output, /restarting/);
});

test('start-up errors: the same text and exit status 1 as a single process', async (t) => {
  const bad = tempFile(t, '.:0 {\n    whoami\n    nosuch\n}\n', 'Corefile');
  const parse = await runCli(['-conf', bad, '-workers', '2']);
  assert.equal(parse.code, 1);
  assert.equal(parse.stderr, `${bad}:3:5 - Error during parsing: Unknown directive 'nosuch'\n`);

  const held = await holdTcpPort();
  t.after(held.close);
  const busy = tempFile(t, `.:0 {\n    bind 127.0.0.1\n    whoami\n    health 127.0.0.1:${held.port}\n}\n`, 'Corefile');
  const single = await runCli(['-conf', busy]);
  const workers = await runCli(['-conf', busy, '-workers', '2']);
  assert.equal(workers.code, 1);
  assert.equal(workers.stderr, single.stderr);
  assert.equal(workers.stderr, `plugin/health: ${busy}:4:5 - listen tcp 127.0.0.1:${held.port}: bind: address already in use\n`);
});

test('log lines of two busy workers never interleave mid-line', async (t) => {
  // A 3 KB line per query: far above a pipe's 4 KB atomic write once several are batched.
  const padding = 'x'.repeat(3_000);
  const { cli, port } = await startWorkers(t, `.:0 {\n    bind 127.0.0.1\n    log . "BEGIN {name} ${padding} END"\n    whoami\n}\n`);
  const queries = 600;
  for (let round = 0; round < queries / 60; round++) {
    await Promise.all(Array.from({ length: 60 }, (_, i) => query({ port }, `q${round}-${i}.example.org`, 'A', { transport: i % 2 === 0 ? 'udp' : 'tcp' })));
  }
  await eventually(() => (cli.output.match(/^\[INFO\] BEGIN /gm)?.length ?? 0) >= queries, 10_000, 'every log line');
  cli.kill('SIGTERM');
  assert.equal(await cli.exited, 0);
  const logged = cli.output.split('\n').filter((line) => line.includes('BEGIN') || line.includes('END'));
  assert.equal(logged.length, queries);
  const whole = new RegExp(`^\\[INFO\\] BEGIN q\\d+-\\d+\\.example\\.org\\. ${padding} END$`);
  for (const line of logged) assert.match(line, whole);
});

test('kubernetes under -workers 2: the primary holds one set of watches, every worker answers from it and sees events', async (t) => {
  const api = await startKubeApiServer();
  t.after(() => api.close());
  for (const object of exampleObjects('cluster')) api.apply(object);
  const { cli, port } = await startWorkers(
    t,
    `.:0 {\n    bind 127.0.0.1\n    chaos worker-{$FOGHORN_WORKER}\n    kubernetes cluster.local {\n        endpoint ${api.url}\n    }\n}\n`,
  );
  const address = async (transport: 'udp' | 'tcp'): Promise<string> => {
    const reply = await query({ port }, 'web.shop.svc.cluster.local', 'A', { transport });
    return (reply.answers ?? []).map((rr) => String((rr as { data?: unknown }).data)).join(',');
  };
  // What one process watches (Services, EndpointSlices, Namespaces), once, for both workers.
  const expected = { '/api/v1/namespaces': 1, '/api/v1/services': 1, '/apis/discovery.k8s.io/v1/endpointslices': 1 };
  await eventually(async () => (await address('udp')) === '10.96.100.10', 10_000, 'the first answer');
  assert.deepEqual(Object.fromEntries(Object.entries(api.requestCounts('watch')).sort()), expected);
  assert.deepEqual(Object.fromEntries(Object.entries(api.requestCounts('list')).sort()), expected);

  // TCP connections are dealt round-robin: consecutive ones reach both workers, and each must
  // answer with the changed address once the event crossed from the primary.
  const web = exampleObjects('cluster').find((o) => o.kind === 'Service' && o.metadata.name === 'web')!;
  api.apply({ ...web, spec: { ...(web['spec'] as object), clusterIP: '10.96.100.99', clusterIPs: ['10.96.100.99'] } });
  await eventually(async () => (await Promise.all([address('tcp'), address('tcp'), address('tcp'), address('tcp')])).every((a) => a === '10.96.100.99'), 5_000, 'the update in every worker');
  const answered = new Set(await Promise.all(Array.from({ length: 6 }, () => whoAnswered(port, 'tcp'))));
  assert.deepEqual([...answered].sort(), ['worker-1', 'worker-2']);
  for (let i = 0; i < 6; i++) assert.equal(await address('tcp'), '10.96.100.99');
  assert.deepEqual(Object.fromEntries(Object.entries(api.requestCounts('watch')).sort()), expected, 'no watch per worker');

  cli.kill('SIGTERM');
  assert.equal(await cli.exited, 0);
  await eventually(() => Object.keys(api.openWatches()).length === 0, 5_000, 'the watches closed');
});

test('kubernetes under -workers 2: a slice change is observed, and a bad trigger time warned about, once per server, from the API server and from manifests', async (t) => {
  const trigger = 'endpoints.kubernetes.io/last-change-trigger-time';
  const at = new Date(Date.now() - 1500).toISOString();
  const api = await startKubeApiServer();
  t.after(() => api.close());
  for (const object of exampleObjects('cluster')) api.apply(object);
  // A manifests directory with a ClusterIP service whose slice carries a trigger time.
  const labSlice = (name: string, hostname: string, ip: string, time: string): ApiObject => ({
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name, namespace: 'lab', resourceVersion: '1', labels: { 'kubernetes.io/service-name': 'cache' }, annotations: { [trigger]: time } },
    addressType: 'IPv4',
    endpoints: [{ addresses: [ip], hostname, conditions: { ready: true } }],
  });
  const list = (items: ApiObject[]): string => JSON.stringify({ apiVersion: 'v1', kind: 'List', items });
  const lab = dirname(
    tempFile(
      t,
      list([
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'lab' } },
        { apiVersion: 'v1', kind: 'Service', metadata: { name: 'cache', namespace: 'lab' }, spec: { type: 'ClusterIP', clusterIP: '10.97.0.1', clusterIPs: ['10.97.0.1'] } },
        labSlice('cache-1', 'c-0', '10.245.0.1', at),
      ]),
      'lab.json',
    ),
  );
  const metricsPort = await freeTcpPort();
  const { cli, port } = await startWorkers(
    t,
    `cluster.local:0 {\n    bind 127.0.0.1\n    prometheus 127.0.0.1:${metricsPort}\n    kubernetes {\n        endpoint ${api.url}\n    }\n}\n` +
      `lab.local:0 {\n    bind 127.0.0.1\n    kubernetes {\n        manifests ${lab}\n    }\n}\n`,
  );
  const observed = async (kind: string): Promise<number> => {
    const scrape = await httpGet(metricsPort, '/metrics');
    return Number(new RegExp(`^coredns_kubernetes_dns_programming_duration_seconds_count\\{service_kind="${kind}"\\} (\\d+)$`, 'm').exec(scrape.text)?.[1] ?? 0);
  };
  /** Until four TCP connections in a row (dealt round-robin: both workers) count `addresses` A records for `name`. */
  const inEveryWorker = (name: string, addresses: number): Promise<void> =>
    eventually(
      async () => (await Promise.all(Array.from({ length: 4 }, () => query({ port }, name, 'A', { transport: 'tcp' })))).every((reply) => (reply.answers ?? []).length === addresses),
      5_000,
      `${addresses} addresses of ${name} in every worker`,
    );

  // Each worker applied the directory's first scan before it came up.
  assert.equal(await observed('cluster_ip'), 1, 'the manifests slice, observed by one worker');
  const db = exampleObjects('cluster').find((o) => o.kind === 'EndpointSlice' && o.metadata.name === 'db-h2m4x')!;
  const endpoint = (n: number): object => ({ addresses: [`10.244.1.${22 + n}`], hostname: `db-${2 + n}`, conditions: { ready: true } });
  const dbSlice = (more: number, time: string): ApiObject => ({
    ...db,
    metadata: { ...db.metadata, annotations: { [trigger]: time } },
    endpoints: [...(db['endpoints'] as object[]), ...Array.from({ length: more }, (_, n) => endpoint(n))],
  });
  api.apply(dbSlice(1, at));
  await inEveryWorker('db.shop.svc.cluster.local', 3);
  assert.equal(await observed('headless_with_selector'), 1, 'the API server slice, observed by one worker');
  // The watches' HTTP requests are the primary's: each is counted once, by one worker, so the
  // REST client metrics read as one process's (every list and watch the API server answered).
  const made = (): number => [...Object.values(api.requestCounts('list')), ...Object.values(api.requestCounts('watch'))].reduce((sum, n) => sum + n, 0);
  const counted = async (): Promise<number> => {
    const scrape = await httpGet(metricsPort, '/metrics');
    return Number(/^coredns_kubernetes_rest_client_requests_total\{code="200",method="GET",host="127\.0\.0\.1:\d+"\} (\d+)$/m.exec(scrape.text)?.[1] ?? 0);
  };
  await eventually(async () => (await counted()) === made() && made() >= 6, 5_000, 'the REST client requests counted once');

  // Identical start-up lines of the workers are written once; a reload ends that window, so
  // from here on each worker's warning would show.
  cli.kill('SIGUSR1');
  await cli.waitFor(/(\[INFO\] Reloading complete[\s\S]*){2}/);
  api.apply(dbSlice(2, 'yesterday'));
  writeFileSync(join(lab, 'more.json'), list([labSlice('cache-2', 'c-1', '10.245.0.2', 'yesterday')]));
  await inEveryWorker('db.shop.svc.cluster.local', 4);
  await inEveryWorker('c-1.cache.lab.svc.lab.local', 1);
  const warned = (slice: string): number => cli.output.split('\n').filter((line) => line.includes(`DnsProgrammingLatency cannot be calculated for Endpoints '${slice}'`)).length;
  await eventually(() => warned('shop/db-h2m4x') > 0 && warned('lab/cache-2') > 0, 5_000, 'the warnings');
  // A scrape asks both workers through the primary: lines they wrote before their answers are out by then.
  await httpGet(metricsPort, '/metrics');
  assert.equal(warned('shop/db-h2m4x'), 1, cli.output);
  assert.equal(warned('lab/cache-2'), 1, cli.output);
});
