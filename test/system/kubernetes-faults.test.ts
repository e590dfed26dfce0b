/**
 * The kubernetes plugin of the real `foghorn` CLI under API faults, with production timings (no
 * test overrides: 1 s first retry doubling to 30 s, jittered; a list waits up to 60 s for data):
 * the ServiceImport CRD installed after start, a 410 Gone, 500s for 5 s, watches cut mid-event,
 * a list stalled for 30 s, every connection dropped, API server outages ending with a lower and
 * a higher resourceVersion numbering, the CRD removed and installed again. After each fault an
 * object changed during it must be answered, without restarting anything; the recovery time
 * (from the fault's end to the first answer of the change) is reported, for docs/reliability.md.
 * Meanwhile `/ready` stays 200 and the last state answers. `packages/plugin-kubernetes/test/
 * faults.test.ts` checks every answer in between, with short timings, in `npm test`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { delay, eventually, formatRr, freeDnsPort, freeTcpPort, httpGet, query, rcodeOf } from '@foghorn/testkit';
import { startKubeApiServer } from '@foghorn/testkit/kube';
import type { ApiObject, ApiResource, KubeApiServer } from '@foghorn/testkit/kube';
import { RunningCli } from '../cli-helpers.js';

const imports: ApiResource = { group: 'multicluster.x-k8s.io', version: 'v1alpha1', plural: 'serviceimports', kind: 'ServiceImport' };
const resources: ApiResource[] = [
  { group: '', version: 'v1', plural: 'services', kind: 'Service', builtin: true },
  { group: 'discovery.k8s.io', version: 'v1', plural: 'endpointslices', kind: 'EndpointSlice', builtin: true },
  { group: '', version: 'v1', plural: 'namespaces', kind: 'Namespace', builtin: true, namespaced: false },
];

function service(ip: string): ApiObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'shop' }, spec: { type: 'ClusterIP', clusterIP: ip, clusterIPs: [ip], ports: [{ name: 'http', protocol: 'TCP', port: 80 }] } };
}

function serviceImport(ip: string): ApiObject {
  return { apiVersion: 'multicluster.x-k8s.io/v1alpha1', kind: 'ServiceImport', metadata: { name: 'web', namespace: 'shop' }, spec: { type: 'ClusterSetIP', ips: [ip], ports: [{ name: 'http', protocol: 'TCP', port: 80 }] } };
}

const local = 'web.shop.svc.cluster.local.';
const clusterset = 'web.shop.svc.clusterset.local.';

test('the CLI under API faults with production timings: every change answered after the fault, no restart', { timeout: 300_000 }, async (t) => {
  const api: KubeApiServer = await startKubeApiServer({ resources });
  t.after(() => api.close());
  api.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
  api.apply(service('10.1.0.1'));
  const dir = mkdtempSync(join(tmpdir(), 'foghorn-kube-faults-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const [dnsPort, readyPort] = [await freeDnsPort(), await freeTcpPort()];
  const corefile = join(dir, 'Corefile');
  writeFileSync(
    corefile,
    `.:${dnsPort} {\n    bind 127.0.0.1\n    ready 127.0.0.1:${readyPort} {\n        monitor continuously\n    }\n    kubernetes cluster.local clusterset.local {\n        endpoint ${api.url}\n        multicluster clusterset.local\n        startup_timeout 2s\n    }\n}\n`,
  );
  const cli = new RunningCli(['-conf', corefile]);
  t.after(() => cli.kill('SIGTERM'));
  const ready = async (): Promise<number> => (await httpGet(readyPort, '/ready', { timeoutMs: 2000 })).status;
  const ask = async (name: string): Promise<string> => {
    const reply = await query({ port: dnsPort }, name, 'A');
    return rcodeOf(reply) === 'NOERROR' ? (reply.answers ?? []).map(formatRr).join(' ') : rcodeOf(reply);
  };
  /** Polls every 10 ms until `name` answers `want`; ms since `since`. */
  const recovered = async (name: string, want: string, since: number, timeoutMs = 60_000): Promise<number> => {
    await eventually(async () => assert.equal(await ask(name), want), timeoutMs);
    return Date.now() - since;
  };
  const record = (fault: string, ms: number): void => t.diagnostic(`${fault}: recovered in ${ms} ms`);
  const answer = (ip: string): string => `${local} 5 IN A ${ip}`;
  let ip = 1;
  /** Changes the service while the fault lasts: the answer to wait for afterwards. */
  const change = (): string => {
    api.apply(service(`10.1.0.${++ip}`));
    return answer(`10.1.0.${ip}`);
  };
  /** During a fault: ready, and the last state answers. */
  const holds = async (): Promise<void> => {
    assert.equal(await ready(), 200);
    assert.equal(await ask(local), answer(`10.1.0.${ip - 1}`));
  };

  // No ServiceImport CRD: the plugin starts after startup_timeout, not ready (CoreDNS's rule).
  await eventually(async () => assert.equal(await ask(local), answer('10.1.0.1')), 20_000);
  assert.equal(await ready(), 503);
  await delay(3000);
  assert.equal(await ready(), 503);
  api.serve(imports);
  api.apply(serviceImport('10.2.0.1'));
  let end = Date.now();
  record('ServiceImport CRD installed 5 s after start', await recovered(clusterset, `${clusterset} 5 IN A 10.2.0.1`, end));
  await eventually(async () => assert.equal(await ready(), 200), 5000);
  await eventually(() => api.watchCount === 5, 5000, 'five watches');

  api.silenceWatches();
  let want = change();
  await holds();
  api.compact();
  end = Date.now();
  api.errorWatches(410, 'too old resource version');
  record('410 Gone on the watches', await recovered(local, want, end));

  api.failNext(500, { count: 1_000_000, match: 'any' });
  api.endWatches();
  want = change();
  await delay(5000);
  await holds();
  api.clearFaults();
  end = Date.now();
  record('500s on every request for 5 s', await recovered(local, want, end));

  await delay(1000);
  api.breakWatches();
  want = change();
  end = Date.now();
  record('watches cut mid-event', await recovered(local, want, end));

  await delay(1000);
  api.silenceWatches();
  want = change();
  api.stallNext({ match: (r) => r.verb === 'list' && r.resource === 'services', ms: 30_000 });
  api.compact();
  api.errorWatches(410);
  await eventually(() => api.requests.some((r) => r.status === 'stalled'), 5000, 'the stalled list');
  const stalledAt = api.requests.find((r) => r.status === 'stalled')!.at;
  await delay(25_000);
  await holds();
  record('a list stalled for 30 s', await recovered(local, want, stalledAt + 30_000));

  await delay(1000);
  api.dropConnections();
  want = change();
  end = Date.now();
  record('every connection dropped (TCP reset)', await recovered(local, want, end));

  for (const [numbering, base] of [['lower', 1], ['higher', 100_000]] as const) {
    await delay(1000);
    api.bumpResourceVersion(1000);
    api.bookmark();
    await delay(200);
    await api.stop();
    want = change();
    await delay(5000);
    await holds();
    await api.restart({ newResourceVersions: base });
    end = Date.now();
    record(`API server down 5 s, back with a ${numbering} resourceVersion numbering`, await recovered(local, want, end));
  }

  // The CRD removed: its objects are deleted first, then it is no longer served; ready stays.
  await eventually(() => api.watchCount === 5, 30_000, 'five watches');
  for (const o of api.objects(imports)) api.delete(o);
  api.unserve(imports);
  await eventually(async () => assert.equal(await ask(clusterset), 'NXDOMAIN'), 5000);
  await delay(5000);
  assert.equal(await ready(), 200);
  api.serve(imports);
  api.apply(serviceImport('10.2.0.2'));
  end = Date.now();
  record('ServiceImport CRD removed for 5 s, installed again', await recovered(clusterset, `${clusterset} 5 IN A 10.2.0.2`, end));
  await eventually(() => {
    const open = api.openWatches();
    assert.equal(Object.keys(open).length, 5, JSON.stringify(open));
    assert.ok(Object.values(open).every((n) => n === 1), JSON.stringify(open));
  }, 5000);
  assert.doesNotMatch(cli.output, /\[ERROR\]/);
});
