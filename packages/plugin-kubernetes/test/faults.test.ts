/**
 * The cluster DNS path under API faults, through the test API server: a 410 Gone on the watch,
 * 500s on lists (whole and between pages), watches cut mid-event, a stalled list, dropped TCP
 * connections, an API server that comes back with another resourceVersion numbering, and the
 * ServiceImport CRD of `multicluster` appearing and disappearing.
 *
 * Each test changes an object while the fault lasts and queries one name over UDP every few ms
 * from before the fault until the change is answered: every answer must be the state before the
 * change or the state after it, never a failure or an empty answer, and never the old state once
 * the new one was seen. `/ready` (the `ready` plugin, asking on every probe) stays 200 throughout,
 * as CoreDNS's `HasSynced` stays true once every informer has synced. After recovery exactly one
 * watch per resource is open. The recovery time (from the fault's end to the first answer of the
 * new state) is reported as a test diagnostic; with this file's fast backoff (20-200 ms) it shows
 * what the informer adds, not the production backoff (docs/reliability.md has both).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import type { RecordType } from 'dns-packet';
import { delay, eventually, formatRr, httpGet, rcodeOf } from '@foghorn/testkit';
import type { TestServer } from '@foghorn/testkit';
import { startKubeApiServer } from '@foghorn/testkit/kube';
import type { KubeApiServer } from '@foghorn/testkit/kube';
import { ask, handlerObjects, http, multiclusterObjects, resources, service, serviceImport, startCluster } from './fixtures.js';
import type { Cluster, ClusterOptions } from './fixtures.js';

const svc1 = 'svc1.testns.svc.cluster.local.';
const before = [`${svc1} 5 IN A 10.0.0.1`];
const after = [`${svc1} 5 IN A 10.0.0.9`];
const moved = service('svc1', 'testns', { clusterIPs: ['10.0.0.9'], ports: [http] });

/** The lists and watches of the default options: services, endpointslices, namespaces. */
const watched = 3;

/**
 * Queries `name` over UDP every 5 ms and probes `/ready` every 25 ms until stopped, keeping
 * every answer and status with its time.
 */
class Observer {
  readonly answers: { at: number; text: string }[] = [];
  readonly probes: { at: number; status: number }[] = [];
  private running = true;
  private readonly loops: Promise<void>[];

  constructor(
    private readonly dns: TestServer,
    private readonly name: string,
    private readonly type: RecordType,
    readyPort: number,
  ) {
    this.loops = [this.query(), readyPort > 0 ? this.probe(readyPort) : Promise.resolve()];
  }

  private async query(): Promise<void> {
    while (this.running) {
      const reply = await ask(this.dns, this.name, this.type);
      const text = rcodeOf(reply) === 'NOERROR' ? JSON.stringify((reply.answers ?? []).map(formatRr)) : rcodeOf(reply);
      this.answers.push({ at: Date.now(), text });
      await delay(5);
    }
  }

  private async probe(port: number): Promise<void> {
    while (this.running) {
      const reply = await httpGet(port, '/ready', { timeoutMs: 2000 });
      this.probes.push({ at: Date.now(), status: reply.status });
      await delay(25);
    }
  }

  /** Ends the loops without checking (a failed test's cleanup). */
  async halt(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  /** Resolves once `want` was answered; the time it was first seen. */
  async seen(want: readonly string[], timeoutMs = 5000): Promise<number> {
    const text = JSON.stringify(want);
    let at = 0;
    await eventually(() => {
      at = this.answers.find((a) => a.text === text)?.at ?? 0;
      return at > 0;
    }, timeoutMs, `the answer ${text}; last ${this.answers.at(-1)?.text}`);
    return at;
  }

  /**
   * Stops, then checks the answers went from `from` to `to` once and only once, and that every
   * probe of `/ready` said 200.
   */
  async stop(from: readonly string[], to: readonly string[]): Promise<void> {
    await this.halt();
    const texts = this.answers.map((a) => a.text);
    const first = texts.indexOf(JSON.stringify(to));
    assert.ok(first > 0, `${JSON.stringify(from)} then ${JSON.stringify(to)}: ${texts.join(' ')}`);
    assert.deepEqual(new Set(texts.slice(0, first)), new Set([JSON.stringify(from)]), 'the last consistent state until the change');
    assert.deepEqual(new Set(texts.slice(first)), new Set([JSON.stringify(to)]), 'the new state from then on');
    assert.deepEqual(new Set(this.probes.map((p) => p.status)), this.probes.length > 0 ? new Set([200]) : new Set(), 'ready throughout');
  }
}

/** Every informer has exactly one watch open (none leaked by the retries). */
async function oneWatchEach(api: KubeApiServer, n = watched): Promise<void> {
  await eventually(() => {
    const open = api.openWatches();
    assert.equal(Object.keys(open).length, n, JSON.stringify(open));
    for (const [selection, count] of Object.entries(open)) assert.equal(count, 1, `${selection}: ${JSON.stringify(open)}`);
  }, 3000);
}

async function faulted(t: TestContext, options: ClusterOptions = {}): Promise<Cluster & { observer: Observer }> {
  const cluster = await startCluster(t, { zones: 'cluster.local', objects: handlerObjects, ready: true, ...options });
  await oneWatchEach(cluster.api);
  const observer = new Observer(cluster.dns, svc1, 'A', cluster.readyPort);
  // Runs before the cluster's own cleanup (t.after runs last-registered first).
  t.after(() => observer.halt());
  await observer.seen(before);
  return { ...cluster, observer };
}

function report(t: TestContext, fault: string, ms: number): void {
  t.diagnostic(`recovery after ${fault}: ${ms} ms`);
}

test('a 410 Gone on the watch: the relist brings the change, the deletion too', async (t) => {
  const { api, dns, observer } = await faulted(t);
  api.silenceWatches();
  api.apply(moved);
  api.delete(service('svc6', 'testns', {}));
  await delay(100);
  api.compact();
  const end = Date.now();
  api.errorWatches(410, 'too old resource version');
  report(t, '410 Gone', (await observer.seen(after)) - end);
  await observer.stop(before, after);
  assert.equal(rcodeOf(await ask(dns, 'svc6.testns.svc.cluster.local.', 'AAAA')), 'NXDOMAIN');
  await oneWatchEach(api);
});

test('500s on lists, whole and between pages: the last complete list answers until one succeeds', async (t) => {
  const { api, observer } = await faulted(t, { overrides: { watch: { listPageSize: 4 } } });
  api.silenceWatches();
  api.apply(moved);
  // Services list in three pages: the second page fails twice, then the first page three times.
  api.failNext(500, { count: 2, match: (r) => r.verb === 'list' && r.resource === 'services' && r.query['continue'] !== undefined, message: 'etcdserver: leader changed' });
  api.failNext(500, { count: 3, match: (r) => r.verb === 'list' && r.resource === 'services' && r.query['continue'] === undefined });
  api.compact();
  api.errorWatches(410);
  await eventually(() => api.requests.filter((r) => r.status === 500).length === 5, 5000, 'five 500s');
  const end = api.requests.filter((r) => r.status === 500).at(-1)!.at;
  report(t, '500s on lists', (await observer.seen(after)) - end);
  await observer.stop(before, after);
  await oneWatchEach(api);
});

test('watches cut in the middle of an event, then closed cleanly: they resume and miss nothing', async (t) => {
  const { api, observer } = await faulted(t);
  assert.equal(api.breakWatches(), watched);
  api.apply(moved);
  const end = Date.now();
  report(t, 'watches cut mid-event', (await observer.seen(after)) - end);
  await oneWatchEach(api);
  assert.equal(api.endWatches(), watched);
  api.apply(service('svc1', 'testns', { clusterIPs: ['10.0.0.1'], ports: [http] }));
  await observer.seen(before);
  // Back to the first state: the observer's check is for one change, so it stops at the second.
  observer.answers.splice(observer.answers.findLastIndex((a) => a.text === JSON.stringify(after)) + 1);
  await observer.stop(before, after);
  await oneWatchEach(api);
});

test('a list stalled for 1.5 s is waited out; one stalled past the list timeout is cut and retried', async (t) => {
  const { api, observer } = await faulted(t, { overrides: { watch: { watchdogMs: 3000 } } });
  api.silenceWatches();
  api.apply(moved);
  api.stallNext({ match: (r) => r.verb === 'list' && r.resource === 'services', ms: 1500 });
  api.compact();
  api.errorWatches(410);
  await eventually(() => api.requests.some((r) => r.status === 'stalled'), 3000, 'the stalled list');
  await delay(1000);
  assert.equal(observer.answers.at(-1)?.text, JSON.stringify(before), 'the old state during the stall');
  const end = api.requests.find((r) => r.status === 'stalled')!.at + 1500;
  report(t, 'a 1.5 s list stall', (await observer.seen(after)) - end);
  await observer.stop(before, after);
  await oneWatchEach(api);
});

test('a list stalled for 30 s: the client gives up after its list timeout and lists again', async (t) => {
  const { api, observer } = await faulted(t, { overrides: { watch: { watchdogMs: 1000 } } });
  api.silenceWatches();
  api.apply(moved);
  api.stallNext({ match: (r) => r.verb === 'list' && r.resource === 'services', ms: 30_000 });
  api.compact();
  api.errorWatches(410);
  await eventually(() => api.requests.some((r) => r.status === 'stalled'), 3000, 'the stalled list');
  const start = api.requests.find((r) => r.status === 'stalled')!.at;
  report(t, 'a 30 s list stall (1 s list timeout), from the stall\'s start', (await observer.seen(after)) - start);
  await observer.stop(before, after);
  await oneWatchEach(api);
});

test('every TCP connection to the API server dropped: the watches reconnect and catch up', async (t) => {
  const { api, observer } = await faulted(t);
  api.dropConnections();
  api.apply(moved);
  const end = Date.now();
  report(t, 'dropped connections', (await observer.seen(after)) - end);
  await observer.stop(before, after);
  await oneWatchEach(api);
});

/**
 * Lower: etcd restored from a backup without `--bump-revision`: the watches resume from a version
 * the server has not reached ("Too large resource version"); they used to retry it for ever and
 * serve the state from before the restart. (A new numbering that passes the client's version
 * again cannot be told from the old one by any client: etcdutl's `--bump-revision
 * --mark-compacted` exists for that, and gives the higher case.) Higher: a 410 Gone.
 */
for (const [numbering, base] of [['lower', 1], ['higher', 10_000]] as const) {
  test(`an API server restart with a ${numbering} resourceVersion numbering: a relist, no restart of Foghorn`, async (t) => {
    const { api, observer } = await faulted(t);
    // The watches learn a version well above what the restored store will reach.
    api.bumpResourceVersion(1000);
    assert.equal(api.bookmark(), watched);
    await delay(100);
    await api.stop();
    api.apply(moved);
    await delay(200);
    await api.restart({ newResourceVersions: base });
    const end = Date.now();
    report(t, `an API server restart (${numbering} resourceVersions)`, (await observer.seen(after)) - end);
    await observer.stop(before, after);
    await oneWatchEach(api);
  });
}

test('not ready until every resource listed once; ready through an outage after that', async (t) => {
  const api = await startKubeApiServer({ resources });
  t.after(() => api.close());
  api.failNext(500, { count: 1_000_000, match: (r) => r.resource === 'services' });
  const { dns, probe, readyPort } = await startCluster(t, { api, zones: 'cluster.local', objects: handlerObjects, ready: true, noWait: true, options: 'startup_timeout 1s' });
  assert.equal(probe.ready(), false);
  assert.deepEqual(await httpGet(readyPort, '/ready').then((r) => [r.status, r.text]), [503, 'kubernetes']);
  // Unsynced, a name it cannot find is SERVFAIL, not NXDOMAIN (CoreDNS handler.go).
  assert.equal(rcodeOf(await ask(dns, svc1, 'A')), 'SERVFAIL');
  api.clearFaults();
  await eventually(async () => assert.equal((await httpGet(readyPort, '/ready')).status, 200), 3000);
  assert.deepEqual((await ask(dns, svc1, 'A')).answers?.map(formatRr), before);
  await api.stop();
  await delay(300);
  assert.equal((await httpGet(readyPort, '/ready')).status, 200);
  assert.deepEqual((await ask(dns, svc1, 'A')).answers?.map(formatRr), before);
});

test('multicluster: the ServiceImport CRD installed after start, removed, installed again', async (t) => {
  const imports = resources.find((r) => r.plural === 'serviceimports')!;
  const api = await startKubeApiServer({ resources: resources.filter((r) => r !== imports) });
  t.after(() => api.close());
  const mcs = 'svc1.testns.svc.clusterset.local.';
  const { dns, readyPort } = await startCluster(t, {
    api,
    zones: 'cluster.local clusterset.local',
    objects: handlerObjects,
    options: 'multicluster clusterset.local\nstartup_timeout 1s',
    ready: true,
    noWait: true,
  });
  // As CoreDNS: the ServiceImport informer never synced, so the plugin is not ready; what the
  // other informers listed answers, and a name not found is SERVFAIL.
  assert.deepEqual(await httpGet(readyPort, '/ready').then((r) => [r.status, r.text]), [503, 'kubernetes']);
  assert.deepEqual((await ask(dns, svc1, 'A')).answers?.map(formatRr), before);
  assert.equal(rcodeOf(await ask(dns, mcs, 'A')), 'SERVFAIL');

  api.serve(imports);
  const installed = Date.now();
  for (const o of multiclusterObjects.filter((o) => o.kind === 'ServiceImport')) api.apply(structuredClone(o));
  const answered = await answersWithin(dns, mcs, [`${mcs} 5 IN A 10.0.0.1`]);
  report(t, 'the ServiceImport CRD installed', answered - installed);
  assert.equal((await httpGet(readyPort, '/ready')).status, 200);
  await oneWatchEach(api, 5);

  // Removing a CRD deletes its objects first (watchers see DELETED), then stops serving it.
  for (const o of api.objects(imports)) api.delete(o);
  api.unserve(imports);
  await answersWithin(dns, mcs, 'NXDOMAIN');
  await delay(300);
  // Synced once, ready for good (CoreDNS's HasSynced), while its list and watch get 404s.
  assert.equal((await httpGet(readyPort, '/ready')).status, 200);
  assert.deepEqual((await ask(dns, svc1, 'A')).answers?.map(formatRr), before);

  api.serve(imports);
  const again = Date.now();
  api.apply(serviceImport('svc1', 'testns', { ips: ['10.0.0.1'], ports: [http] }));
  report(t, 'the ServiceImport CRD installed again', (await answersWithin(dns, mcs, [`${mcs} 5 IN A 10.0.0.1`])) - again);
  await oneWatchEach(api, 5);

  // Removed while the watch hears nothing (it was reconnecting): the 404 alone empties the zone.
  api.silenceWatches();
  for (const o of api.objects(imports)) api.delete(o);
  api.unserve(imports);
  await answersWithin(dns, mcs, 'NXDOMAIN');
  assert.equal((await httpGet(readyPort, '/ready')).status, 200);
});

/** Polls `name` A until it answers `want` (records, or an rcode); the time it did. */
async function answersWithin(dns: TestServer, name: string, want: readonly string[] | string, timeoutMs = 5000): Promise<number> {
  await eventually(async () => {
    const reply = await ask(dns, name, 'A');
    if (typeof want === 'string') assert.equal(rcodeOf(reply), want);
    else assert.deepEqual(reply.answers?.map(formatRr), want);
  }, timeoutMs);
  return Date.now();
}
