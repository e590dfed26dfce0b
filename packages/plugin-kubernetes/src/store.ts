/**
 * The cluster index: what the watches deliver, reduced to what DNS answers need, with the
 * lookups CoreDNS's dnsController indexes (plugin/kubernetes/controller.go): services and slices
 * by `<service>.<namespace>`, services by ClusterIP, slices by endpoint IP, pods by IP, and the
 * Namespace cache. Every change bumps `generation` (answers built before are stale); changes
 * CoreDNS counts as DNS-visible also move the SOA serial clocks (controller.go `updateModified`).
 *
 * Memory is what bounds a cluster DNS pod (kubeadm gives it 170Mi), and this index is most of a
 * large cluster's: a service with its slice of 5 endpoints costs about 1.3 KB of heap here
 * (docs/performance.md, "Memory: the cluster-DNS job"). So a model keeps only what answers
 * read: a slice's addresses are parallel arrays (IPs, and hostnames, pod names and zones only
 * when some endpoint has one and an option reads it), equal port lists and namespace names are
 * shared, a service is keyed by the `<name>.<namespace>` it is looked up by, and a lookup group
 * of one object (nearly all of them) is that object, not an array.
 */
import { mcsServiceNameLabel, mcsSourceClusterLabel, serviceNameLabel } from '@foghorn/kube';
import type { LabelSelector } from './selector.js';
import { formatIp, parseIp } from '@foghorn/core/wire';

/** Minimal shape of a Kubernetes object as the sources deliver it (parsed JSON/YAML). */
export interface KubeObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly resourceVersion?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly deletionTimestamp?: string;
  };
  readonly [field: string]: unknown;
}

/** Receives the state of one watched resource, synchronously and in event order (@foghorn/kube's `ObjectSink`). */
export interface ObjectSink {
  /** The complete current list (initial list, or a relist); after parts, its last page. */
  replace(items: readonly KubeObject[]): void;
  /** A list's pages but the last, as they arrive: applied at once; what no page lists goes at `replace`. */
  part(items: readonly KubeObject[], first: boolean): void;
  upsert(item: KubeObject): void;
  remove(item: KubeObject): void;
}

export interface Port {
  readonly name: string;
  readonly protocol: string;
  /** -1: the sentinel of a portless service or slice (CoreDNS object/service.go). */
  readonly port: number;
}

export interface Service {
  /** The same as `index`: a service is stored and found by `<name>.<namespace>`. */
  readonly key: string;
  readonly name: string;
  readonly namespace: string;
  /** `<name>.<namespace>`. */
  readonly index: string;
  readonly type: string;
  readonly clusterIPs: readonly string[];
  readonly externalName: string;
  readonly ports: readonly Port[];
  readonly headless: boolean;
  /**
   * `spec.externalIPs`, then each load balancer ingress's IP or else hostname, for *k8s_external*
   * (CoreDNS object/service.go `ExternalIPs`); one shared empty list for the many services without.
   */
  readonly external: readonly string[];
  readonly rv: string | undefined;
}

/** One EndpointSlice, ready addresses only (CoreDNS object/endpoint.go). */
export interface Slice {
  readonly key: string;
  readonly namespace: string;
  /** `<service-name label>.<namespace>`; `.<namespace>` for slices without the label. */
  readonly index: string;
  readonly ports: readonly Port[];
  /** The ready addresses, in the slice's order. */
  readonly ips: readonly string[];
  /** The endpoint's `hostname` per address; null when no endpoint has one. */
  readonly hostnames: readonly string[] | null;
  /**
   * `targetRef.name` per address when shorter than 64 characters, else ''; null when none has
   * one or `endpoint_pod_names` is off (nothing reads it then).
   */
  readonly podNames: readonly string[] | null;
  /** The endpoint's topology `zone` per address, lower case ('' when unset); null when none has one or `zonal` is off. */
  readonly zones: readonly string[] | null;
  /** `multicluster.kubernetes.io/source-cluster` (multicluster slices only). */
  readonly cluster: string;
  readonly rv: string | undefined;
}

export interface Pod {
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  readonly ip: string;
  /** Kept only for the `kubernetes/client-label/*` metadata ({@link StoreOptions.podLabels}). */
  readonly labels?: Readonly<Record<string, string>>;
  readonly rv: string | undefined;
}

export interface ServiceImport {
  /** The same as `index`, as for a {@link Service}. */
  readonly key: string;
  readonly name: string;
  readonly namespace: string;
  readonly index: string;
  readonly headless: boolean;
  readonly ips: readonly string[];
  readonly ports: readonly Port[];
  readonly rv: string | undefined;
}

export const triggerTimeAnnotation = 'endpoints.kubernetes.io/last-change-trigger-time';

type Obj = Record<string, unknown>;
const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const arr = (value: unknown): Obj[] => (Array.isArray(value) ? (value.filter((v) => v !== null && typeof v === 'object') as Obj[]) : []);
const obj = (value: unknown): Obj => (value !== null && typeof value === 'object' ? (value as Obj) : {});

function keyOf(item: KubeObject): string {
  return `${item.metadata?.namespace ?? ''}/${item.metadata?.name ?? ''}`;
}

/** A service's (or ServiceImport's) key: its index, `<name>.<namespace>`. */
function indexKeyOf(item: KubeObject): string {
  return `${item.metadata?.name ?? ''}.${item.metadata?.namespace ?? ''}`;
}

/**
 * Strings and port lists that many models hold equal: one copy each. JSON gives every object its
 * own copies of `kube-system` and of `[{ name: 'http', protocol: 'TCP', port: 80 }]`; most
 * namespaces hold many services, and most services share a handful of port lists. Never pruned:
 * what it holds is bounded by the distinct namespaces and port lists a cluster ever had.
 */
export class Interner {
  private readonly strings = new Map<string, string>();
  private readonly portLists = new Map<string, readonly Port[]>();

  string(value: string): string {
    const known = this.strings.get(value);
    if (known !== undefined) return known;
    this.strings.set(value, value);
    return value;
  }

  /** A list's ports, or the `-1` sentinel of a portless service or slice (CoreDNS object/service.go) with `sentinel`. */
  ports(list: unknown, sentinel: boolean): readonly Port[] {
    const out = arr(list).map((p) => ({ name: str(p['name']), protocol: str(p['protocol']), port: typeof p['port'] === 'number' ? p['port'] : -1 }));
    if (out.length === 0 && sentinel) out.push({ name: '', protocol: '', port: -1 });
    const key = JSON.stringify(out);
    const known = this.portLists.get(key);
    if (known !== undefined) return known;
    const frozen = Object.freeze(out.map((p) => Object.freeze({ ...p, name: this.string(p.name), protocol: this.string(p.protocol) })));
    this.portLists.set(key, frozen);
    return frozen;
  }
}

const noExternal: readonly string[] = Object.freeze([]);

/** object/service.go: the external IPs, then the load balancer ingresses (an IP, else the hostname). */
function externalOf(item: KubeObject): readonly string[] {
  const out = (Array.isArray(obj(item['spec'])['externalIPs']) ? (obj(item['spec'])['externalIPs'] as unknown[]) : []).map(str);
  for (const ingress of arr(obj(obj(item['status'])['loadBalancer'])['ingress'])) out.push(str(ingress['ip']) || str(ingress['hostname']));
  return out.length === 0 ? noExternal : out;
}

export function toService(item: KubeObject, interner: Interner = new Interner()): Service {
  const spec = obj(item['spec']);
  const listed = Array.isArray(spec['clusterIPs']) ? (spec['clusterIPs'] as unknown[]).map(str) : [];
  const ips = listed.length > 0 ? listed : [str(spec['clusterIP'])];
  const name = item.metadata?.name ?? '';
  const namespace = interner.string(item.metadata?.namespace ?? '');
  const index = `${name}.${namespace}`;
  return {
    key: index,
    name,
    namespace,
    index,
    type: interner.string(str(spec['type']) || 'ClusterIP'),
    clusterIPs: ips,
    externalName: str(spec['externalName']),
    ports: interner.ports(spec['ports'], true),
    headless: ips[0] === 'None',
    external: externalOf(item),
    rv: item.metadata?.resourceVersion,
  };
}

/** What of an endpoint a slice keeps beyond its IPs: only what an enabled option reads. */
export interface SliceReading {
  /** `endpoint_pod_names`: keep each endpoint's pod name. */
  readonly podNames?: boolean;
  /** `zonal`: keep each endpoint's topology zone. */
  readonly zones?: boolean;
}

/** EndpointSlice → ready addresses (`conditions.ready` true or absent). */
export function toSlice(item: KubeObject, multicluster: boolean, reading: SliceReading = {}, interner: Interner = new Interner()): Slice {
  const labels = item.metadata?.labels ?? {};
  const namespace = interner.string(item.metadata?.namespace ?? '');
  const service = (multicluster ? labels[mcsServiceNameLabel] : labels[serviceNameLabel]) ?? '';
  const ips: string[] = [];
  let hostnames: string[] | null = null;
  let podNames: string[] | null = null;
  let zones: string[] | null = null;
  for (const endpoint of arr(item['endpoints'])) {
    const ready = obj(endpoint['conditions'])['ready'];
    if (ready === false) continue;
    const hostname = str(endpoint['hostname']);
    const targetRefName = reading.podNames ? str(obj(endpoint['targetRef'])['name']) : '';
    const podName = targetRefName.length < 64 ? targetRefName : '';
    const zone = reading.zones ? str(endpoint['zone']).toLowerCase() : '';
    for (const ip of Array.isArray(endpoint['addresses']) ? endpoint['addresses'] : []) {
      if (typeof ip !== 'string') continue;
      // A column starts at the first endpoint that has a value, '' for the ones before it.
      if (hostname !== '') hostnames ??= ips.map(() => '');
      if (podName !== '') podNames ??= ips.map(() => '');
      if (zone !== '') zones ??= ips.map(() => '');
      ips.push(ip);
      hostnames?.push(hostname);
      podNames?.push(podName);
      zones?.push(interner.string(zone));
    }
  }
  return {
    key: keyOf(item),
    namespace,
    index: `${service}.${namespace}`,
    ports: interner.ports(item['ports'], true),
    ips,
    hostnames,
    podNames,
    zones,
    cluster: multicluster ? interner.string(labels[mcsSourceClusterLabel] ?? '') : '',
    rv: item.metadata?.resourceVersion,
  };
}

export function toPod(item: KubeObject, interner: Interner = new Interner(), keepLabels = false): Pod {
  const metadata = item.metadata;
  const pod = { key: keyOf(item), namespace: interner.string(metadata?.namespace ?? ''), name: metadata?.name ?? '', ip: str(obj(item['status'])['podIP']), rv: metadata?.resourceVersion };
  return keepLabels ? { ...pod, labels: { ...metadata?.labels } } : pod;
}

export function toServiceImport(item: KubeObject, interner: Interner = new Interner()): ServiceImport {
  const spec = obj(item['spec']);
  const name = item.metadata?.name ?? '';
  const namespace = interner.string(item.metadata?.namespace ?? '');
  const index = `${name}.${namespace}`;
  return {
    key: index,
    name,
    namespace,
    index,
    headless: spec['type'] === 'Headless',
    ips: Array.isArray(spec['ips']) ? (spec['ips'] as unknown[]).map(str) : [],
    ports: interner.ports(spec['ports'], false),
    rv: item.metadata?.resourceVersion,
  };
}

const samePorts = (a: readonly Port[], b: readonly Port[]): boolean =>
  a.length === b.length && a.every((p, i) => p.name === b[i]!.name && p.port === b[i]!.port && p.protocol === b[i]!.protocol);

const sameColumn = (a: readonly string[] | null, b: readonly string[] | null, length: number): boolean => {
  for (let i = 0; i < length; i++) if ((a?.[i] ?? '') !== (b?.[i] ?? '')) return false;
  return true;
};

const sameAddresses = (a: Slice, b: Slice, zones: boolean): boolean =>
  a.ips.length === b.ips.length && a.ips.every((ip, i) => ip === b.ips[i]) && sameColumn(a.hostnames, b.hostnames, a.ips.length) && (!zones || sameColumn(a.zones, b.zones, a.ips.length));

/** Equal apart from the resourceVersion. */
function sameModel(a: { readonly rv: string | undefined }, b: { readonly rv: string | undefined }): boolean {
  return JSON.stringify({ ...a, rv: undefined }) === JSON.stringify({ ...b, rv: undefined });
}

/** What the SOA serial follows: the internal clock, or the multicluster one (CoreDNS `Modified`). */
export type Clock = 'internal' | 'multicluster' | 'external';

/**
 * Objects of one resource by key, grouped by index and by IP. Nearly every index and IP names one
 * object (a service, its slice, an endpoint's address), so a group of one is that object, and
 * only a larger one is an array (a Set of one cost about 200 bytes of heap, a one-element array
 * about 56; with 7 or 8 groups per service and its endpoints that was a third of the index).
 * Groups stay small (the slices of one service, the services sharing an IP), so removal by scan
 * is cheap. With `indexIsKey` the objects are keyed by their index, which names one, and the
 * index needs no map of its own.
 */
class Collection<T extends { readonly key: string; readonly rv: string | undefined }> {
  readonly byKey = new Map<string, T>();
  readonly byIndex = new Map<string, T | T[]>();
  readonly byIp = new Map<string, T | T[]>();

  /** Objects by a second kind of address (services by external IP); empty unless `otherIpsOf` gives some. */
  readonly byOtherIp = new Map<string, T | T[]>();

  constructor(
    private readonly indexOf: ((item: T) => string) | null,
    private readonly ipsOf: (item: T) => Iterable<string>,
    private readonly otherIpsOf: (item: T) => Iterable<string> = () => none,
  ) {}

  get(key: string): T | undefined {
    return this.byKey.get(key);
  }

  /** The objects of `index`. */
  inIndex(index: string): readonly T[] {
    return this.indexOf === null ? single(this.byKey.get(index)) : group(this.byIndex.get(index));
  }

  /** The objects with address `ip` (canonical, see {@link canonicalIp}). */
  atIp(ip: string): readonly T[] {
    return group(this.byIp.get(ip));
  }

  set(item: T): T | undefined {
    const old = this.byKey.get(item.key);
    if (old) this.unlink(old);
    this.byKey.set(item.key, item);
    if (this.indexOf !== null) add(this.byIndex, this.indexOf(item), item);
    for (const ip of this.ipsOf(item)) add(this.byIp, ip, item);
    for (const ip of this.otherIpsOf(item)) add(this.byOtherIp, ip, item);
    return old;
  }

  delete(key: string): T | undefined {
    const old = this.byKey.get(key);
    if (old) {
      this.byKey.delete(key);
      this.unlink(old);
    }
    return old;
  }

  private unlink(item: T): void {
    if (this.indexOf !== null) drop(this.byIndex, this.indexOf(item), item);
    for (const ip of this.ipsOf(item)) drop(this.byIp, ip, item);
    for (const ip of this.otherIpsOf(item)) drop(this.byOtherIp, ip, item);
  }
}

const none: readonly never[] = [];

function single<T>(item: T | undefined): readonly T[] {
  return item === undefined ? none : [item];
}

function group<T extends object>(entry: T | T[] | undefined): readonly T[] {
  return entry === undefined ? none : Array.isArray(entry) ? entry : [entry];
}

/** Adds `item` to `key`'s group unless it is there (a slice may list one IP twice). */
function add<T extends object>(map: Map<string, T | T[]>, key: string, item: T): void {
  const entry = map.get(key);
  if (entry === undefined) map.set(key, item);
  else if (Array.isArray(entry)) {
    if (!entry.includes(item)) entry.push(item);
  } else if (entry !== item) map.set(key, [entry, item]);
}

function drop<T extends object>(map: Map<string, T | T[]>, key: string, item: T): void {
  const entry = map.get(key);
  if (entry === undefined) return;
  if (!Array.isArray(entry)) {
    if (entry === item) map.delete(key);
    return;
  }
  const at = entry.indexOf(item);
  if (at < 0) return;
  entry.splice(at, 1);
  if (entry.length === 1) map.set(key, entry[0]!);
}

/** A slice event the programming-latency metric looks at. */
export interface SliceEvent {
  readonly slice: Slice;
  readonly item: KubeObject;
  readonly multicluster: boolean;
}

export interface StoreOptions {
  /** Server-side `labels` selector, applied again here (manifests have no server). */
  readonly labels?: LabelSelector | null;
  readonly namespaceLabels?: LabelSelector | null;
  /** `zonal`: slices keep their endpoints' zones, and zone changes move the serial too. */
  readonly zonal?: boolean;
  /** `endpoint_pod_names`: slices keep their endpoints' pod names. */
  readonly podNames?: boolean;
  /** Unix seconds; tests inject their own. */
  readonly now?: () => number;
  /** Called for slice adds and updates (not deletes), for the programming-latency metric. */
  readonly onSlice?: (event: SliceEvent) => void;
  /**
   * Keep each pod's labels, for the `kubernetes/client-label/*` metadata: only when the block
   * has the *metadata* plugin, so a cluster DNS without it keeps no label of any pod.
   */
  readonly podLabels?: boolean;
}

const skippedPhases = new Set(['Succeeded', 'Failed', 'Unknown']);

export class ClusterStore {
  readonly services = new Collection<Service>(
    null,
    (s) => (s.headless || s.type === 'ExternalName' ? [] : s.clusterIPs.map(canonicalIp)),
    (s) => s.external.map(canonicalIp),
  );
  readonly slices = new Collection<Slice>(
    (s) => s.index,
    // A slice without the service-name label (index `.<namespace>`) answers no reverse lookup.
    (s) => (s.index.startsWith('.') ? [] : s.ips.map(canonicalIp)),
  );
  readonly pods = new Collection<Pod>(null, (p) => (p.ip === '' ? [] : [canonicalIp(p.ip)]));
  readonly imports = new Collection<ServiceImport>(null, () => []);
  readonly mcSlices = new Collection<Slice>(
    (s) => s.index,
    () => [],
  );
  private readonly interner = new Interner();
  private readonly reading: SliceReading;
  readonly namespaces = new Set<string>();
  /** The Namespaces of a list under way (see `ObjectSink.part`). */
  private namespacesListed: Set<string> | undefined;
  /** Bumped on every change: cached answers older than this are stale. */
  generation = 0;
  /** Unix seconds of the last DNS-visible change (controller.go `modified`). */
  internal = 0;
  multicluster = 0;
  /** Unix seconds of the last change to external records (controller.go `extModified`). */
  external = 0;

  private readonly now: () => number;

  constructor(private readonly options: StoreOptions = {}) {
    this.now = options.now ?? (() => Math.floor(Date.now() / 1000));
    this.reading = { podNames: options.podNames ?? false, zones: options.zonal ?? false };
  }

  serial(clock: Clock): number {
    return (clock === 'internal' ? this.internal : clock === 'external' ? this.external : this.multicluster) >>> 0;
  }

  private touch(clock: Clock | null): void {
    this.generation++;
    if (clock === 'internal') this.internal = this.now();
    else if (clock === 'multicluster') this.multicluster = this.now();
  }

  /**
   * controller.go `serviceModified`, external half: an update that changes a service's external
   * addresses, or any service's ports (CoreDNS counts those for both zones). Adds and deletes move only the internal clock
   * there (`dnsControl.Add`/`Delete`), so the serial stays 0 until the first such update.
   */
  private externalChange(old: Service | undefined, model: Service | undefined): void {
    if (old === undefined || model === undefined) return;
    const before = old.external;
    const after = model.external;
    if (before.length !== after.length || before.some((ip, i) => ip !== after[i])) this.external = this.now();
    else if (!samePorts(old.ports, model.ports)) this.external = this.now();
  }

  /**
   * A sink over `collection`: `keyFor` gives an object's key there, `convert` makes the model
   * (null = not kept, e.g. a pod that finished; 'skip' = keep what is there, a terminating pod),
   * `differs` says whether an update moves the serial, `updateClock` which clock it moves.
   */
  private sink<T extends { readonly key: string; readonly rv: string | undefined }>(
    collection: Collection<T>,
    keyFor: (item: KubeObject) => string,
    convert: (item: KubeObject) => T | null | 'skip',
    differs: (a: T, b: T) => boolean,
    updateClock: Clock,
    after?: (item: KubeObject, model: T) => void,
    /** Told every change to the collection: an add (no `old`), an update, a removal (no `model`). */
    changed?: (old: T | undefined, model: T | undefined) => void,
  ): ObjectSink {
    const remove = (key: string): void => {
      const old = collection.delete(key);
      if (old === undefined) return;
      this.touch('internal');
      changed?.(old, undefined);
    };
    /** Takes `item` in; returns the key of the model kept for it, if any. */
    const upsert = (item: KubeObject): string | undefined => {
      const model = convert(item);
      if (model === 'skip') return collection.get(keyFor(item))?.key;
      if (model === null) {
        remove(keyFor(item));
        return undefined;
      }
      const old = collection.get(model.key);
      if (old && old.rv !== undefined && old.rv === model.rv) return old.key;
      collection.set(model);
      after?.(item, model);
      changed?.(old, model);
      // An update that leaves the model as it was (a slice's serving or terminating condition,
      // labels outside the selector, status fields) keeps the cached answers.
      if (old && sameModel(old, model)) return model.key;
      this.touch(!old ? 'internal' : differs(old, model) ? updateClock : null);
      return model.key;
    };
    // The keys kept from the list under way, from its first part on (the models' own strings):
    // what is not among them at its end goes.
    let listed: Set<string> | undefined;
    const take = (items: readonly KubeObject[], into: Set<string>): void => {
      for (const item of items) {
        const key = upsert(item);
        if (key !== undefined) into.add(key);
      }
    };
    return {
      part: (items, first) => {
        if (first || listed === undefined) listed = new Set();
        take(items, listed);
      },
      replace: (items) => {
        const keep = listed ?? new Set<string>();
        listed = undefined;
        take(items, keep);
        for (const key of [...collection.byKey.keys()]) if (!keep.has(key)) remove(key);
      },
      upsert: (item) => void upsert(item),
      remove: (item) => remove(keyFor(item)),
    };
  }

  private selected(item: KubeObject): boolean {
    return this.options.labels?.matches(item.metadata?.labels) ?? true;
  }

  readonly serviceSink: ObjectSink = this.sink(
    this.services,
    indexKeyOf,
    (item) => (this.selected(item) ? toService(item, this.interner) : null),
    (a, b) => a.externalName !== b.externalName || !samePorts(a.ports, b.ports),
    'internal',
    undefined,
    (old, model) => this.externalChange(old, model),
  );

  readonly sliceSink: ObjectSink = this.sink(
    this.slices,
    keyOf,
    (item) => (this.selected(item) ? toSlice(item, false, this.reading, this.interner) : null),
    (a, b) => !sameAddresses(a, b, this.options.zonal ?? false) || !samePorts(a.ports, b.ports),
    'internal',
    (item, slice) => this.options.onSlice?.({ slice, item, multicluster: false }),
  );

  readonly podSink: ObjectSink = this.sink(
    this.pods,
    keyOf,
    (item) => {
      // Terminating pods keep their previous entry until deleted (CoreDNS #7131).
      if (item.metadata?.deletionTimestamp) return 'skip';
      if (!this.selected(item) || skippedPhases.has(str(obj(item['status'])['phase']))) return null;
      return toPod(item, this.interner, this.options.podLabels);
    },
    (a, b) => a.ip !== b.ip,
    'internal',
  );

  readonly serviceImportSink: ObjectSink = this.sink(
    this.imports,
    indexKeyOf,
    // CoreDNS applies namespace_labels to the ServiceImports' own labels (upstream quirk).
    (item) => (this.options.namespaceLabels?.matches(item.metadata?.labels) ?? true ? toServiceImport(item, this.interner) : null),
    (a, b) => a.headless !== b.headless || !samePorts(a.ports, b.ports),
    'multicluster',
  );

  readonly mcSliceSink: ObjectSink = this.sink(
    this.mcSlices,
    keyOf,
    (item) => (this.selected(item) && item.metadata?.labels?.[mcsServiceNameLabel] !== undefined ? toSlice(item, true, this.reading, this.interner) : null),
    (a, b) => !sameAddresses(a, b, false) || !samePorts(a.ports, b.ports) || a.cluster !== b.cluster,
    'multicluster',
    (item, slice) => this.options.onSlice?.({ slice, item, multicluster: true }),
  );

  /** Namespace events move no clock (CoreDNS's namespace watch has no handlers). */
  readonly namespaceSink: ObjectSink = {
    part: (items, first) => {
      if (first || this.namespacesListed === undefined) this.namespacesListed = new Set();
      for (const item of items) {
        this.namespacesListed.add(item.metadata?.name ?? '');
        this.namespaceSink.upsert(item);
      }
    },
    replace: (items) => {
      const listed = this.namespacesListed;
      this.namespacesListed = undefined;
      if (listed === undefined) this.namespaces.clear();
      else for (const name of [...this.namespaces]) if (!listed.has(name)) this.namespaces.delete(name);
      for (const item of items) this.namespaceSink.upsert(item);
      this.generation++;
    },
    upsert: (item) => {
      const name = item.metadata?.name ?? '';
      const keep = this.options.namespaceLabels?.matches(item.metadata?.labels) ?? true;
      if (keep === this.namespaces.has(name)) return;
      if (keep) this.namespaces.add(name);
      else this.namespaces.delete(name);
      this.generation++;
    },
    remove: (item) => {
      if (this.namespaces.delete(item.metadata?.name ?? '')) this.generation++;
    },
  };

  /** Services whose ClusterIPs include `ip`. */
  servicesByIp(ip: string): readonly Service[] {
    return this.services.atIp(canonicalIp(ip));
  }

  /** Services with `ip` among their external addresses (controller.go `SvcExtIndexReverse`). */
  servicesByExternalIp(ip: string): readonly Service[] {
    return group(this.services.byOtherIp.get(canonicalIp(ip)));
  }
}

/** IPv6 text as Go's net.IP.String() prints it (core's `formatIp`), so reverse lookups find slice addresses. */
export function canonicalIp(ip: string): string {
  if (!ip.includes(':')) return ip;
  const bytes = parseIp(ip);
  return bytes === null ? ip : formatIp(bytes);
}
