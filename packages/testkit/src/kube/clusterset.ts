/**
 * A synthetic clusterset for benchmarks and load tests: service `i` is `svc<i>` in namespace
 * `ns<i % 100>`, exported by three clusters, every fifth one headless with three pods. Addresses
 * are unique per (cluster, service) for up to 1,048,576 services.
 */

/** The clusters of the synthetic clusterset. */
export const syntheticClusters: readonly string[] = ['cluster1', 'cluster2', 'cluster3'];

/** A plain Kubernetes object, as JSON from an API server or a manifests file. */
export type SyntheticObject = Record<string, unknown> & { metadata: { name: string; namespace: string; resourceVersion?: string; labels?: Record<string, string> } };

export interface SyntheticOptions {
  /** Stamp objects with this resourceVersion (as an API server would). */
  readonly resourceVersion?: string;
}

function isHeadless(i: number): boolean {
  return i % 5 === 4;
}

/** The aggregated ServiceImport of service `i`. */
export function syntheticServiceImport(i: number, options: SyntheticOptions = {}): SyntheticObject {
  return {
    apiVersion: 'multicluster.x-k8s.io/v1alpha1',
    kind: 'ServiceImport',
    metadata: { name: `svc${i}`, namespace: `ns${i % 100}`, ...(options.resourceVersion ? { resourceVersion: options.resourceVersion } : {}) },
    spec: { type: isHeadless(i) ? 'Headless' : 'ClusterSetIP', ports: [{ name: 'http', protocol: 'TCP', port: 8080 }] },
  };
}

/**
 * The EndpointSlice cluster number `c` exports for service `i`. `lastOctet` replaces the last
 * octet of a ClusterSetIP service's address, so a benchmark can send changes.
 */
export function syntheticEndpointSlice(i: number, c: number, options: SyntheticOptions & { lastOctet?: number } = {}): SyntheticObject {
  const name = `svc${i}`;
  const namespace = `ns${i % 100}`;
  const cluster = syntheticClusters[c]!;
  const base = `10.${c * 64 + ((i >> 14) & 63)}.${(i >> 6) & 255}`;
  const ip = (k: number): string => `${base}.${((i & 63) << 2) + k}`;
  const headless = isHeadless(i);
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: `${name}-${cluster}`,
      namespace,
      ...(options.resourceVersion ? { resourceVersion: options.resourceVersion } : {}),
      labels: {
        'endpointslice.kubernetes.io/managed-by': 'lighthouse-agent.submariner.io',
        'multicluster.kubernetes.io/service-name': name,
        'lighthouse.submariner.io/sourceNamespace': namespace,
        'multicluster.kubernetes.io/source-cluster': cluster,
        'lighthouse.submariner.io/is-headless': String(headless),
      },
    },
    addressType: 'IPv4',
    endpoints: headless
      ? [0, 1, 2].map((k) => ({ addresses: [ip(k + 1)], hostname: `${name}-${k}`, conditions: { ready: true } }))
      : [{ addresses: [options.lastOctet === undefined ? ip(1) : `${base}.${options.lastOctet}`], conditions: { ready: true } }],
    ports: [{ name: 'http', protocol: 'TCP', port: 8080 }],
  };
}

/** `count` services: their ServiceImports, and the EndpointSlices of each cluster. */
export function syntheticClusterset(count: number, stamp?: () => string): { imports: SyntheticObject[]; slices: SyntheticObject[][] } {
  const imports: SyntheticObject[] = [];
  const slices: SyntheticObject[][] = syntheticClusters.map(() => []);
  const options = (): SyntheticOptions => (stamp ? { resourceVersion: stamp() } : {});
  for (let i = 0; i < count; i++) {
    imports.push(syntheticServiceImport(i, options()));
    syntheticClusters.forEach((_, c) => slices[c]!.push(syntheticEndpointSlice(i, c, options())));
  }
  return { imports, slices };
}
