/**
 * The object store behind the test Kubernetes API server: served resources, objects stamped
 * with one global resourceVersion counter (etcd's revision), and an event history that watches
 * replay from. `compact()` drops the history, so a watch from an older resourceVersion gets
 * `410 Gone`, as after etcd compaction or an API server restart.
 */

/** Object metadata as the store keeps it. */
export interface ApiObjectMeta {
  name: string;
  namespace?: string;
  resourceVersion?: string;
  uid?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  [field: string]: unknown;
}

/** A Kubernetes object as the test server stores and serves it. */
export interface ApiObject {
  apiVersion: string;
  kind: string;
  metadata: ApiObjectMeta;
  [field: string]: unknown;
}

/** A resource the server serves (a built-in type or an installed CRD). */
export interface ApiResource {
  /** API group, '' for the core group (`/api/v1`). */
  readonly group: string;
  readonly version: string;
  /** Plural name used in URLs, e.g. `serviceimports`. */
  readonly plural: string;
  readonly kind: string;
  /** Default true. Cluster-scoped resources ignore namespaces. */
  readonly namespaced?: boolean;
  /**
   * A built-in type: like the real API server, lists leave `apiVersion` and `kind` off the items
   * (only the list carries them); watch events still carry them. CRDs keep them everywhere.
   */
  readonly builtin?: boolean;
}

/**
 * The resources the Lighthouse and Kubernetes DNS plugins read; the v1beta1 ServiceImport is
 * left out on purpose.
 */
export const defaultResources: readonly ApiResource[] = [
  { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', builtin: true },
  { group: '', version: 'v1', plural: 'services', kind: 'Service', builtin: true },
  { group: '', version: 'v1', plural: 'pods', kind: 'Pod', builtin: true },
  { group: '', version: 'v1', plural: 'namespaces', kind: 'Namespace', builtin: true, namespaced: false },
  { group: 'discovery.k8s.io', version: 'v1', plural: 'endpointslices', kind: 'EndpointSlice', builtin: true },
  { group: 'multicluster.x-k8s.io', version: 'v1alpha1', plural: 'serviceimports', kind: 'ServiceImport' },
  { group: 'submariner.io', version: 'v1', plural: 'gateways', kind: 'Gateway' },
  { group: 'submariner.io', version: 'v1alpha1', plural: 'submariners', kind: 'Submariner' },
];

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One change, as recorded in the history. */
export interface StoredEvent {
  readonly rv: number;
  readonly key: string;
  readonly type: EventType;
  readonly object: ApiObject;
  /** The object before a MODIFIED change (label selectors turn it into ADDED/DELETED). */
  readonly previous?: ApiObject;
}

/** `group/version/plural`, the store's key for a resource. */
export function resourceKey(group: string, version: string, plural: string): string {
  return `${group}/${version}/${plural}`;
}

export function apiVersionOf(resource: ApiResource): string {
  return resource.group === '' ? resource.version : `${resource.group}/${resource.version}`;
}

function objectKey(obj: ApiObject): string {
  return `${obj.metadata.namespace ?? ''}/${obj.metadata.name}`;
}

/** A parsed label selector: equality (`a=b`, `a==b`), inequality (`a!=b`) and existence (`a`, `!a`). */
export type LabelSelector = (labels: Readonly<Record<string, string>> | undefined) => boolean;

/** Parses the equality-based selector syntax; throws on anything else (the server answers 400). */
export function parseLabelSelector(text: string | null): LabelSelector {
  if (text === null || text.trim() === '') return () => true;
  const tests: LabelSelector[] = [];
  for (const raw of text.split(',')) {
    const term = raw.trim();
    const match = /^([A-Za-z0-9._/-]+)\s*(!=|==|=)\s*([A-Za-z0-9._-]*)$/.exec(term);
    if (match) {
      const [, key = '', op, value = ''] = match;
      tests.push(op === '!=' ? (l) => l?.[key] !== value : (l) => l?.[key] === value);
      continue;
    }
    const exists = /^(!?)([A-Za-z0-9._/-]+)$/.exec(term);
    if (exists) {
      const [, not, key = ''] = exists;
      tests.push(not ? (l) => l?.[key] === undefined : (l) => l?.[key] !== undefined);
      continue;
    }
    throw new Error(`unable to parse requirement: '${term}'`);
  }
  return (labels) => tests.every((t) => t(labels));
}

/** A parsed field selector: a test on the whole object. */
export type FieldSelector = (object: ApiObject) => boolean;

/**
 * Parses a field selector: `path=value`, `path==value` and `path!=value` terms joined by `,`,
 * where path is a dotted field path such as `metadata.name`, `spec.nodeName` or `status.phase`
 * (a missing field reads as ''). The real API server allows only some paths per resource; this
 * one allows any. Throws on anything else (the server answers 400).
 */
export function parseFieldSelector(text: string | null): FieldSelector {
  if (text === null || text.trim() === '') return () => true;
  const tests: FieldSelector[] = [];
  for (const raw of text.split(',')) {
    const term = raw.trim();
    const match = /^([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)\s*(!=|==|=)\s*([^,]*)$/.exec(term);
    if (!match) throw new Error(`invalid field selector: '${term}'`);
    const [, path = '', op, value = ''] = match;
    const fields = path.split('.');
    const read = (object: ApiObject): string => {
      let at: unknown = object;
      for (const field of fields) at = typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[field] : undefined;
      return at === undefined || at === null ? '' : String(at);
    };
    tests.push(op === '!=' ? (o) => read(o) !== value : (o) => read(o) === value);
  }
  return (object) => tests.every((t) => t(object));
}

/** Objects, a global resourceVersion counter and the event history. */
export class ObjectStore {
  private readonly resources = new Map<string, ApiResource>();
  private readonly byKind = new Map<string, string>();
  private readonly objectsByResource = new Map<string, Map<string, ApiObject>>();
  private history: StoredEvent[] = [];
  private counter = 1;
  private uidCounter = 0;
  /** Watches from a resourceVersion below this get 410 Gone. */
  compactedRv = 0;

  constructor(resources: readonly ApiResource[], private readonly onEvent: (event: StoredEvent) => void) {
    for (const r of resources) this.serve(r);
  }

  /** The current global resourceVersion. */
  get rv(): number {
    return this.counter;
  }

  serve(resource: ApiResource): void {
    const key = resourceKey(resource.group, resource.version, resource.plural);
    this.resources.set(key, resource);
    this.byKind.set(`${apiVersionOf(resource)}|${resource.kind}`, key);
    if (!this.objectsByResource.has(key)) this.objectsByResource.set(key, new Map());
  }

  unserve(group: string, version: string, plural: string): void {
    const key = resourceKey(group, version, plural);
    const resource = this.resources.get(key);
    if (!resource) return;
    this.resources.delete(key);
    this.byKind.delete(`${apiVersionOf(resource)}|${resource.kind}`);
    this.objectsByResource.delete(key);
  }

  resource(key: string): ApiResource | undefined {
    return this.resources.get(key);
  }

  private keyOf(obj: Pick<ApiObject, 'apiVersion' | 'kind'>): string {
    const key = this.byKind.get(`${obj.apiVersion}|${obj.kind}`);
    if (key === undefined) throw new Error(`test API server: no resource serves apiVersion '${obj.apiVersion}' kind '${obj.kind}'; serve() it first`);
    return key;
  }

  /** Creates or replaces an object; returns the stored copy with its new resourceVersion. */
  apply(input: ApiObject): ApiObject {
    const key = this.keyOf(input);
    const objects = this.objectsByResource.get(key)!;
    const resource = this.resources.get(key)!;
    const previous = objects.get(objectKey(input));
    const rv = ++this.counter;
    const metadata: ApiObjectMeta = { ...structuredClone(input.metadata), resourceVersion: String(rv) };
    if (resource.namespaced === false) delete metadata.namespace;
    metadata.uid = previous?.metadata.uid ?? `uid-${++this.uidCounter}`;
    const stored: ApiObject = { ...structuredClone(input), metadata };
    objects.set(objectKey(stored), stored);
    this.record(previous ? { rv, key, type: 'MODIFIED', object: stored, previous } : { rv, key, type: 'ADDED', object: stored });
    return structuredClone(stored);
  }

  /** Deletes an object (only apiVersion, kind and metadata name/namespace matter). */
  delete(input: Pick<ApiObject, 'apiVersion' | 'kind'> & { metadata: Pick<ApiObjectMeta, 'name' | 'namespace'> }): boolean {
    const key = this.keyOf(input);
    const objects = this.objectsByResource.get(key)!;
    const id = `${input.metadata.namespace ?? ''}/${input.metadata.name}`;
    const previous = objects.get(id);
    if (!previous) return false;
    objects.delete(id);
    const rv = ++this.counter;
    // The API server sends the last state of a deleted object with the deletion's resourceVersion.
    const object: ApiObject = { ...previous, metadata: { ...previous.metadata, resourceVersion: String(rv) } };
    this.record({ rv, key, type: 'DELETED', object });
    return true;
  }

  private record(event: StoredEvent): void {
    this.history.push(event);
    this.onEvent(event);
  }

  /** Current objects of one resource (all when key is undefined), sorted by namespace/name. */
  list(key?: string, namespace?: string, selector: LabelSelector = () => true): ApiObject[] {
    const out: ApiObject[] = [];
    for (const [k, objects] of this.objectsByResource) {
      if (key !== undefined && k !== key) continue;
      for (const obj of objects.values()) {
        if (namespace !== undefined && obj.metadata.namespace !== namespace) continue;
        if (!selector(obj.metadata.labels)) continue;
        out.push(structuredClone(obj));
      }
    }
    return out.sort((a, b) => objectKey(a).localeCompare(objectKey(b)));
  }

  get(key: string, namespace: string | undefined, name: string): ApiObject | undefined {
    const obj = this.objectsByResource.get(key)?.get(`${namespace ?? ''}/${name}`);
    return obj ? structuredClone(obj) : undefined;
  }

  /** Events of one resource after `rv`, oldest first. */
  eventsSince(key: string, rv: number): StoredEvent[] {
    return this.history.filter((e) => e.key === key && e.rv > rv);
  }

  /** Forgets the history: watches from any resourceVersion below the current one get 410 Gone. */
  compact(): void {
    this.history = [];
    this.compactedRv = this.counter;
  }

  /**
   * Another numbering: every object is stamped anew from `base` up (no events: nobody watched
   * the restore), and the history is forgotten.
   */
  renumber(base: number): void {
    this.counter = base;
    for (const objects of this.objectsByResource.values()) {
      for (const obj of objects.values()) obj.metadata.resourceVersion = String(++this.counter);
    }
    this.history = [];
    this.compactedRv = this.counter;
  }

  /** Advances the global counter without touching objects (writes to resources nobody watches). */
  bump(by = 1): number {
    this.counter += by;
    return this.counter;
  }
}
