/**
 * The seam between the Kubernetes watch layer (src/kube/) and the lighthouse index. The watch
 * layer knows HTTP, informers, backoff and 410 Gone; the index knows DNS. Both sides code against
 * these types only. The manifests source (files on disk) feeds the same sinks.
 */

/** Minimal shape of a Kubernetes object as both sources deliver it (parsed JSON/YAML). */
export interface KubeObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly resourceVersion?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly [field: string]: unknown;
}

/** Receives the state of one watched resource. Calls are synchronous and in event order. */
export interface ObjectSink {
  /** The complete current list (initial list, or relist after 410 Gone / restart). */
  replace(items: readonly KubeObject[]): void;
  /** An object was added or modified. */
  upsert(item: KubeObject): void;
  /** An object was deleted. */
  remove(item: KubeObject): void;
}

/** One resource to watch. */
export interface ResourceSpec {
  /** API group, '' for the core group. */
  readonly group: string;
  readonly version: string;
  /** Plural resource name, e.g. `serviceimports`. */
  readonly plural: string;
  /** Namespace to watch, or undefined for all namespaces. */
  readonly namespace?: string;
  readonly labelSelector?: string;
  /**
   * When true, a 404 (CRD not installed, e.g. v1alpha1 vs v1beta1 ServiceImport) is not an error:
   * the informer reports itself synced with an empty list and retries slowly.
   */
  readonly optional?: boolean;
}

/** How to reach the API server (CoreDNS kubernetes plugin options). */
export interface KubeConnection {
  /** `kubeconfig PATH [CONTEXT]`. */
  readonly kubeconfig?: string;
  readonly context?: string;
  /** `endpoint URL`: API server URL (no auth unless a kubeconfig gives it). */
  readonly endpoint?: string;
}

/** A running watch of one resource, created by the kube layer. */
export interface Watch {
  /** True once the first complete list has been delivered to the sink. */
  readonly synced: boolean;
  /** Number of times the watch was restarted after an error. */
  readonly restarts: number;
  stop(): Promise<void>;
}
