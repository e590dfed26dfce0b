/**
 * The Kubernetes source end to end: @kubernetes/client-node through the kube layer against the
 * test API server (@foghorn/testkit/kube), answering over real UDP and TCP. Covers the handler
 * rows through a watch, events in every order, readiness, an API server restart and a 410 relist
 * with no wrong answer in between.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import bind from '@foghorn/plugin-bind';
import whoami from '@foghorn/plugin-whoami';
import { definePlugin, ReadinessProbes } from '@foghorn/core';
import type { ReadinessProbe } from '@foghorn/core';
import { directivesOf, query, rcodeOf, startServer } from '@foghorn/testkit';
import type { TestServer } from '@foghorn/testkit';
import { startKubeApiServer } from '@foghorn/testkit/kube';
import type { ApiObject, KubeApiServer } from '@foghorn/testkit/kube';
import lighthouse from '../src/index.js';
import type { KubeObject } from '../src/index.js';
import { a, ask, eventually, gateway, http, serviceImport, serviceSlice, slice, srv, submariner, transports } from './fixtures.js';

const Z = 'clusterset.local';
const svc1 = `service1.namespace1.svc.${Z}`;
const SIP1 = '100.96.156.101';
const SIP2 = '100.96.156.102';
const EIP1 = '100.96.157.101';

interface Cluster {
  readonly api: KubeApiServer;
  readonly dns: TestServer;
  readonly probe: ReadinessProbe;
  apply(...objects: KubeObject[]): void;
  delete(...objects: KubeObject[]): void;
}

/** An API server holding `objects`, and lighthouse watching it through `endpoint`. */
async function cluster(t: TestContext, objects: KubeObject[], before?: (api: KubeApiServer) => void): Promise<Cluster> {
  const api = await startKubeApiServer();
  t.after(() => api.close());
  for (const object of objects) api.apply(object as ApiObject);
  before?.(api);
  let probes: (() => readonly ReadinessProbe[]) | undefined;
  const readyprobe = definePlugin({ name: 'readyprobe', setup: (c) => void (probes = () => c.use(ReadinessProbes)) });
  const dns = await startServer(`${Z}:0 {\n    bind 127.0.0.1\n    readyprobe\n    lighthouse {\n        endpoint ${api.url}\n    }\n}\n`, {
    directives: directivesOf(bind, readyprobe, lighthouse),
  });
  t.after(() => dns.close());
  const probe = probes?.().find((p) => p.name === 'lighthouse');
  assert.ok(probe);
  return {
    api,
    dns,
    probe,
    apply: (...list) => list.forEach((o) => api.apply(o as ApiObject)),
    delete: (...list) => list.forEach((o) => api.delete(o as ApiObject)),
  };
}


test('through the API server: ClusterSetIP and headless rows answer over UDP and TCP (H1-H4, HL2-HL4, C3)', async (t) => {
  const c = await cluster(t, [
    serviceImport('service1', 'namespace1', { ports: [http] }),
    serviceSlice('service1', 'namespace1', 'cluster1', SIP1, [http]),
    serviceSlice('service1', 'namespace1', 'cluster2', SIP2, [http]),
    serviceImport('hl', 'namespace1', { type: 'Headless', ports: [http] }),
    slice({ service: 'hl', namespace: 'namespace1', cluster: 'cluster1', headless: true, endpoints: [{ addresses: [EIP1], hostname: 'hostName1', ready: true }], ports: [http] }),
    submariner(),
    gateway('', [['cluster2', 'connected'], ['cluster1', 'connected']]),
    // A slice another agent manages is outside the watch's label selector.
    { ...serviceSlice('service1', 'namespace1', 'cluster3', '100.96.156.103', [http]), metadata: { name: 'foreign', namespace: 'namespace1', labels: { 'multicluster.kubernetes.io/service-name': 'service1' } } },
  ]);
  await eventually(() => c.probe.ready(), 5000, 'lighthouse ready');
  const hl = `hl.namespace1.svc.${Z}`;
  for (const transport of transports) {
    assert.deepEqual((await ask(c.dns, `cluster1.${svc1}`, 'A', transport)).answers, [a(`cluster1.${svc1}`, SIP1)]);
    assert.deepEqual((await ask(c.dns, `cluster1.${svc1}`, 'SRV', transport)).answers, [srv(`cluster1.${svc1}`, 8080, `cluster1.${svc1}`)]);
    assert.deepEqual((await ask(c.dns, `cluster2.${svc1}`, 'A', transport)).answers, [a(`cluster2.${svc1}`, SIP2)]);
    assert.equal((await ask(c.dns, `cluster3.${svc1}`, 'A', transport)).rcode, 'NXDOMAIN');
    assert.deepEqual((await ask(c.dns, hl, 'A', transport)).answers, [a(hl, EIP1)]);
    assert.deepEqual((await ask(c.dns, hl, 'SRV', transport)).answers, [srv(hl, 8080, `hostName1.cluster1.${hl}`)]);
    assert.deepEqual((await ask(c.dns, `cluster1.${hl}`, 'SRV', transport)).answers, [srv(`cluster1.${hl}`, 8080, `hostName1.cluster1.${hl}`)]);
  }
  // Round robin over both connected clusters: the two answers differ and the cycle repeats.
  const picks = [];
  for (let i = 0; i < 4; i++) picks.push((await ask(c.dns, svc1, 'A')).answers[0]);
  assert.notEqual(picks[0], picks[1]);
  assert.deepEqual(picks.slice(2), picks.slice(0, 2));
  // C3: cluster1 goes away from the Gateway's view; only cluster2 answers.
  c.apply(gateway('', [['cluster1', 'error']]));
  await eventually(async () => {
    for (let i = 0; i < 3; i++) assert.deepEqual((await ask(c.dns, svc1, 'A')).answers, [a(svc1, SIP2)]);
  });
});

const gateways = { group: 'submariner.io', version: 'v1', plural: 'gateways', kind: 'Gateway' };
const submariners = { group: 'submariner.io', version: 'v1alpha1', plural: 'submariners', kind: 'Submariner' };

/** Both clusters answer in turn: connectivity tracking is off (Lighthouse's `IsConnected`). */
async function bothClustersAnswer(c: Cluster): Promise<void> {
  await eventually(async () => {
    const picks = new Set<string>();
    for (let i = 0; i < 4; i++) picks.add(JSON.stringify((await ask(c.dns, svc1, 'A')).answers));
    assert.deepEqual([...picks].sort(), [JSON.stringify([a(svc1, SIP1)]), JSON.stringify([a(svc1, SIP2)])].sort());
  });
}

const twoClusters = (): KubeObject[] => [
  serviceImport('service1', 'namespace1', { ports: [http] }),
  serviceSlice('service1', 'namespace1', 'cluster1', SIP1, [http]),
  serviceSlice('service1', 'namespace1', 'cluster2', SIP2, [http]),
];

test('through the API server: Submariner present but its Gateway resource not served: every cluster is connected', async (t) => {
  // Lighthouse's getCheckedClientset (coredns/gateway/controller.go): the Gateway list's NotFound
  // or NoMatch sets gatewayAvailable false, and IsConnected then says true for every cluster.
  const c = await cluster(t, [...twoClusters(), submariner()], (api) => api.unserve(gateways));
  await eventually(() => c.probe.ready(), 5000, 'lighthouse ready');
  await bothClustersAnswer(c);
});

test('through the API server: the Gateway resource removed while tracking: every cluster is connected again', async (t) => {
  const c = await cluster(t, [...twoClusters(), submariner(), gateway('', [['cluster2', 'connected']])]);
  await eventually(() => c.probe.ready(), 5000, 'lighthouse ready');
  await eventually(async () => {
    for (let i = 0; i < 3; i++) assert.deepEqual((await ask(c.dns, svc1, 'A')).answers, [a(svc1, SIP2)]);
  });
  // A CRD's removal deletes its objects, then the resource is no longer served.
  for (const o of c.api.objects(gateways)) c.api.delete(o);
  c.api.unserve(gateways);
  await bothClustersAnswer(c);
  assert.equal(c.probe.ready(), true);
});

test('through the API server: no Submariner resource, or none listed: every cluster is connected whatever the Gateways say', async (t) => {
  const unserved = await cluster(t, [...twoClusters(), gateway('', [['cluster2', 'connected']])], (api) => api.unserve(submariners));
  await eventually(() => unserved.probe.ready(), 5000, 'lighthouse ready');
  await bothClustersAnswer(unserved);
  const empty = await cluster(t, [...twoClusters(), gateway('', [['cluster2', 'connected']])]);
  await eventually(() => empty.probe.ready(), 5000, 'lighthouse ready');
  await bothClustersAnswer(empty);
  // A Submariner object appears: the Gateway's view counts from then on.
  empty.apply(submariner());
  await eventually(async () => {
    for (let i = 0; i < 3; i++) assert.deepEqual((await ask(empty.dns, svc1, 'A')).answers, [a(svc1, SIP2)]);
  });
});

test('through the API server: events in any order add, update and delete names', async (t) => {
  const c = await cluster(t, []);
  await eventually(() => c.probe.ready(), 5000, 'lighthouse ready');
  const eps = serviceSlice('service1', 'namespace1', 'cluster1', SIP1, [http]);
  const si = serviceImport('service1', 'namespace1', { ports: [http] });
  c.apply(eps);
  await eventually(async () => assert.equal((await ask(c.dns, svc1, 'A')).rcode, 'NXDOMAIN'));
  c.apply(si);
  await eventually(async () => assert.deepEqual((await ask(c.dns, svc1, 'A')).answers, [a(svc1, SIP1)]));
  c.apply(serviceSlice('service1', 'namespace1', 'cluster1', SIP2, [http]));
  await eventually(async () => assert.deepEqual((await ask(c.dns, svc1, 'A', 'tcp')).answers, [a(svc1, SIP2)]));
  c.apply(serviceSlice('service1', 'namespace1', 'cluster1', SIP2, [http], false));
  await eventually(async () => assert.deepEqual(await ask(c.dns, svc1, 'A').then((r) => [r.rcode, r.answers]), ['NOERROR', []]));
  c.delete(si);
  await eventually(async () => assert.equal((await ask(c.dns, `cluster1.${svc1}`, 'A')).rcode, 'NOERROR'));
  c.delete(eps);
  await eventually(async () => assert.equal((await ask(c.dns, svc1, 'A')).rcode, 'NXDOMAIN'));
});

test('through the API server: not ready and SERVFAIL until every resource is listed, then ready', async (t) => {
  const c = await cluster(t, [serviceImport('service1', 'namespace1', { ports: [http] }), serviceSlice('service1', 'namespace1', 'cluster1', SIP1, [http])], (api) =>
    api.failNext(503, { match: (r) => r.verb === 'list' && r.resource === 'endpointslices', count: 1 }),
  );
  assert.equal(c.probe.ready(), false);
  assert.equal((await ask(c.dns, svc1, 'A')).rcode, 'SERVFAIL');
  await eventually(() => c.probe.ready(), 5000, 'lighthouse ready after the retry');
  assert.deepEqual((await ask(c.dns, svc1, 'A')).answers, [a(svc1, SIP1)]);
});

test('through the API server: a restart and a 410 relist keep every answer right in between', async (t) => {
  const si = serviceImport('service1', 'namespace1', { ports: [http] });
  const c = await cluster(t, [si, serviceSlice('service1', 'namespace1', 'cluster1', SIP1, [http])]);
  await eventually(() => c.probe.ready(), 5000, 'lighthouse ready');
  const seen = new Set<string>();
  let stop = false;
  const loop = (async () => {
    while (!stop) {
      for (const transport of transports) {
        const { rcode, answers } = await ask(c.dns, svc1, 'A', transport);
        seen.add(`${rcode} ${answers.join(',')}`);
      }
    }
  })();
  try {
    // While the API server is down the last known state keeps answering.
    await c.api.stop();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await c.api.restart();
    // A change during a compaction: the watch gets 410 Gone and relists; the relist applies it.
    c.api.compact();
    c.apply(serviceSlice('service1', 'namespace1', 'cluster1', SIP2, [http]));
    c.api.errorWatches(410, 'too old resource version');
    await eventually(async () => assert.deepEqual((await ask(c.dns, svc1, 'A')).answers, [a(svc1, SIP2)]), 8000);
  } finally {
    stop = true;
    await loop;
  }
  assert.deepEqual([...seen].sort(), [`NOERROR ${a(svc1, SIP1)}`, `NOERROR ${a(svc1, SIP2)}`].filter((s) => seen.has(s)).sort());
  assert.ok(seen.has(`NOERROR ${a(svc1, SIP2)}`));
  const text = await c.dns.server.registry.metrics();
  assert.match(text, /coredns_lighthouse_watch_restarts_total\{resource="endpointslices"\} [1-9]/);
});

test('while the API server is away, only names in lighthouse zones are held back with SERVFAIL', async (t) => {
  // An API server that is gone: its port answers nothing.
  const gone = await startKubeApiServer();
  const url = gone.url;
  await gone.close();
  const dns = await startServer(
    `.:0 {\n    bind 127.0.0.1\n    lighthouse ${Z} {\n        endpoint ${url}\n        fallthrough\n    }\n    whoami\n}\n`,
    { directives: directivesOf(bind, lighthouse, whoami) },
  );
  t.after(() => dns.close());
  assert.equal((await ask(dns, svc1, 'A')).rcode, 'SERVFAIL');
  const other = await query({ port: dns.port() }, 'www.example.org', 'A');
  assert.equal(rcodeOf(other), 'NOERROR');
  assert.equal(other.additionals?.[0]?.type, 'A', 'whoami answered: the name fell through');
});

test('through the API server: an object with bad fields is logged once with its resource and field, and counted', async (t) => {
  const bad = { ...serviceImport('bad', 'namespace1'), spec: { type: 'Weird', ports: [{ port: 'http' }] } };
  const c = await cluster(t, [bad, serviceImport('service1', 'namespace1', { ports: [http] }), serviceSlice('service1', 'namespace1', 'cluster1', SIP1, [http])]);
  await eventually(() => c.probe.ready(), 5000, 'lighthouse ready');
  const warnings = (): string[] => c.dns.lines.filter((line) => line.includes('ServiceImport namespace1/bad'));
  await eventually(async () => assert.equal(warnings().length, 1));
  assert.match(warnings()[0]!, /^\[WARNING\] plugin\/lighthouse: serviceimports\.v1alpha1\.multicluster\.x-k8s\.io: ServiceImport namespace1\/bad: spec\.type: "Weird" is not ClusterSetIP or Headless \(taken as ClusterSetIP\); spec\.ports\[0\]\.port: "http" is not a port number \(taken as 0\)$/);
  // Another event on the same resource (a new object) does not repeat the warning.
  c.apply(serviceImport('service2', 'namespace1', { ports: [http] }));
  await eventually(async () => assert.equal((await ask(c.dns, `service2.namespace1.svc.${Z}`, 'A')).rcode, 'NOERROR'));
  assert.equal(warnings().length, 1);
  assert.match(await c.dns.server.registry.metrics(), /coredns_lighthouse_invalid_objects_total\{resource="serviceimports"\} 1/);
});
