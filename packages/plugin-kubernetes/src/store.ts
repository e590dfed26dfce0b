/**
 * The cluster index: what the watches deliver, reduced to what DNS answers need, with the
 * lookups CoreDNS's dnsController indexes (plugin/kubernetes/controller.go): services and slices
 * by `<service>.<namespace>`, services by ClusterIP, slices by endpoint IP, pods by IP, and the
 * Namespace cache. Every change bumps `generation` (answers built before are stale); changes
 * CoreDNS counts as DNS-visible also move the SOA serial clocks (controller.go `updateModified`).
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
  readonly rv: string | undefined;
}

export interface Address {
  readonly ip: string;
  readonly hostname: string;
  /** `targetRef.name` when shorter than 64 characters, else ''. */
  readonly targetRefName: string;
  readonly nodeName: string;
  /** The endpoint's topology `zone`, lower case ('' when unset), for `zonal` names. */
  readonly zone: string;
}

/** One EndpointSlice, ready addresses only (CoreDNS object/endpoint.go). */
export interface Slice {
  readonly key: string;
  readonly namespace: string;
  /** `<service-name label>.<namespace>`; `.<namespace>` for slices without the label. */
  readonly index: string;
  /** The service-name label ('' when absent). */
  readonly service: string;
  readonly ports: readonly Port[];
  readonly addresses: readonly Address[];
  /** `multicluster.kubernetes.io/source-cluster` (multicluster slices only). */
  readonly cluster: string;
  readonly rv: string | undefined;
}

export interface Pod {
  readonly key: string;
  readonly namespace: string;
  readonly ip: string;
  readonly rv: string | undefined;
}

export interface ServiceImport {
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

function ports(list: unknown, sentinel: boolean): Port[] {
  const out = arr(list).map((p) => ({ name: str(p['name']), protocol: str(p['protocol']), port: typeof p['port'] === 'number' ? p['port'] : -1 }));
  return out.length === 0 && sentinel ? [{ name: '', protocol: '', port: -1 }] : out;
}

export function toService(item: KubeObject): Service {
  const spec = obj(item['spec']);
  const listed = Array.isArray(spec['clusterIPs']) ? (spec['clusterIPs'] as unknown[]).map(str) : [];
  const ips = listed.length > 0 ? listed : [str(spec['clusterIP'])];
  const name = item.metadata?.name ?? '';
  const namespace = item.metadata?.namespace ?? '';
  return {
    key: keyOf(item),
    name,
    namespace,
    index: `${name}.${namespace}`,
    type: str(spec['type']) || 'ClusterIP',
    clusterIPs: ips,
    externalName: str(spec['externalName']),
    ports: ports(spec['ports'], true),
    headless: ips[0] === 'None',
    rv: item.metadata?.resourceVersion,
  };
}

/** EndpointSlice → ready addresses (`conditions.ready` true or absent). */
export function toSlice(item: KubeObject, multicluster: boolean): Slice {
  const labels = item.metadata?.labels ?? {};
  const namespace = item.metadata?.namespace ?? '';
  const service = (multicluster ? labels[mcsServiceNameLabel] : labels[serviceNameLabel]) ?? '';
  const addresses: Address[] = [];
  for (const endpoint of arr(item['endpoints'])) {
    const ready = obj(endpoint['conditions'])['ready'];
    if (ready === false) continue;
    const targetRefName = str(obj(endpoint['targetRef'])['name']);
    for (const ip of Array.isArray(endpoint['addresses']) ? endpoint['addresses'] : []) {
      if (typeof ip !== 'string') continue;
      addresses.push({
        ip,
        hostname: str(endpoint['hostname']),
        targetRefName: targetRefName.length < 64 ? targetRefName : '',
        nodeName: str(endpoint['nodeName']),
        zone: str(endpoint['zone']).toLowerCase(),
      });
    }
  }
  return {
    key: keyOf(item),
    namespace,
    index: `${service}.${namespace}`,
    service,
    ports: ports(item['ports'], true),
    addresses,
    cluster: multicluster ? (labels[mcsSourceClusterLabel] ?? '') : '',
    rv: item.metadata?.resourceVersion,
  };
}

export function toPod(item: KubeObject): Pod {
  return { key: keyOf(item), namespace: item.metadata?.namespace ?? '', ip: str(obj(item['status'])['podIP']), rv: item.metadata?.resourceVersion };
}

export function toServiceImport(item: KubeObject): ServiceImport {
  const spec = obj(item['spec']);
  const name = item.metadata?.name ?? '';
  const namespace = item.metadata?.namespace ?? '';
  return {
    key: keyOf(item),
    name,
    namespace,
    index: `${name}.${namespace}`,
    headless: spec['type'] === 'Headless',
    ips: Array.isArray(spec['ips']) ? (spec['ips'] as unknown[]).map(str) : [],
    ports: ports(spec['ports'], false),
    rv: item.metadata?.resourceVersion,
  };
}

const samePorts = (a: readonly Port[], b: readonly Port[]): boolean =>
  a.length === b.length && a.every((p, i) => p.name === b[i]!.name && p.port === b[i]!.port && p.protocol === b[i]!.protocol);

const sameAddresses = (a: readonly Address[], b: readonly Address[], zones: boolean): boolean =>
  a.length === b.length && a.every((x, i) => x.ip === b[i]!.ip && x.hostname === b[i]!.hostname && (!zones || x.zone === b[i]!.zone));

/** Equal apart from the resourceVersion. */
function sameModel(a: { readonly rv: string | undefined }, b: { readonly rv: string | undefined }): boolean {
  return JSON.stringify({ ...a, rv: undefined }) === JSON.stringify({ ...b, rv: undefined });
}

/** What the SOA serial follows: the internal clock, or the multicluster one (CoreDNS `Modified`). */
export type Clock = 'internal' | 'multicluster';

/**
 * Objects of one resource by key, grouped by index and by IP. A group is an array, not a Set:
 * nearly every index and IP names one object (a service, its slice, an endpoint's address), and
 * a Set of one costs about 200 bytes of heap where a one-element array costs about 56; with 7 or 8
 * groups per service and its endpoints that was a third of the index (bench/memory.ts). Groups
 * stay small (the slices of one service, the services sharing an IP), so removal by scan is cheap.
 */
class Collection<T extends { readonly key: string; readonly rv: string | undefined }> {
  readonly byKey = new Map<string, T>();
  readonly byIndex = new Map<string, T[]>();
  readonly byIp = new Map<string, T[]>();

  constructor(
    private readonly indexOf: (item: T) => string | null,
    private readonly ipsOf: (item: T) => Iterable<string>,
  ) {}

  get(key: string): T | undefined {
    return this.byKey.get(key);
  }

  set(item: T): T | undefined {
    const old = this.byKey.get(item.key);
    if (old) this.unlink(old);
    this.byKey.set(item.key, item);
    const index = this.indexOf(item);
    if (index !== null) add(this.byIndex, index, item);
    for (const ip of this.ipsOf(item)) add(this.byIp, ip, item);
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
    const index = this.indexOf(item);
    if (index !== null) drop(this.byIndex, index, item);
    for (const ip of this.ipsOf(item)) drop(this.byIp, ip, item);
  }
}

/** Adds `item` to `key`'s group unless it is there (a slice may list one IP twice). */
function add<T>(map: Map<string, T[]>, key: string, item: T): void {
  const group = map.get(key);
  if (group === undefined) map.set(key, [item]);
  else if (!group.includes(item)) group.push(item);
}

function drop<T>(map: Map<string, T[]>, key: string, item: T): void {
  const group = map.get(key);
  if (group === undefined) return;
  const at = group.indexOf(item);
  if (at < 0) return;
  if (group.length === 1) map.delete(key);
  else group.splice(at, 1);
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
  /** `zonal`: endpoint zone changes move the serial too. */
  readonly zonal?: boolean;
  /** Unix seconds; tests inject their own. */
  readonly now?: () => number;
  /** Called for slice adds and updates (not deletes), for the programming-latency metric. */
  readonly onSlice?: (event: SliceEvent) => void;
}

const skippedPhases = new Set(['Succeeded', 'Failed', 'Unknown']);

export class ClusterStore {
  readonly services = new Collection<Service>(
    (s) => s.index,
    (s) => (s.headless || s.type === 'ExternalName' ? [] : s.clusterIPs.map(canonicalIp)),
  );
  readonly slices = new Collection<Slice>(
    (s) => s.index,
    (s) => (s.service === '' ? [] : s.addresses.map((a) => canonicalIp(a.ip))),
  );
  readonly pods = new Collection<Pod>(
    () => null,
    (p) => (p.ip === '' ? [] : [canonicalIp(p.ip)]),
  );
  readonly imports = new Collection<ServiceImport>(
    (s) => s.index,
    () => [],
  );
  readonly mcSlices = new Collection<Slice>(
    (s) => s.index,
    () => [],
  );
  readonly namespaces = new Set<string>();
  /** The Namespaces of a list under way (see `ObjectSink.part`). */
  private namespacesListed: Set<string> | undefined;
  /** Bumped on every change: cached answers older than this are stale. */
  generation = 0;
  /** Unix seconds of the last DNS-visible change (controller.go `modified`). */
  internal = 0;
  multicluster = 0;

  private readonly now: () => number;

  constructor(private readonly options: StoreOptions = {}) {
    this.now = options.now ?? (() => Math.floor(Date.now() / 1000));
  }

  serial(clock: Clock): number {
    return (clock === 'internal' ? this.internal : this.multicluster) >>> 0;
  }

  private touch(clock: Clock | null): void {
    this.generation++;
    if (clock === 'internal') this.internal = this.now();
    else if (clock === 'multicluster') this.multicluster = this.now();
  }

  /**
   * A sink over `collection`: `convert` makes the model (null = not kept, e.g. a terminating
   * pod), `differs` says whether an update moves the serial, `updateClock` which clock it moves.
   */
  private sink<T extends { readonly key: string; readonly rv: string | undefined }>(
    collection: Collection<T>,
    convert: (item: KubeObject) => T | null | 'skip',
    differs: (a: T, b: T) => boolean,
    updateClock: Clock,
    after?: (item: KubeObject, model: T) => void,
  ): ObjectSink {
    const upsert = (item: KubeObject): void => {
      const model = convert(item);
      if (model === 'skip') return;
      if (model === null) {
        if (collection.delete(keyOf(item))) this.touch('internal');
        return;
      }
      const old = collection.get(model.key);
      if (old && old.rv !== undefined && old.rv === model.rv) return;
      collection.set(model);
      after?.(item, model);
      // An update that leaves the model as it was (a slice's serving or terminating condition,
      // labels outside the selector, status fields) keeps the cached answers.
      if (old && sameModel(old, model)) return;
      this.touch(!old ? 'internal' : differs(old, model) ? updateClock : null);
    };
    // The keys of the list under way, from its first part on: what is not among them at its end goes.
    let listed: Set<string> | undefined;
    return {
      part: (items, first) => {
        if (first || listed === undefined) listed = new Set();
        for (const item of items) {
          listed.add(keyOf(item));
          upsert(item);
        }
      },
      replace: (items) => {
        const keep = listed ?? new Set<string>();
        listed = undefined;
        for (const item of items) keep.add(keyOf(item));
        for (const key of [...collection.byKey.keys()]) {
          if (!keep.has(key)) {
            collection.delete(key);
            this.touch('internal');
          }
        }
        for (const item of items) upsert(item);
      },
      upsert,
      remove: (item) => {
        if (collection.delete(keyOf(item))) this.touch('internal');
      },
    };
  }

  private selected(item: KubeObject): boolean {
    return this.options.labels?.matches(item.metadata?.labels) ?? true;
  }

  readonly serviceSink: ObjectSink = this.sink(
    this.services,
    (item) => (this.selected(item) ? toService(item) : null),
    (a, b) => a.externalName !== b.externalName || !samePorts(a.ports, b.ports),
    'internal',
  );

  readonly sliceSink: ObjectSink = this.sink(
    this.slices,
    (item) => (this.selected(item) ? toSlice(item, false) : null),
    (a, b) => !sameAddresses(a.addresses, b.addresses, this.options.zonal ?? false) || !samePorts(a.ports, b.ports),
    'internal',
    (item, slice) => this.options.onSlice?.({ slice, item, multicluster: false }),
  );

  readonly podSink: ObjectSink = this.sink(
    this.pods,
    (item) => {
      // Terminating pods keep their previous entry until deleted (CoreDNS #7131).
      if (item.metadata?.deletionTimestamp) return 'skip';
      if (!this.selected(item) || skippedPhases.has(str(obj(item['status'])['phase']))) return null;
      return toPod(item);
    },
    (a, b) => a.ip !== b.ip,
    'internal',
  );

  readonly serviceImportSink: ObjectSink = this.sink(
    this.imports,
    // CoreDNS applies namespace_labels to the ServiceImports' own labels (upstream quirk).
    (item) => (this.options.namespaceLabels?.matches(item.metadata?.labels) ?? true ? toServiceImport(item) : null),
    (a, b) => a.headless !== b.headless || !samePorts(a.ports, b.ports),
    'multicluster',
  );

  readonly mcSliceSink: ObjectSink = this.sink(
    this.mcSlices,
    (item) => (this.selected(item) && item.metadata?.labels?.[mcsServiceNameLabel] !== undefined ? toSlice(item, true) : null),
    (a, b) => !sameAddresses(a.addresses, b.addresses, false) || !samePorts(a.ports, b.ports) || a.cluster !== b.cluster,
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
  servicesByIp(ip: string): Iterable<Service> {
    return this.services.byIp.get(canonicalIp(ip)) ?? [];
  }
}

/** IPv6 text as Go's net.IP.String() prints it (core's `formatIp`), so reverse lookups find slice addresses. */
export function canonicalIp(ip: string): string {
  if (!ip.includes(':')) return ip;
  const bytes = parseIp(ip);
  return bytes === null ? ip : formatIp(bytes);
}
