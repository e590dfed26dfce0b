/**
 * `-workers`: the primary's informer hub and real forked workers (fixtures/hub-worker.ts) that
 * build their registry and manifests directories as plugins do, against the test API server.
 * The API server must see one process's watches whatever the number of workers; every worker
 * must see every event, in order; a worker's exit drops its references.
 */
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import type { Worker } from 'node:cluster';
import { once } from 'node:events';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { captureLog, eventually } from '@foghorn/testkit';
import { makeTempDir, startKubeApiServer } from '@foghorn/testkit/kube';
import type { ApiObject, KubeApiServer } from '@foghorn/testkit/kube';
import { hubEnvironmentVariable, InformerRegistry, isHubWorker, ManifestsDirectory, manifestsDirectory, servicesResource, startInformerHub } from '../src/index.js';
import type { HubWorker, InformerHub } from '../src/index.js';
import type { Command, Report } from './fixtures/hub-worker.js';

/** What the `-workers` supervisor attaches: a cluster worker fits as a forked child does (checked by the compiler). */
const attachable = (worker: Worker | ChildProcess): HubWorker => worker;

const workerScript = fileURLToPath(new URL('./fixtures/hub-worker.js', import.meta.url));
const fast = { backoffInitialMs: 10, backoffMaxMs: 80, watchTimeoutSeconds: 30, watchdogMs: 5000, env: {} } as const;

type Failure = NonNullable<(Report & { test: 'done' })['error']>;

/** A forked worker and what it reported, by ref. */
class TestWorker {
  private readonly events = new Map<string, string[]>();
  /** Every event as `REF EVENT`, in the order the worker reported them. */
  readonly order: string[] = [];
  private readonly waiting = new Map<string, (report: Report & { test: 'done' }) => void>();

  constructor(readonly child: ChildProcess) {
    child.on('message', (message: Report) => {
      if (message.test === 'event') {
        let list = this.events.get(message.ref);
        if (!list) this.events.set(message.ref, (list = []));
        list.push(message.event);
        this.order.push(`${message.ref} ${message.event}`);
      } else if (message.test === 'done') {
        this.waiting.get(message.ref)?.(message);
      }
    });
  }

  /** What the worker's subscriber or directory `ref` was told, in order; `log` for its log lines. */
  seen(ref: string): string[] {
    return this.events.get(ref) ?? [];
  }

  /** Runs `command`; resolves with its value, rejects with the worker's error as it reported it. */
  async run(command: Command): Promise<unknown> {
    const report = await new Promise<Report & { test: 'done' }>((resolve) => {
      this.waiting.set(command.ref, resolve);
      this.child.send(command);
    });
    this.waiting.delete(command.ref);
    if (report.error) throw Object.assign(new Error(report.error.message), report.error);
    return report.value;
  }

  async failure(command: Command): Promise<Failure> {
    const error = await this.run(command).then(
      () => assert.fail(`${command.test} ${command.ref} succeeded`),
      (e: Failure) => e,
    );
    return { name: error.name, message: error.message, kubeConnectionError: error.kubeConnectionError };
  }

  async kill(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = once(this.child, 'exit');
    this.child.kill('SIGKILL');
    await exited;
  }
}

/** Forks a worker (with the hub's variable unless `hub` is false) and attaches it to `hub`. */
async function startWorker(t: TestContext, hub: InformerHub, useHub = true): Promise<TestWorker> {
  const env = { ...process.env, [hubEnvironmentVariable]: useHub ? '1' : '' };
  const child = fork(workerScript, [], { env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  hub.attach(attachable(child));
  const worker = new TestWorker(child);
  t.after(() => worker.kill());
  const [ready] = (await once(child, 'message')) as [Report & { test: 'ready' }];
  assert.equal(ready.hub, useHub, 'the worker knows whether it uses the hub');
  return worker;
}

function startHub(t: TestContext): { hub: InformerHub; lines: string[] } {
  const { logger, lines } = captureLog();
  const hub = startInformerHub({ logger });
  t.after(() => hub.close());
  return { hub, lines };
}

async function apiServer(t: TestContext): Promise<KubeApiServer> {
  const api = await startKubeApiServer();
  t.after(() => api.close());
  return api;
}

function service(name: string, clusterIP = '10.0.0.1'): ApiObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec: { clusterIP, ports: [{ name: 'http', port: 80, protocol: 'TCP' }] } };
}

function acquire(ref: string, api: KubeApiServer, report = false, logIntervalMs?: number): Command {
  return { test: 'acquire', ref, connection: { endpoint: api.url }, resource: servicesResource(), options: { ...fast, plugin: 'kubernetes', ...(logIntervalMs ? { logIntervalMs } : {}) }, report };
}

const hubUsers = (hub: InformerHub): [string, number][] => hub.registry.list().map((i) => [i.resource.plural, i.users]);

test('two workers share one list and one watch; every event reaches each of their subscribers in order', async (t) => {
  const api = await apiServer(t);
  api.apply(service('a'));
  const { hub, lines } = startHub(t);
  const [one, two] = await Promise.all([startWorker(t, hub), startWorker(t, hub)]);
  // The API server is away until every stream has joined, so that nobody joins after the list
  // (which would relist: the registry keeps no objects to replay).
  await api.stop();
  // A second lease in one worker shares that worker's stream: still one reference in the hub.
  // Every warning logged (not one a 30 s): the refused lists warn, and so must the failure below.
  await Promise.all([one.run(acquire('first', api, false, 1)), two.run(acquire('first', api, false, 1)), one.run(acquire('second', api, false, 1))]);
  await api.restart();
  const expected = ['replace a', 'synced'];
  await eventually(() => [one.seen('first'), one.seen('second'), two.seen('first')].every((seen) => seen.length === 2), 3000, 'the first list in every subscriber');
  for (const seen of [one.seen('first'), one.seen('second'), two.seen('first')]) assert.deepEqual(seen, expected);
  api.apply(service('b'));
  api.apply(service('a', '10.0.0.2'));
  api.delete(service('b'));
  await eventually(() => [one.seen('first'), one.seen('second'), two.seen('first')].every((seen) => seen.length === 5), 3000, 'three events everywhere');
  for (const seen of [one.seen('first'), one.seen('second'), two.seen('first')]) assert.deepEqual(seen, [...expected, 'upsert b', 'upsert a', 'delete b']);
  assert.deepEqual(api.requestCounts('list'), { '/api/v1/services': 1 });
  assert.deepEqual(api.requestCounts('watch'), { '/api/v1/services': 1 });
  assert.deepEqual(hubUsers(hub), [['services', 2]]);
  const { restarts: _, ...state } = (await one.run({ test: 'state', ref: 'second' })) as { restarts: number };
  assert.deepEqual(state, { synced: true, objects: ['default/a'], informers: [['services', 2]] });

  // A restart in the primary counts in one worker's lease (their sum is the server's count), and
  // is logged once, by the primary, as the plugin. (The refused lists above counted already.)
  const restarts = (): Promise<number[]> => Promise.all([one, two].map(async (w) => ((await w.run({ test: 'state', ref: 'first' })) as { restarts: number }).restarts));
  const before = await restarts();
  lines.splice(0, lines.length);
  api.errorWatches(500);
  const more = async (): Promise<number[]> => (await restarts()).map((n, i) => n - before[i]!);
  await eventually(async () => (await more()).some((n) => n > 0), 3000, 'the restart in a worker');
  assert.equal((await more()).filter((n) => n > 0).length, 1, 'counted in the leading worker only');
  await eventually(() => lines.some((line) => line.startsWith('[WARNING] plugin/kubernetes: watch ')), 3000, "the primary's warning");
  assert.deepEqual([...one.seen('log'), ...two.seen('log')], [], 'workers log nothing of the watch');

  // Releasing in a worker drops its reference; the last one stops the watch.
  await Promise.all([one.run({ test: 'release', ref: 'first' }), two.run({ test: 'release', ref: 'first' })]);
  assert.deepEqual(hubUsers(hub), [['services', 1]]);
  await one.run({ test: 'release', ref: 'second' });
  assert.deepEqual(hubUsers(hub), []);
  await eventually(() => api.watchCount === 0, 3000, 'the watch to close');
});

test('a list longer than one message crosses in parts and arrives whole, once, in order', async (t) => {
  const api = await apiServer(t);
  const count = 1203; // two full parts of 500 and the rest
  const expected = Array.from({ length: count }, (_, i) => `s${i}`);
  for (const name of expected) api.apply(service(name));
  const dir = makeTempDir('foghorn-hub-');
  t.after(() => dir.remove());
  const items = expected.map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
  writeFileSync(join(dir.path, 'all.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
  const { hub } = startHub(t);
  const worker = await startWorker(t, hub);
  // The order the primary's informer got them in: the API server's list order.
  const listed: string[] = [];
  // The last list: the worker's joining after it asks for a relist.
  const lease = await hub.registry.acquire({ endpoint: api.url }, servicesResource(), { replace: (all) => listed.splice(0, listed.length, ...all.map((o) => o.metadata!.name!)), upsert: () => {}, remove: () => {} }, { ...fast, logger: captureLog().logger });
  t.after(() => lease.release());
  await worker.run(acquire('svc', api));
  await eventually(() => worker.seen('svc').includes('synced'), 3000, 'the list');
  assert.deepEqual(worker.seen('svc'), [`replace ${listed.join(',')}`, 'synced']);
  assert.deepEqual([...listed].sort(), [...expected].sort());
  await worker.run({ test: 'manifests', ref: 'm', dir: dir.path, report: true });
  assert.deepEqual(worker.seen('m'), [`file ${join(dir.path, 'all.json')} ${expected.join(',')}`, `apply ${expected.join(',')}`]);
});

test("a worker that exits drops its references; the last one's exit stops the watch", async (t) => {
  const api = await apiServer(t);
  api.apply(service('a'));
  const { hub } = startHub(t);
  const [one, two] = await Promise.all([startWorker(t, hub), startWorker(t, hub)]);
  // Away until both streams joined: one list (see the first test).
  await api.stop();
  await Promise.all([one.run(acquire('svc', api)), two.run(acquire('svc', api))]);
  await api.restart();
  await eventually(() => api.watchCount === 1 && two.seen('svc').includes('synced'), 3000, 'the watch');
  await one.kill();
  await eventually(() => hubUsers(hub)[0]?.[1] === 1, 3000, "the dead worker's reference to go");
  api.apply(service('c'));
  await eventually(() => two.seen('svc').includes('upsert c'), 3000, 'the event in the surviving worker');
  assert.equal(api.watchCount, 1);
  await two.kill();
  await eventually(() => hubUsers(hub).length === 0 && api.watchCount === 0, 3000, 'the watch to stop');
  assert.deepEqual(api.requestCounts('list'), { '/api/v1/services': 1 });
});

test("an informer's reporters are told in one worker; another takes over, with the current objects from a relist, when it exits", async (t) => {
  const api = await apiServer(t);
  api.apply(service('a'));
  const { hub } = startHub(t);
  const [one, two] = [await startWorker(t, hub), await startWorker(t, hub)];
  await one.run(acquire('svc', api, true));
  // If the primary has listed by now, the second worker's joining relists: the same state again.
  await two.run(acquire('svc', api, true));
  await eventually(() => two.seen('svc').includes('synced') && one.seen('svc.report').includes('report replace a'), 3000, 'the first list');
  api.apply(service('b'));
  await eventually(() => one.seen('svc.report').includes('report upsert b') && two.seen('svc').includes('upsert b'), 3000, 'the event');
  assert.deepEqual(new Set(one.seen('svc.report')), new Set(['report replace a', 'report upsert b']));
  assert.deepEqual(two.seen('svc.report'), [], 'one worker reports');
  await one.kill();
  await eventually(() => two.seen('svc.report').length === 1, 3000, 'the takeover');
  api.delete(service('a'));
  await eventually(() => two.seen('svc.report').length === 2, 3000, 'the next event');
  assert.deepEqual(two.seen('svc.report'), ['report replace a,b', 'report delete a']);
  // The relist that told the new leader's reporter told its subscriber too: the same state.
  assert.deepEqual(two.seen('svc').slice(-3), ['upsert b', 'replace a,b', 'delete a']);
});

test('a worker that leads an informer the primary has already listed is told the list by its reporter just before its subscriber, as one process is', async (t) => {
  const api = await apiServer(t);
  api.apply(service('a'));
  const { hub } = startHub(t);
  // The primary's own reference lists it; the worker's stream is the first, so it leads.
  const held = await hub.registry.acquire({ endpoint: api.url }, servicesResource(), undefined, { ...fast, logger: captureLog().logger });
  t.after(() => held.release());
  await eventually(() => held.synced, 3000, 'the list');
  const one = await startWorker(t, hub);
  await one.run(acquire('svc', api, true));
  await eventually(() => one.seen('svc').includes('synced'), 3000, 'the worker synced');
  assert.deepEqual(one.order, ['svc.report report replace a', 'svc replace a', 'svc synced']);
});

test('in one process a reporter is told everything, just before its subscriber', async (t) => {
  const api = await apiServer(t);
  api.apply(service('a'));
  const order: string[] = [];
  const record = (who: string) => ({
    replace: (items: readonly { metadata?: { name?: string } }[]) => order.push(`${who} replace ${items.map((i) => i.metadata?.name).join(',')}`),
    upsert: (item: { metadata?: { name?: string } }) => order.push(`${who} upsert ${item.metadata?.name}`),
    remove: (item: { metadata?: { name?: string } }) => order.push(`${who} remove ${item.metadata?.name}`),
  });
  const lease = await new InformerRegistry().acquire({ endpoint: api.url }, servicesResource(), record('subscriber'), { ...fast, logger: captureLog().logger, reporter: record('reporter') });
  t.after(() => lease.release());
  await eventually(() => order.length === 2, 3000, 'the first list');
  api.apply(service('b'));
  api.delete(service('a'));
  await eventually(() => order.length === 6, 3000, 'two events');
  assert.deepEqual(order, ['reporter replace a', 'subscriber replace a', 'reporter upsert b', 'subscriber upsert b', 'reporter remove a', 'subscriber remove a']);
});

test('connection errors and bad options reach the worker as the same error; a worker without the variable watches itself', async (t) => {
  const api = await apiServer(t);
  const { hub } = startHub(t);
  const worker = await startWorker(t, hub);
  const bad = { endpoint: 'ftp://x' };
  const local = (await new InformerRegistry().connect(bad).catch((error: Error) => error)) as Error;
  const expected = { name: 'KubeConnectionError', message: local.message, kubeConnectionError: true };
  assert.deepEqual(await worker.failure({ test: 'connect', ref: 'c', connection: bad }), expected);
  assert.deepEqual(await worker.failure({ test: 'acquire', ref: 'a', connection: bad, resource: servicesResource(), options: fast }), expected);
  assert.deepEqual(await worker.failure({ test: 'acquire', ref: 'b', connection: { endpoint: api.url }, resource: servicesResource(), options: { ...fast, backoffInitialMs: -1 } }), {
    name: 'RangeError',
    message: 'backoffInitialMs must be a positive number, got -1',
    kubeConnectionError: false,
  });
  assert.deepEqual(await worker.run({ test: 'connect', ref: 'c', connection: { endpoint: api.url } }), { server: api.url, source: 'endpoint' });
  assert.deepEqual(hubUsers(hub), []);
  assert.equal(api.requestCounts('list')['/api/v1/services'], undefined, 'nothing was listed');

  // Without FOGHORN_INFORMER_HUB a forked process is a whole server: it lists and watches itself.
  const alone = await startWorker(t, hub, false);
  await alone.run(acquire('svc', api));
  await eventually(() => alone.seen('svc').includes('synced') && api.watchCount === 1, 3000, "the worker's own watch");
  assert.deepEqual(hubUsers(hub), []);
});

test('one process (no hub variable, no IPC channel) keeps its own manifests directory', () => {
  assert.equal(isHubWorker(), false);
  assert.ok(manifestsDirectory('.', () => {}, captureLog().logger) instanceof ManifestsDirectory);
});

test('manifests: the primary reads the directory once for every worker; one worker hears of files; a bad file is logged once', async (t) => {
  const dir = makeTempDir('foghorn-hub-');
  t.after(() => dir.remove());
  const file = (name: string): string => join(dir.path, name);
  const write = (name: string, text: string): void => {
    writeFileSync(`${file(name)}.tmp`, text);
    renameSync(`${file(name)}.tmp`, file(name));
  };
  const ns = (name: string): string => `apiVersion: v1\nkind: Namespace\nmetadata: {name: ${name}}\n`;
  write('a.yaml', ns('a'));
  const { hub, lines } = startHub(t);
  const [one, two] = [await startWorker(t, hub), await startWorker(t, hub)];
  assert.deepEqual(await one.run({ test: 'manifests', ref: 'm', dir: dir.path, report: true }), { synced: true, scans: 1 });
  assert.deepEqual(await two.run({ test: 'manifests', ref: 'm', dir: dir.path, report: true }), { synced: true, scans: 1 });
  assert.deepEqual(one.seen('m'), [`file ${file('a.yaml')} a`, 'apply a']);
  assert.deepEqual(two.seen('m'), ['apply a'], 'every worker gets the objects, one hears of the files');

  write('b.yaml', 'a: [b');
  await eventually(() => one.seen('m').includes(`unreadable ${file('b.yaml')}`), 3000, 'the bad file');
  write('c.yaml', ns('c'));
  await eventually(() => two.seen('m').includes('apply a,c'), 3000, 'the new file in the second worker');
  await eventually(() => one.seen('m').includes('apply a,c'), 3000, 'the new file in the first worker');
  assert.deepEqual(one.seen('m').slice(2), [`unreadable ${file('b.yaml')}`, `file ${file('c.yaml')} c`, 'apply a,c']);
  assert.deepEqual(two.seen('m'), ['apply a', 'apply a,c']);
  const logged = lines.filter((line) => line.includes('b.yaml'));
  assert.equal(logged.length, 1, 'the bad file is logged once, by the primary');
  assert.match(logged[0]!, /^\[WARNING\] plugin\/lighthouse: manifests: .*b\.yaml: /);
  assert.deepEqual([...one.seen('log'), ...two.seen('log')], [], 'workers log nothing of the directory');

  // The reporter exits: the other worker takes over and hears of every current file.
  await one.kill();
  await eventually(() => two.seen('m').length === 5, 3000, 'the current files in the new reporter');
  assert.deepEqual(two.seen('m').slice(2), [`file ${file('a.yaml')} a`, `file ${file('c.yaml')} c`, `unreadable ${file('b.yaml')}`]);
  write('a.yaml', ns('a2'));
  await eventually(() => two.seen('m').includes('apply a2,c'), 3000, 'an edit after the takeover');
  assert.deepEqual(two.seen('m').slice(5), [`file ${file('a.yaml')} a2`, 'apply a2,c']);
  // scan() reads now: what it found is applied before it resolves.
  write('d.yaml', ns('d'));
  await two.run({ test: 'scan', ref: 'm' });
  assert.ok(two.seen('m').includes('apply a2,c,d'), 'the scan applied before resolving');
  await two.run({ test: 'close', ref: 'm' });
  await assert.rejects(two.run({ test: 'manifests', ref: 'x', dir: file('missing'), report: false }), /^Error: manifests directory '.*missing': ENOENT/);
});

test('an informer first asked for by one worker waits for a sibling still starting, never for one that started', async (t) => {
  const api = await apiServer(t);
  api.apply(service('a'));
  const { hub } = startHub(t);
  const [one, two] = await Promise.all([startWorker(t, hub), startWorker(t, hub)]);
  // Both starting: the first acquire waits until the other asks too, so the API server lists once.
  const first = one.run(acquire('svc', api));
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.deepEqual(api.requestCounts('list'), {}, 'no list while a starting sibling has not asked');
  await Promise.all([first, two.run(acquire('svc', api))]);
  await eventually(() => [one, two].every((w) => w.seen('svc').includes('synced')), 3000, 'the list in both');
  assert.deepEqual(api.requestCounts('list'), { '/api/v1/services': 1 });

  // Both started: an informer a reload adds (workers reload one after another) is not held for
  // the sibling, which then joins with a relist of its own.
  hub.started(one.child);
  hub.started(two.child);
  const inDefault = { ...acquire('default', api), resource: servicesResource({ namespace: 'default' }) };
  const asked = performance.now();
  await one.run(inDefault);
  await eventually(() => one.seen('default').includes('synced'), 1000, 'the new informer synced without waiting for the sibling');
  assert.ok(performance.now() - asked < 1500, 'well within the 2 s a starting sibling is waited for');
});
