/**
 * What is observed and logged once per server (`coredns_kubernetes_dns_programming_duration_seconds`
 * and its invalid-annotation warning): by the process that reports each change. In one process
 * that is always this one; a `-workers` worker whose informers another worker leads serves the
 * same objects but observes none of them (test/workers.test.ts runs the real hub).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { stringify } from 'yaml';
import bind from '@foghorn/plugin-bind';
import { InformerRegistry, resolveConnection, startWatch } from '@foghorn/kube';
import type { InformerBackend, InformerSink } from '@foghorn/kube';
import { directivesOf, rcodeOf, startServer } from '@foghorn/testkit';
import type { TestServer } from '@foghorn/testkit';
import { makeTempDir } from '@foghorn/testkit/kube';
import type { ApiObject } from '@foghorn/testkit/kube';
import { createKubernetesPlugin } from '../src/index.js';
import { endpointSlice, eventuallyAnswers, http, namespace, service, startCluster } from './fixtures.js';
import type { EndpointSpec } from './fixtures.js';

const trigger = 'endpoints.kubernetes.io/last-change-trigger-time';

/** The observations of `kind` so far. */
async function observed(dns: TestServer, kind: 'cluster_ip' | 'headless_with_selector'): Promise<number> {
  const metric = (await dns.server.registry.getMetricsAsJSON()).find((m) => m.name === 'coredns_kubernetes_dns_programming_duration_seconds');
  const sample = metric?.values.find((v) => (v as { metricName?: string }).metricName?.endsWith('_count') && v.labels['service_kind'] === kind);
  return sample?.value ?? 0;
}

/** What a server observed and warned about: cluster_ip and headless observations, warnings about `slice`. */
async function reported(dns: TestServer, slice: string): Promise<[number, number, number]> {
  const warnings = dns.lines.filter((l) => l.includes(`[WARNING] plugin/kubernetes: DnsProgrammingLatency cannot be calculated for Endpoints '${slice}'`));
  return [await observed(dns, 'cluster_ip'), await observed(dns, 'headless_with_selector'), warnings.length];
}

/** A slice of `service` in namespace `a` whose trigger time is `at`. */
const triggered = (name: string, svc: string, endpoints: readonly EndpointSpec[], at: string, resourceVersion?: string): ApiObject => {
  const slice = endpointSlice(name, 'a', svc, endpoints, [http], { annotations: { [trigger]: at } });
  return resourceVersion === undefined ? slice : { ...slice, metadata: { ...slice.metadata, resourceVersion } };
};

const objects = [
  namespace('a'),
  service('s', 'a', { clusterIPs: ['10.0.1.1'], ports: [http] }),
  service('h', 'a', { clusterIPs: ['None'], ports: [http] }),
];

/**
 * The informers of a `-workers` worker that does not lead their reports: listed and watched here,
 * as the hub's streams would deliver them, and told to lead only when the test calls `lead()`
 * (as the hub tells the next worker when the leader exits).
 */
function following(): { readonly backend: InformerBackend; lead(): void } {
  const sinks: InformerSink[] = [];
  return {
    backend: {
      connect: (connection, options) => resolveConnection(connection, options.env ?? process.env, options),
      watch: (connection, _resolved, resource, sink, options) => {
        sinks.push(sink);
        return startWatch(connection, resource, sink, options);
      },
    },
    lead: () => {
      for (const sink of sinks) sink.lead();
    },
  };
}

test('a server whose informers another process leads serves every slice but observes and warns about none; taking the lead over, it observes from the next change on', async (t) => {
  const leader = await startCluster(t, { zones: 'cluster.local', objects });
  const follower = following();
  const other = await startCluster(t, { zones: 'cluster.local', api: leader.api, objects: [], overrides: { informers: new InformerRegistry(follower.backend) } });
  const { api } = leader;
  const at = new Date(Date.now() - 1500).toISOString();
  api.apply(triggered('s-1', 's', [{ ip: '10.9.0.1', hostname: 'e' }], at));
  api.apply(triggered('h-1', 'h', [{ ip: '10.9.1.1', hostname: 'e' }], at));
  api.apply(triggered('x-1', 's', [{ ip: '10.9.0.3', hostname: 'g' }], 'yesterday'));
  // One watch delivers them in order: the last one answered, both servers have them all.
  for (const { dns } of [leader, other]) await eventuallyAnswers(dns, 'g.s.a.svc.cluster.local.', 'A', (r) => rcodeOf(r) === 'NOERROR', 'the last slice');
  assert.deepEqual(await reported(leader.dns, 'a/x-1'), [1, 1, 1], 'the leader observes each change, and the headless service as headless');
  assert.deepEqual(await reported(other.dns, 'a/x-1'), [0, 0, 0], 'the follower neither observes nor warns');

  // The hub makes a follower the leader when the leader exits: it is told the current objects,
  // which the old leader observed, and observes what changes from then on.
  follower.lead();
  assert.deepEqual(await reported(other.dns, 'a/x-1'), [0, 0, 0], 'the current objects are not observed again');
  api.apply(triggered('s-1', 's', [{ ip: '10.9.0.1', hostname: 'e' }, { ip: '10.9.0.4', hostname: 'i' }], at));
  await eventuallyAnswers(other.dns, 'i.s.a.svc.cluster.local.', 'A', (r) => rcodeOf(r) === 'NOERROR', 'the next change');
  assert.deepEqual(await reported(other.dns, 'a/x-1'), [1, 0, 0]);
});

test('manifests: the first scan observes and warns once; a later scan observes only the slices whose resourceVersion changed', async (t) => {
  const dir = makeTempDir('foghorn-reporting-');
  t.after(() => dir.remove());
  const at = new Date(Date.now() - 1500).toISOString();
  const write = (file: string, list: readonly ApiObject[]): void => writeFileSync(join(dir.path, file), list.map((o) => stringify(o)).join('---\n'));
  const slices = [triggered('h-1', 'h', [{ ip: '10.9.1.1', hostname: 'e' }], at, '1'), triggered('x-1', 's', [{ ip: '10.9.0.3', hostname: 'g' }], 'yesterday', '1')];
  write('cluster.yaml', [...objects, triggered('s-1', 's', [{ ip: '10.9.0.1', hostname: 'e' }], at, '1'), ...slices]);
  const plugin = createKubernetesPlugin({ manifestsDebounceMs: 10 });
  const dns = await startServer(`cluster.local:0 {\n    bind 127.0.0.1\n    kubernetes {\n        manifests ${dir.path}\n    }\n}\n`, { directives: directivesOf(bind, plugin) });
  t.after(() => dns.close());
  assert.deepEqual(await reported(dns, 'a/x-1'), [1, 1, 1]);

  write('more.yaml', [service('t', 'a', { clusterIPs: ['10.0.1.2'], ports: [http] })]);
  await eventuallyAnswers(dns, 't.a.svc.cluster.local.', 'A', (r) => rcodeOf(r) === 'NOERROR', 'the new file');
  assert.deepEqual(await reported(dns, 'a/x-1'), [1, 1, 1], 'unchanged slices are not observed again');

  write('cluster.yaml', [...objects, triggered('s-1', 's', [{ ip: '10.9.0.1', hostname: 'e' }, { ip: '10.9.0.2', hostname: 'f' }], at, '2'), ...slices]);
  await eventuallyAnswers(dns, 'f.s.a.svc.cluster.local.', 'A', (r) => rcodeOf(r) === 'NOERROR', 'the changed slice');
  assert.deepEqual(await reported(dns, 'a/x-1'), [2, 1, 1]);
});
