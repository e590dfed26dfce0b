/**
 * The resources DNS plugins watch, as typed {@link ResourceSpec}s, and the minimal shapes of
 * their objects: the fields CoreDNS's kubernetes plugin reads (plugin/kubernetes/object/
 * service.go, endpoint.go, pod.go, namespace.go; plugin/kubernetes/controller.go) and those
 * Lighthouse reads. Every field is optional, as in JSON from an API server that may omit it;
 * the plugins check what they use. Objects carry every other field too (the index signature).
 */
import type { KubeObject, ObjectMeta, ResourceSpec } from './types.js';

/** Which objects of a resource to watch; each distinct combination is its own list+watch. */
export interface Selectors {
  /** One namespace, or all namespaces when undefined. */
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
}

/** A port of a Service or ServiceImport. */
export interface ServicePort {
  readonly name?: string;
  /** `TCP` (the API server's default), `UDP` or `SCTP`. */
  readonly protocol?: string;
  readonly port?: number;
  readonly appProtocol?: string;
}

/** core/v1 Service. */
export interface Service extends KubeObject {
  readonly metadata?: ObjectMeta;
  readonly spec?: {
    /** `ClusterIP` (default), `NodePort`, `LoadBalancer` or `ExternalName`. */
    readonly type?: string;
    /** `None` for a headless service. */
    readonly clusterIP?: string;
    /** Dual-stack: every cluster IP, the first equal to `clusterIP`. */
    readonly clusterIPs?: readonly string[];
    /** The CNAME target of an `ExternalName` service. */
    readonly externalName?: string;
    readonly externalIPs?: readonly string[];
    readonly ports?: readonly ServicePort[];
    readonly publishNotReadyAddresses?: boolean;
  };
  readonly status?: {
    readonly loadBalancer?: { readonly ingress?: readonly { readonly ip?: string; readonly hostname?: string }[] };
  };
}

/** A reference from an endpoint to the object behind it (usually a Pod). */
export interface ObjectReference {
  readonly kind?: string;
  readonly name?: string;
  readonly namespace?: string;
  readonly uid?: string;
}

/** One endpoint of an {@link EndpointSlice}. */
export interface Endpoint {
  readonly addresses?: readonly string[];
  /** Absent `ready` means ready (discovery.k8s.io/v1). */
  readonly conditions?: { readonly ready?: boolean | null; readonly serving?: boolean | null; readonly terminating?: boolean | null };
  readonly hostname?: string;
  readonly nodeName?: string;
  readonly zone?: string;
  readonly targetRef?: ObjectReference;
}

/** A port of an {@link EndpointSlice}. */
export interface EndpointPort {
  readonly name?: string;
  readonly protocol?: string;
  readonly port?: number | null;
  readonly appProtocol?: string;
}

/** discovery.k8s.io/v1 EndpointSlice. The owning Service is the `kubernetes.io/service-name` label. */
export interface EndpointSlice extends KubeObject {
  readonly metadata?: ObjectMeta;
  /** `IPv4`, `IPv6` or `FQDN`. */
  readonly addressType?: string;
  readonly endpoints?: readonly Endpoint[] | null;
  readonly ports?: readonly EndpointPort[] | null;
}

/** core/v1 Pod (for `pods verified`: the pod IP and whether it is going away). */
export interface Pod extends KubeObject {
  readonly metadata?: ObjectMeta;
  readonly spec?: { readonly nodeName?: string; readonly hostNetwork?: boolean };
  readonly status?: {
    readonly podIP?: string;
    readonly podIPs?: readonly { readonly ip?: string }[];
    /** `Pending`, `Running`, `Succeeded`, `Failed` or `Unknown`. */
    readonly phase?: string;
  };
}

/** core/v1 Namespace (cluster-scoped: `metadata.namespace` is absent). */
export interface Namespace extends KubeObject {
  readonly metadata?: ObjectMeta;
  readonly status?: { readonly phase?: string };
}

/** multicluster.x-k8s.io ServiceImport (KEP-1645 Multi-Cluster Services). */
export interface ServiceImport extends KubeObject {
  readonly metadata?: ObjectMeta;
  readonly spec?: {
    /** `ClusterSetIP` or `Headless`. */
    readonly type?: string;
    readonly ips?: readonly string[];
    readonly ports?: readonly ServicePort[];
  };
  readonly status?: { readonly clusters?: readonly { readonly cluster?: string }[] };
}

/** The label naming an EndpointSlice's Service (discovery/v1 `LabelServiceName`). */
export const serviceNameLabel = 'kubernetes.io/service-name';
/** The label the EndpointSlice controller sets on a headless Service's slices. */
export const headlessLabel = 'service.kubernetes.io/headless';
/** The label naming the controller that manages an EndpointSlice. */
export const managedByLabel = 'endpointslice.kubernetes.io/managed-by';
/** The label naming the ServiceImport an EndpointSlice belongs to (MCS API, KEP-1645). */
export const mcsServiceNameLabel = 'multicluster.kubernetes.io/service-name';
/** The label naming the cluster an MCS EndpointSlice comes from (KEP-1645). */
export const mcsSourceClusterLabel = 'multicluster.kubernetes.io/source-cluster';

/** Joins selector terms with `,` (a logical AND), skipping empty ones; undefined when none is left. */
export function joinSelectors(...terms: readonly (string | undefined)[]): string | undefined {
  const kept = terms.filter((t): t is string => t !== undefined && t.trim() !== '');
  return kept.length > 0 ? kept.join(',') : undefined;
}

function spec<T extends KubeObject>(group: string, version: string, plural: string, selectors: Selectors): ResourceSpec<T> {
  return {
    group,
    version,
    plural,
    ...(selectors.namespace !== undefined ? { namespace: selectors.namespace } : {}),
    ...(selectors.labelSelector !== undefined ? { labelSelector: selectors.labelSelector } : {}),
    ...(selectors.fieldSelector !== undefined ? { fieldSelector: selectors.fieldSelector } : {}),
  };
}

/** core/v1 `services`. */
export function servicesResource(selectors: Selectors = {}): ResourceSpec<Service> {
  return spec('', 'v1', 'services', selectors);
}

/** discovery.k8s.io/v1 `endpointslices`. */
export function endpointSlicesResource(selectors: Selectors = {}): ResourceSpec<EndpointSlice> {
  return spec('discovery.k8s.io', 'v1', 'endpointslices', selectors);
}

/** core/v1 `pods`. */
export function podsResource(selectors: Selectors = {}): ResourceSpec<Pod> {
  return spec('', 'v1', 'pods', selectors);
}

/** core/v1 `namespaces` (cluster-scoped, so no namespace selector). */
export function namespacesResource(selectors: Omit<Selectors, 'namespace'> = {}): ResourceSpec<Namespace> {
  return spec('', 'v1', 'namespaces', selectors);
}

/**
 * multicluster.x-k8s.io `serviceimports`, v1alpha1 by default. Optional: when the CRD is not
 * installed the informer is synced and empty, and checks again every `backoffMaxMs`.
 */
export function serviceImportsResource(selectors: Selectors = {}, version: 'v1alpha1' | 'v1beta1' = 'v1alpha1'): ResourceSpec<ServiceImport> {
  return { ...spec<ServiceImport>('multicluster.x-k8s.io', version, 'serviceimports', selectors), optional: true };
}

/** `namespace/name` (`/name` for cluster-scoped objects): an object's key in an informer's store. */
export function objectKey(object: KubeObject): string {
  return `${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`;
}

/** kubectl's `plural.version.group` spelling, plus the namespace when there is one. */
export function resourceName(resource: ResourceSpec): string {
  const base = resource.group === '' ? `${resource.plural}.${resource.version}` : `${resource.plural}.${resource.version}.${resource.group}`;
  return resource.namespace !== undefined ? `${base} in namespace '${resource.namespace}'` : base;
}
