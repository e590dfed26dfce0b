/**
 * A synthetic cluster for the kubernetes benchmarks: SERVICES services in 100 namespaces, every
 * fifth one headless (`svc4324.ns24` is, `svc4321.ns21` is not), each with one EndpointSlice of
 * ENDPOINTS ready endpoints (pods), as the API server would hold them.
 */
import type { ApiObject } from '@foghorn/testkit/kube';

export const namespaces = 100;
const http = { name: 'http', protocol: 'TCP', port: 80 };

/** The dotted quad of `n` below 10.`base`.0.0 (n < 2^24 - base * 2^16). */
function ip(base: number, n: number): string {
  return `10.${base + (n >> 16)}.${(n >> 8) & 255}.${n & 255}`;
}

export function isHeadless(i: number): boolean {
  return i % 5 === 4;
}

export function service(i: number, resourceVersion?: string): ApiObject {
  const clusterIP = isHeadless(i) ? 'None' : ip(96, i);
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: `svc${i}`, namespace: `ns${i % namespaces}`, ...(resourceVersion ? { resourceVersion } : {}) },
    spec: { type: 'ClusterIP', clusterIP, clusterIPs: [clusterIP], ports: [http] },
  };
}

/** Service `i`'s slice; `shift` moves its addresses (an update the answers must show). */
export function endpointSlice(i: number, endpoints: number, shift = 0): ApiObject {
  const ns = `ns${i % namespaces}`;
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: `svc${i}-x7k2p`, namespace: ns, labels: { 'kubernetes.io/service-name': `svc${i}` } },
    addressType: 'IPv4',
    endpoints: Array.from({ length: endpoints }, (_, j) => ({
      addresses: [ip(128, (i * endpoints + j + shift) % (1 << 22))],
      conditions: { ready: true },
      targetRef: { kind: 'Pod', name: `svc${i}-pod-${j}`, namespace: ns },
    })),
    ports: [http],
  };
}

export function clusterObjects(services: number, endpointsPerService: number): ApiObject[] {
  const objects: ApiObject[] = [];
  for (let n = 0; n < namespaces; n++) objects.push({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `ns${n}` } });
  for (let i = 0; i < services; i++) objects.push(service(i), endpointSlice(i, endpointsPerService));
  return objects;
}
