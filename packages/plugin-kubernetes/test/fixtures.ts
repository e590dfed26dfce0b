/**
 * CoreDNS's handler test fixtures (plugin/kubernetes/handler_test.go `svcIndex`, `epsIndex`,
 * `svcImportIndex`, `mcEpsIndex`, the pod of handler_pod_verified_test.go) as the Kubernetes
 * objects an API server would hold, and a harness that serves them from the test API server
 * (@foghorn/testkit/kube) to a real Foghorn server with the kubernetes plugin.
 */
import type { TestContext } from 'node:test';

import type { Answer, RecordType } from 'dns-packet';
import bind from '@foghorn/plugin-bind';
import ready, { readyListeners } from '@foghorn/plugin-ready';
import { definePlugin, Flags, ReadinessProbes } from '@foghorn/core';
import type { Controller, PluginDefinition, ReadinessProbe } from '@foghorn/core';
import { directivesOf, eventually, formatRr, query, rcodeOf, startServer } from '@foghorn/testkit';
import type { CheckOptions, Reply, TestServer } from '@foghorn/testkit';
import { startKubeApiServer } from '@foghorn/testkit/kube';
import type { ApiObject, ApiResource, KubeApiServer } from '@foghorn/testkit/kube';
import { createKubernetesPlugin } from '../src/index.js';
import type { PluginOverrides } from '../src/index.js';

/** What the kubernetes plugin lists and watches. */
export const resources: readonly ApiResource[] = [
  { group: '', version: 'v1', plural: 'services', kind: 'Service', builtin: true },
  { group: 'discovery.k8s.io', version: 'v1', plural: 'endpointslices', kind: 'EndpointSlice', builtin: true },
  { group: '', version: 'v1', plural: 'pods', kind: 'Pod', builtin: true },
  { group: '', version: 'v1', plural: 'namespaces', kind: 'Namespace', builtin: true, namespaced: false },
  { group: 'multicluster.x-k8s.io', version: 'v1alpha1', plural: 'serviceimports', kind: 'ServiceImport' },
];

export interface PortSpec {
  readonly name?: string;
  readonly protocol?: string;
  readonly port?: number;
}

export const http: PortSpec = { name: 'http', protocol: 'TCP', port: 80 };

export function namespace(name: string, labels?: Record<string, string>): ApiObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, ...(labels ? { labels } : {}) } };
}

export function service(
  name: string,
  ns: string,
  spec: { clusterIPs?: string[]; type?: string; externalName?: string; ports?: PortSpec[] },
  labels?: Record<string, string>,
): ApiObject {
  const clusterIPs = spec.clusterIPs ?? [];
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: ns, ...(labels ? { labels } : {}) },
    spec: {
      type: spec.type ?? 'ClusterIP',
      ...(clusterIPs.length > 0 ? { clusterIP: clusterIPs[0], clusterIPs } : {}),
      ...(spec.externalName !== undefined ? { externalName: spec.externalName } : {}),
      ...(spec.ports ? { ports: spec.ports } : {}),
    },
  };
}

export interface EndpointSpec {
  readonly ip: string | string[];
  readonly hostname?: string;
  readonly ready?: boolean | null;
  readonly pod?: string;
  /** Topology zone (`endpoints[].zone`). */
  readonly zone?: string;
}

export function endpointSlice(
  name: string,
  ns: string,
  serviceName: string | null,
  endpoints: readonly EndpointSpec[],
  ports: readonly PortSpec[] | null,
  extra: { labels?: Record<string, string>; annotations?: Record<string, string>; addressType?: string } = {},
): ApiObject {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name,
      namespace: ns,
      labels: { ...(serviceName !== null ? { 'kubernetes.io/service-name': serviceName } : {}), ...extra.labels },
      ...(extra.annotations ? { annotations: extra.annotations } : {}),
    },
    addressType: extra.addressType ?? 'IPv4',
    endpoints: endpoints.map((e) => ({
      addresses: Array.isArray(e.ip) ? e.ip : [e.ip],
      ...(e.ready === null ? {} : { conditions: { ready: e.ready ?? true } }),
      ...(e.hostname !== undefined ? { hostname: e.hostname } : {}),
      ...(e.pod !== undefined ? { targetRef: { kind: 'Pod', name: e.pod, namespace: ns } } : {}),
      ...(e.zone !== undefined ? { zone: e.zone } : {}),
    })),
    ...(ports !== null ? { ports } : {}),
  };
}

export function pod(name: string, ns: string, ip: string, phase = 'Running', extra: { deletionTimestamp?: string } = {}): ApiObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, ...extra }, status: { podIP: ip, podIPs: [{ ip }], phase } };
}

export function serviceImport(name: string, ns: string, spec: { type?: string; ips?: string[]; ports?: PortSpec[] }): ApiObject {
  return {
    apiVersion: 'multicluster.x-k8s.io/v1alpha1',
    kind: 'ServiceImport',
    metadata: { name, namespace: ns },
    spec: { type: spec.type ?? 'ClusterSetIP', ...(spec.ips ? { ips: spec.ips } : {}), ...(spec.ports ? { ports: spec.ports } : {}) },
  };
}

/** A multicluster slice: labelled with the MCS service name and source cluster. */
export function mcSlice(name: string, ns: string, serviceName: string, cluster: string, endpoints: readonly EndpointSpec[], ports: readonly PortSpec[] | null): ApiObject {
  return endpointSlice(name, ns, null, endpoints, ports, {
    labels: { 'multicluster.kubernetes.io/service-name': serviceName, 'multicluster.kubernetes.io/source-cluster': cluster },
  });
}

const hdls1Endpoints: EndpointSpec[] = [
  { ip: '172.0.0.2' },
  { ip: '172.0.0.3' },
  { ip: '172.0.0.4', hostname: 'dup-name' },
  { ip: '172.0.0.5', hostname: 'dup-name' },
  { ip: '5678:abcd::1' },
  { ip: '5678:abcd::2' },
];

/** handler_test.go's namespaces that exist (`nsnoexist`, `svc-nons` and `pod-nons` do not). */
export const namespaces: ApiObject[] = ['testns', 'kube-system', 'podns', 'unexposedns', 'svcns'].map((n) => namespace(n));

/** handler_test.go `svcIndex` + `epsIndex`. */
export const handlerObjects: ApiObject[] = [
  ...namespaces,
  service('kubedns', 'kube-system', { clusterIPs: ['10.0.0.10'], ports: [{ name: 'dns', protocol: 'UDP', port: 53 }] }),
  service('svc1', 'testns', { clusterIPs: ['10.0.0.1'], ports: [http] }),
  service('svcempty', 'testns', { clusterIPs: ['10.0.0.1'], ports: [http] }),
  service('svc6', 'testns', { clusterIPs: ['1234:abcd::1'], ports: [http] }),
  service('hdls1', 'testns', { clusterIPs: ['None'] }),
  service('external', 'testns', { type: 'ExternalName', externalName: 'ext.interwebs.test', ports: [http] }),
  service('external-to-service', 'testns', { type: 'ExternalName', externalName: 'svc1.testns.svc.cluster.local.', ports: [http] }),
  service('hdlsprtls', 'testns', { clusterIPs: ['None'] }),
  service('svc1', 'unexposedns', { clusterIPs: ['10.0.0.2'], ports: [http] }),
  service('svc-dual-stack', 'testns', { clusterIPs: ['10.0.0.3', '10::3'], ports: [http] }),
  endpointSlice('kubedns', 'kube-system', 'kubedns', [{ ip: '172.0.0.100' }], [{ name: 'dns', protocol: 'UDP', port: 53 }]),
  endpointSlice('svc1-slice1', 'testns', 'svc1', [{ ip: '172.0.0.1', hostname: 'ep1a' }], [http]),
  endpointSlice('svcempty-slice1', 'testns', 'svcempty', [], [http]),
  endpointSlice('hdls1-slice1', 'testns', 'hdls1', hdls1Endpoints, [http]),
  endpointSlice('hdlsprtls-slice1', 'testns', 'hdlsprtls', [{ ip: '172.0.0.20' }], null),
  pod('pod1', 'podns', '10.240.0.1'),
];

/** handler_test.go `svcImportIndex` + `mcEpsIndex`. */
export const multiclusterObjects: ApiObject[] = [
  ...namespaces,
  serviceImport('kubedns', 'kube-system', { ips: ['10.0.0.10'], ports: [{ name: 'dns', protocol: 'UDP', port: 53 }] }),
  serviceImport('svc1', 'testns', { ips: ['10.0.0.1'], ports: [http] }),
  serviceImport('svcempty', 'testns', { ips: ['10.0.0.1'], ports: [http] }),
  serviceImport('svc6', 'testns', { ips: ['1234:abcd::1'], ports: [http] }),
  serviceImport('hdls1', 'testns', { type: 'Headless' }),
  serviceImport('hdlsprtls', 'testns', { type: 'Headless' }),
  serviceImport('svc1', 'unexposedns', { ips: ['10.0.0.2'], ports: [http] }),
  serviceImport('svc-dual-stack', 'testns', { ips: ['10.0.0.3', '10::3'], ports: [http] }),
  mcSlice('kubedns', 'kube-system', 'kubedns', 'cluster1', [{ ip: '172.0.0.100' }], [{ name: 'dns', protocol: 'UDP', port: 53 }]),
  mcSlice('svc1-slice1', 'testns', 'svc1', 'cluster1', [{ ip: '172.0.0.1', hostname: 'ep1a' }], [http]),
  mcSlice('svcempty-slice1', 'testns', 'svcempty', 'cluster1', [], [http]),
  mcSlice('hdls1-slice1', 'testns', 'hdls1', 'cluster1', hdls1Endpoints, [http]),
  mcSlice('hdlsprtls-slice1', 'testns', 'hdlsprtls', 'cluster1', [{ ip: '172.0.0.20' }], null),
];

/**
 * The rest of the chain for ExternalName lookups (CoreDNS's `Upstub`): `ext.interwebs.test A`
 * answers 1.2.3.4 with TC set, as the truncated upstream of "CNAME External Truncated Lookup";
 * anything else gets NXDOMAIN (what `forward` would relay for an unknown reverse name).
 */
export const upstreamStub: PluginDefinition = definePlugin({
  name: 'upstream',
  setup(c) {
    while (c.next()) c.remainingArgs();
    c.addHandler(() => ({
      name: 'upstream',
      serveDNS(req, w) {
        const answers: Answer[] = req.qname === 'ext.interwebs.test.' && req.type === 'A' ? [{ name: req.name, type: 'A', ttl: 5, class: 'IN', data: '1.2.3.4' }] : [];
        w.write({ type: 'response', id: req.id, flags: Flags.QR | (answers.length === 0 ? 3 : Flags.TC), questions: [{ name: req.name, type: req.type as RecordType, class: 'IN' }], answers });
        return 0;
      },
    }));
  },
});

export interface ClusterOptions {
  /** Zones after `kubernetes`; default `cluster.local in-addr.arpa ip6.arpa`. */
  readonly zones?: string;
  /** Lines inside `kubernetes { ... }` besides `endpoint`. */
  readonly options?: string;
  readonly objects?: readonly ApiObject[];
  readonly overrides?: PluginOverrides;
  /** Put the upstream stub after kubernetes. */
  readonly upstream?: boolean;
  /** Do not wait for readiness. */
  readonly noWait?: boolean;
  readonly api?: KubeApiServer;
  /** Serve `/ready` (the `ready` plugin, asking the plugins on every probe) on a loopback port. */
  readonly ready?: boolean;
}

export interface Cluster {
  readonly api: KubeApiServer;
  readonly dns: TestServer;
  readonly probe: ReadinessProbe;
  /** The `ready` plugin's port, with {@link ClusterOptions.ready}; 0 otherwise. */
  readonly readyPort: number;
}

/** Fast retries so fault tests and unsynced starts stay short. */
export const fastWatch = { backoffInitialMs: 20, backoffMaxMs: 200, logIntervalMs: 60_000 };

/** The test API server holding `objects`, and a Foghorn server whose kubernetes plugin watches it. */
export async function startCluster(t: TestContext, options: ClusterOptions = {}): Promise<Cluster> {
  const api = options.api ?? (await startKubeApiServer({ resources }));
  if (!options.api) t.after(() => api.close());
  for (const object of options.objects ?? handlerObjects) api.apply(structuredClone(object));
  let controller: Controller | undefined;
  const readyprobe = definePlugin({ name: 'readyprobe', setup: (c) => void (controller = c) });
  const body = (options.options ?? '').split('\n').map((l) => `        ${l.trim()}`).join('\n');
  const readyLines = options.ready ? '    ready 127.0.0.1:0 {\n        monitor continuously\n    }\n' : '';
  const corefile = `.:0 {\n    bind 127.0.0.1\n${readyLines}    readyprobe\n    kubernetes ${options.zones ?? 'cluster.local in-addr.arpa ip6.arpa'} {\n        endpoint ${api.url}\n${body}\n    }\n${options.upstream ? '    upstream\n' : ''}}\n`;
  const plugin = createKubernetesPlugin({ ...options.overrides, watch: { ...fastWatch, ...options.overrides?.watch } });
  const dns = await startServer(corefile, { directives: directivesOf(bind, ready, readyprobe, plugin, upstreamStub) });
  t.after(() => dns.close());
  const probe = controller?.use(ReadinessProbes).find((p) => p.name === 'kubernetes');
  if (!probe) throw new Error('kubernetes reported no readiness');
  if (!options.noWait) await eventually(() => probe.ready(), 5000, 'kubernetes ready');
  return { api, dns, probe, readyPort: options.ready ? readyListeners(controller!)[0]!.port : 0 };
}

/**
 * How the kubernetes tables are checked with testkit's `checkCases`: over UDP (with EDNS and a
 * 1232-byte buffer, as today's stub resolvers send) and TCP; every reply authoritative and not
 * truncated unless the case says otherwise; SOA serials not compared (they follow the store).
 */
export const caseOptions: CheckOptions = { transports: ['udp', 'tcp'], udpSize: 1232, flags: { aa: true, tc: false }, soaSerial: false };

/** The standard SOA of a zone with the default TTL, as a Case line (serial 0: it is not compared). */
export function soa(zone: string, ttl = 5, minimum = ttl): string {
  return `${zone} ${Math.min(ttl, 300)} IN SOA ns.dns.${zone} hostmaster.${zone} 0 7200 1800 86400 ${minimum}`;
}

/** One query; UDP ones carry EDNS with a 1232-byte buffer, as today's stub resolvers send. */
export async function ask(dns: TestServer, name: string, type: RecordType, transport: 'udp' | 'tcp' = 'udp'): Promise<Reply> {
  return query({ port: dns.port() }, name, type, { transport, ...(transport === 'udp' ? { udpSize: 1232 } : {}) });
}

/**
 * Waits until `name`/`type` answers as `predicate` wants (events reach answers within a bound);
 * a timeout names `what` and the last reply.
 */
export async function eventuallyAnswers(dns: TestServer, name: string, type: RecordType, predicate: (reply: Reply) => boolean, what: string, timeoutMs = 3000): Promise<Reply> {
  let reply: Reply | undefined;
  await eventually(async () => {
    reply = await ask(dns, name, type);
    if (!predicate(reply)) throw new Error(`timed out waiting for ${what}; last reply ${rcodeOf(reply)} ${JSON.stringify((reply.answers ?? []).map(formatRr))}`);
  }, timeoutMs);
  return reply!;
}
