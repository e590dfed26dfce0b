/**
 * The seam between the Kubernetes client and the plugins that use it. The client knows HTTP,
 * informers, backoff and 410 Gone; the plugins know DNS. Both sides code against these types
 * only (lighthouse's manifests source, files on disk, feeds the same sinks). Nothing here loads
 * @kubernetes/client-node.
 */

/** The metadata fields DNS plugins read. */
export interface ObjectMeta {
  readonly name?: string;
  readonly namespace?: string;
  readonly resourceVersion?: string;
  readonly uid?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  /** Set while the object is being deleted (CoreDNS skips such Pods). */
  readonly deletionTimestamp?: string;
}

/**
 * Minimal shape of a Kubernetes object as both sources deliver it (parsed JSON/YAML). Objects
 * are shared by every subscriber of an informer: treat them as read-only.
 */
export interface KubeObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: ObjectMeta;
  readonly [field: string]: unknown;
}

/**
 * Receives the state of one watched resource. Calls are synchronous and in event order. The
 * objects are the sink's to keep or drop; nothing else holds them (a registry's subscribers share
 * them: there, read only).
 */
export interface ObjectSink {
  /**
   * The complete current list (initial list, or relist after 410 Gone / restart). A sink with
   * {@link part} gets a list of more than one page in pieces, and `replace` then carries its
   * last page only. `absent`: the API server does not serve the resource (404: an optional
   * resource's CRD is not installed, or any resource's CRD was removed after it listed): `items`
   * is empty, and a later replace without it says the resource is served again.
   */
  replace(items: readonly KubeObject[], absent?: boolean): void;
  /**
   * Optional: a (re)list's pages but the last, as they arrive, so that nobody holds a whole
   * list's objects at once (a list of 50,000 EndpointSlices is some 150 MB of parsed JSON).
   * `first` is true on a list's first page, which starts the list over: the parts of an earlier
   * list that was cut short (an expired continue token, a failed page) do not count. The list is
   * complete at the `replace` that follows, which carries its last page: what the sink held
   * before and is in no part since the first and not in that page is gone. A sink may apply
   * each part at once (a changed object shows before the list ends; a deleted one goes at the
   * end), or gather them.
   */
  part?(items: readonly KubeObject[], first: boolean): void;
  /** An object was added or modified. */
  upsert(item: KubeObject): void;
  /** An object was deleted. */
  remove(item: KubeObject): void;
  /** The list+watch restarted (an error, a 410 relist): `Watch.restarts` went up by one. */
  restarted?(): void;
}

/**
 * One resource to watch. `T` is the shape of its objects, for the caller's benefit only (see
 * the typed constructors in resources.ts); an informer's identity is the connection plus every
 * field here.
 */
export interface ResourceSpec<T extends KubeObject = KubeObject> {
  /** API group, '' for the core group. */
  readonly group: string;
  readonly version: string;
  /** Plural resource name, e.g. `serviceimports`. */
  readonly plural: string;
  /** Namespace to watch, or undefined for all namespaces. */
  readonly namespace?: string;
  /** Label selector, e.g. `endpointslice.kubernetes.io/managed-by=lighthouse-agent.submariner.io`. */
  readonly labelSelector?: string;
  /** Field selector, e.g. `status.phase!=Succeeded,status.phase!=Failed`. */
  readonly fieldSelector?: string;
  /**
   * When true, a 404 (CRD not installed, e.g. v1alpha1 vs v1beta1 ServiceImport) is not an error:
   * the informer reports itself synced with an empty list and retries slowly.
   */
  readonly optional?: boolean;
  /** Type-level only, never set: carries `T` so a lease on this resource is typed. */
  readonly objectShape?: T;
}

/** How to reach the API server (CoreDNS kubernetes plugin options). */
export interface KubeConnection {
  /** `kubeconfig PATH [CONTEXT]`. */
  readonly kubeconfig?: string;
  readonly context?: string;
  /** `endpoint URL`: API server URL (no auth unless a kubeconfig gives it). */
  readonly endpoint?: string;
}

/** Where the kubelet mounts the service account (token, ca.crt, namespace). */
export const defaultServiceAccountDir = '/var/run/secrets/kubernetes.io/serviceaccount';

/** Why no connection could be built; `resolveConnection` throws it so setup can report it. Its code lives in core's error registry. */
export { KubeConnectionError } from '@foghorn/core';

/** A running watch of one resource, created by the kube layer. */
export interface Watch {
  /** True once the first complete list has been delivered to the sink. */
  readonly synced: boolean;
  /** Number of times the watch was restarted after an error. */
  readonly restarts: number;
  /**
   * Lists again from the first page, as after a 410 Gone (a list in progress starts over), and
   * resumes watching from the new list: the sink gets the whole state again. Not a restart.
   */
  relist(): void;
  stop(): Promise<void>;
}
