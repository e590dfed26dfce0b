/**
 * The service model (docs/compatibility.md, "Inputs") and how ServiceImport, EndpointSlice, Gateway and Submariner
 * objects change it (docs/compatibility.md, "Inputs" and "Cluster selection"). Both sources (the Kubernetes watch and the manifests
 * directory) feed the same sinks, so every ingest rule lives here once. The store knows nothing
 * about DNS: it tells its listeners which services changed, and the answer table drops what it
 * cached for those.
 *
 * Memory: objects are reduced to what answers need as they arrive (a slice keeps its ports,
 * endpoint addresses, host names and readiness; a ServiceImport its type, IPs and ports), and the
 * raw object is dropped whenever it has a resourceVersion (every object from the API server), so
 * the store holds a few hundred bytes per slice rather than the parsed JSON. Strings repeated
 * across objects (cluster ids, port lists) are shared.
 */
import { isIP } from 'node:net';
import { mcsServiceNameLabel, mcsSourceClusterLabel } from '@foghorn/kube';
import type { KubeObject, ObjectSink } from '@foghorn/kube';
import { dashedHostname, isPermittedAddress } from './addresses.js';
import { SmoothWeightedRoundRobin } from './swrr.js';

/** Label the agent puts on every slice it writes; the EndpointSlice watch selects on it. */
export const managedBySelector = 'endpointslice.kubernetes.io/managed-by=lighthouse-agent.submariner.io';
/** Lighthouse's own label: the namespace an exported Service lives in, in its cluster. */
export const labelSourceNamespace = 'lighthouse.submariner.io/sourceNamespace';
const annotationPublishNotReady = 'lighthouse.submariner.io/publish-not-ready-addresses';
const annotationUseClustersetIp = 'lighthouse.submariner.io/use-clusterset-ip';

export type Family = 'v4' | 'v6';
export type ServiceType = 'ClusterSetIP' | 'Headless';

/** A service port as the slices and ServiceImports carry it (missing fields are empty/0). */
export interface Port {
  readonly name: string;
  readonly protocol: string;
  readonly port: number;
  readonly appProtocol: string;
}

/** One address a cluster serves for a service (docs/compatibility.md, "Inputs" DNSRecord). */
export interface DnsRecord {
  readonly ip: string;
  readonly ports: readonly Port[];
  /** Endpoint host name, or the dashed address; empty for ClusterSetIP records. */
  readonly hostname: string;
  readonly cluster: string;
}

/** What one cluster exports for a service in one IP family. */
export interface ClusterData {
  readonly records: readonly DnsRecord[];
  /** ClusterSetIP: the slice's first endpoint is ready (or says nothing). Always true for headless. */
  readonly healthy: boolean;
}

/**
 * A ClusterSetIP cluster: one record (the service IP), which is its own ClusterData, so the
 * common case costs one small object rather than an object, an array and a record.
 */
class ServiceIpCluster implements ClusterData, DnsRecord {
  constructor(
    readonly ip: string,
    readonly ports: readonly Port[],
    readonly cluster: string,
    readonly healthy: boolean,
  ) {}

  get hostname(): string {
    return '';
  }

  /** Allocates: read when an answer is built, never per query. */
  get records(): readonly DnsRecord[] {
    return [this];
  }
}

/** A headless cluster: every served endpoint of its slices. */
interface HeadlessCluster extends ClusterData {
  readonly records: readonly DnsRecord[];
}

/** The balancer and merged ports of a family; both are only read when an answer is built. */
interface Balancing {
  readonly balancer: SmoothWeightedRoundRobin<string>;
  readonly mergedPorts: readonly Port[];
}

const noBalancing: Balancing = { balancer: new SmoothWeightedRoundRobin<string>(), mergedPorts: [] };

/** Per-family state of a service (Lighthouse's dual-stack line keeps IPv4 and IPv6 apart). */
export class FamilyData {
  /** Clusters in the order they first exported; the balancer follows this order. */
  readonly clusters = new Map<string, ClusterData>();
  /**
   * Undefined = "as a reset would make it from the clusters now": created on first use, so a
   * service nobody asks for holds no balancer. Every change to `clusters` is either followed by
   * {@link reset} or preceded by {@link settle}, which keeps that meaning exact.
   */
  private balancing: Balancing | undefined;

  /** ClusterSetIP: the ports every cluster exports identically (docs/compatibility.md, "Answers"). */
  get mergedPorts(): readonly Port[] {
    return this.settle().mergedPorts;
  }

  /** ClusterSetIP: replaced (reset) after every EndpointSlice change of the service (docs/compatibility.md, "Cluster selection"). */
  get balancer(): SmoothWeightedRoundRobin<string> {
    return this.settle().balancer;
  }

  /** docs/compatibility.md, "Cluster selection": merged ports and a fresh balancer in cluster order, from the clusters as they are now. */
  reset(): void {
    this.balancing = undefined;
  }

  /** Fixes the balancing state before `clusters` changes without a reset. */
  settle(): Balancing {
    if (this.balancing !== undefined) return this.balancing;
    if (this.clusters.size === 0) return (this.balancing = noBalancing);
    let merged: Port[] | undefined;
    for (const cluster of this.clusters.values()) {
      const ports = cluster.records[0]?.ports ?? [];
      merged = merged === undefined ? [...ports] : merged.filter((p) => ports.some((q) => samePort(p, q)));
    }
    const balancer = new SmoothWeightedRoundRobin<string>();
    for (const cluster of this.clusters.keys()) balancer.add(cluster, 1);
    return (this.balancing = { balancer, mergedPorts: merged === undefined ? [] : exact(merged) });
  }
}

const emptyFamily = new FamilyData();

/** One `namespace/name` service and everything known about it. */
export class Service {
  type: ServiceType = 'ClusterSetIP';
  /** `spec.ips`: clusterset VIPs. */
  ips: readonly string[] = [];
  /** `spec.ports`: the agent's merged ports, used with clusterset IPs. */
  ports: readonly Port[] = [];
  /** A ServiceImport exists; when false the entry lives on only while cluster data remains. */
  exported = false;
  /** `use-clusterset-ip: "true"`: answer with the clusterset IP or not at all (docs/compatibility.md, "Inputs"). */
  clustersetIpWanted = false;
  readonly v4 = new FamilyData();
  /** Most services are IPv4 only: the IPv6 state is created on its first slice. */
  private v6State: FamilyData | undefined;

  constructor(
    readonly namespace: string,
    readonly name: string,
  ) {}

  /** The IPv6 state, or a shared empty one (never written) until an IPv6 slice arrives. */
  get v6(): FamilyData {
    return this.v6State ?? emptyFamily;
  }

  /** The family's state for writing (creates the IPv6 state). */
  family(family: Family): FamilyData {
    if (family === 'v4') return this.v4;
    return (this.v6State ??= new FamilyData());
  }

  get hasClusterData(): boolean {
    return this.v4.clusters.size > 0 || this.v6.clusters.size > 0;
  }
}

/** What changed in one batch: service keys, or everything (connectivity, local cluster id). */
export interface StoreChange {
  readonly all: boolean;
  readonly services: ReadonlySet<string>;
}

export type StoreListener = (change: StoreChange) => void;

/** Resource names used in metrics and logs. */
export type ResourceName = 'serviceimports' | 'endpointslices' | 'gateways' | 'submariners';

/**
 * What decides whether a new version of an object changes anything: its resourceVersion, or
 * (manifests, which have none) the object itself, compared by content. Only the latter keeps a
 * raw object alive, and the manifests source holds those objects anyway.
 */
type Stamp = number | string | KubeObject;

/** An endpoint as answers use it: addresses already filtered to the servable ones (docs/compatibility.md, "Inputs"). */
interface Endpoint {
  readonly addresses: readonly string[];
  /** The endpoint's first address is a servable string (ClusterSetIP uses only that one). */
  readonly firstServable: boolean;
  readonly hostname: string;
  /** `conditions.ready` is false (absent or anything else counts as ready). */
  readonly notReady: boolean;
}

/** The slices of one service key, in the order they first arrived. */
interface SliceGroup {
  readonly key: string;
  /** Replaced, never grown in place: a pushed-to array keeps room for 16 more. */
  slices: readonly SliceInfo[];
}

interface SliceInfo {
  readonly id: string;
  readonly group: SliceGroup;
  readonly cluster: string;
  readonly family: Family;
  readonly stamp: Stamp;
  readonly publishNotReady: boolean;
  readonly ports: readonly Port[];
  /**
   * Null for an entry that is not an object (a ClusterSetIP slice starting with one is ignored);
   * a string for the common endpoint that is one servable, ready address without a host name.
   */
  readonly endpoints: readonly (Endpoint | string | null)[];
}

/** A ServiceImport reduced to what the model uses. */
interface ImportInfo {
  readonly stamp: Stamp;
  readonly namespace: string;
  readonly name: string;
  readonly ignored: boolean;
  readonly type: ServiceType;
  readonly ips: readonly string[];
  readonly ports: readonly Port[];
  readonly clustersetIpWanted: boolean;
}

/** The four sinks a source feeds; ServiceImports have one per API version. */
export interface StoreSinks {
  readonly serviceImports: (version: string) => ObjectSink;
  readonly endpointSlices: ObjectSink;
  readonly gateways: ObjectSink;
  readonly submariners: ObjectSink;
}

/** The model plus connectivity. One per source, shared by every block that uses the source. */
export class ServiceStore implements StoreSinks {
  readonly services = new Map<string, Service>();
  /** Local cluster id: `cluster_id`/SUBMARINER_CLUSTERID, replaced by the active Gateway's. */
  localClusterId: string;
  /** Connectivity tracking is on only when a Submariner object exists (docs/compatibility.md, "Cluster selection"). */
  private submarinerCount = 0;
  /** And the Gateway resource is served: Lighthouse's `gatewayAvailable`, false on a 404 (the same section). */
  private gatewaysServed = true;
  private readonly connected = new Set<string>();
  private readonly importsByVersion = new Map<string, Map<string, ImportInfo>>();
  private readonly slices = new Map<string, SliceInfo>();
  private readonly slicesByKey = new Map<string, SliceGroup>();
  /** Shared copies of strings and port lists that repeat across objects. */
  private readonly shared = new Interner();
  private readonly gatewayObjects = new Map<string, KubeObject>();
  private readonly submarinerObjects = new Map<string, KubeObject>();
  private readonly listeners = new Set<StoreListener>();
  private changed = new Set<string>();
  private allChanged = false;
  /** Wall-clock ms of the last object event, 0 before any. */
  lastEventMs = 0;
  /** Bumped on every applied change; the SOA serial is derived from the time of the last one. */
  lastChangeMs = 0;

  constructor(
    localClusterId: string,
    private readonly now: () => number = Date.now,
  ) {
    this.localClusterId = localClusterId;
  }

  /** `IsConnected(id)`: tracking disabled, or the cluster is in the connected set. */
  isConnected(cluster: string): boolean {
    return this.submarinerCount === 0 || !this.gatewaysServed || this.connected.has(cluster);
  }

  /** Number of stored objects per resource, for the objects gauge. */
  objectCounts(): Record<ResourceName, number> {
    let imports = 0;
    for (const map of this.importsByVersion.values()) imports += map.size;
    return {
      serviceimports: imports,
      endpointslices: this.slices.size,
      gateways: this.gatewayObjects.size,
      submariners: this.submarinerObjects.size,
    };
  }

  subscribe(listener: StoreListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // --- sinks -------------------------------------------------------------------------------

  serviceImports(version: string): ObjectSink {
    let objects = this.importsByVersion.get(version);
    if (!objects) this.importsByVersion.set(version, (objects = new Map()));
    const map = objects;
    // The ids of a list under way (ObjectSink.part): what is not among them at its end goes.
    let listed: Set<string> | undefined;
    return {
      part: (items, first) =>
        this.batch(() => {
          if (first || listed === undefined) listed = new Set();
          for (const item of items) {
            listed.add(objectId(item));
            this.upsertImport(map, item);
          }
        }),
      replace: (items) =>
        this.batch(() => {
          const ids = listed ?? new Set<string>();
          listed = undefined;
          for (const item of items) ids.add(objectId(item));
          for (const id of [...map.keys()]) {
            if (!ids.has(id)) {
              map.delete(id);
              this.applyImport(id);
            }
          }
          for (const item of items) this.upsertImport(map, item);
        }),
      upsert: (item) => this.batch(() => this.upsertImport(map, item)),
      remove: (item) =>
        this.batch(() => {
          const id = objectId(item);
          if (map.delete(id)) this.applyImport(id);
        }),
    };
  }

  /** The slice ids of a list under way (ObjectSink.part). */
  private slicesListed: Set<string> | undefined;

  readonly endpointSlices: ObjectSink = {
    part: (items, first) =>
      this.batch(() => {
        if (first || this.slicesListed === undefined) this.slicesListed = new Set();
        for (const item of items) {
          this.slicesListed.add(objectId(item));
          this.upsertSlice(item);
        }
      }),
    replace: (items) =>
      this.batch(() => {
        const ids = this.slicesListed ?? new Set<string>();
        this.slicesListed = undefined;
        for (const item of items) ids.add(objectId(item));
        for (const [id, info] of [...this.slices]) if (!ids.has(id)) this.removeSlice(info);
        for (const item of items) this.upsertSlice(item);
      }),
    upsert: (item) => this.batch(() => this.upsertSlice(item)),
    remove: (item) =>
      this.batch(() => {
        const info = this.slices.get(objectId(item));
        if (info) this.removeSlice(info);
      }),
  };

  readonly gateways: ObjectSink = {
    replace: (items, absent = false) =>
      this.batch(() => {
        if (this.gatewaysServed === absent) {
          this.gatewaysServed = !absent;
          this.allChanged = true;
        }
        const ids = new Set(items.map(objectId));
        for (const id of [...this.gatewayObjects.keys()]) if (!ids.has(id)) this.gatewayObjects.delete(id);
        for (const item of items) this.upsertGateway(item);
      }),
    upsert: (item) => this.batch(() => this.upsertGateway(item)),
    // docs/compatibility.md, "Cluster selection": a deleted Gateway leaves every cluster in its last state.
    remove: (item) => this.batch(() => void this.gatewayObjects.delete(objectId(item))),
  };

  readonly submariners: ObjectSink = {
    replace: (items) =>
      this.batch(() => {
        this.submarinerObjects.clear();
        for (const item of items) this.submarinerObjects.set(objectId(item), item);
        this.setSubmarinerCount();
      }),
    upsert: (item) =>
      this.batch(() => {
        this.submarinerObjects.set(objectId(item), item);
        this.setSubmarinerCount();
      }),
    remove: (item) =>
      this.batch(() => {
        this.submarinerObjects.delete(objectId(item));
        this.setSubmarinerCount();
      }),
  };

  // --- ServiceImports (docs/compatibility.md, "Inputs") -------------------------------------------------------------

  private upsertImport(map: Map<string, ImportInfo>, item: KubeObject): void {
    const id = objectId(item);
    const previous = map.get(id);
    if (previous && sameStamp(previous.stamp, item)) return;
    map.set(id, this.describeImport(item));
    this.applyImport(id);
  }

  /** Applies the effective ServiceImport for `id`: v1beta1 when present, else v1alpha1. */
  private applyImport(id: string): void {
    const info = this.importsByVersion.get('v1beta1')?.get(id) ?? this.importsByVersion.get('v1alpha1')?.get(id) ?? firstOf(this.importsByVersion, id);
    if (info && !info.ignored) this.upsertService(id, info);
    else this.unexportService(id);
  }

  private describeImport(object: KubeObject): ImportInfo {
    // mcs-api v1beta1 moved the spec fields to the object's root; read either place.
    const spec = (asRecord(object['spec']) ?? object) as Record<string, unknown>;
    return {
      stamp: stampOf(object),
      namespace: object.metadata?.namespace ?? '',
      name: object.metadata?.name ?? '',
      ignored: isIgnoredImport(object),
      type: (spec['type'] ?? object['type']) === 'Headless' ? 'Headless' : 'ClusterSetIP',
      ips: exact(asArray(spec['ips'] ?? object['ips']).filter((ip): ip is string => typeof ip === 'string' && isIP(ip) !== 0)),
      ports: this.shared.ports(parsePorts(spec['ports'] ?? object['ports'])),
      clustersetIpWanted: object.metadata?.annotations?.[annotationUseClustersetIp] === 'true',
    };
  }

  /** `key` is the import's `namespace/name`, the same string the import map holds. */
  private upsertService(key: string, info: ImportInfo): void {
    let service = this.services.get(key);
    const isNew = service === undefined;
    if (!service) this.services.set(key, (service = new Service(info.namespace, info.name)));
    const typeChanged = service.type !== info.type;
    service.type = info.type;
    service.ips = info.ips;
    service.ports = info.ports;
    service.exported = true;
    service.clustersetIpWanted = info.clustersetIpWanted;
    if (isNew || typeChanged) this.replaySlices(service, key);
    this.touch(key);
  }

  private unexportService(id: string): void {
    const service = this.services.get(id);
    if (!service) return;
    service.exported = false;
    if (!service.hasClusterData) this.services.delete(id);
    this.touch(id);
  }

  /** Rebuilds a service's cluster data from every current slice: on creation (slices that came first) and type changes. */
  private replaySlices(service: Service, key: string): void {
    service.v4.settle();
    service.v4.clusters.clear();
    if (service.v6 !== emptyFamily) {
      service.v6.settle();
      service.v6.clusters.clear();
    }
    const group = this.slicesByKey.get(key);
    if (!group) return;
    for (const info of group.slices) this.applySlice(service, info);
  }

  // --- EndpointSlices (docs/compatibility.md, "Inputs") -------------------------------------------------------------

  private upsertSlice(object: KubeObject): void {
    const id = objectId(object);
    const previous = this.slices.get(id);
    if (previous && sameStamp(previous.stamp, object)) return;
    const placed = placeSlice(object);
    if (previous && (!placed || previous.group.key !== placed.key || previous.cluster !== placed.cluster || previous.family !== placed.family)) {
      this.removeSlice(previous);
    }
    if (!placed) return;
    let group = this.slicesByKey.get(placed.key);
    if (!group) this.slicesByKey.set(placed.key, (group = { key: placed.key, slices: [] }));
    const info = this.describeSlice(id, group, this.shared.string(placed.cluster), placed.family, object);
    this.slices.set(id, info);
    // A new version keeps its predecessor's place, as the Set of ids it replaces did.
    const at = previous && previous.group === group ? group.slices.indexOf(previous) : -1;
    group.slices = at >= 0 ? group.slices.map((other, i) => (i === at ? info : other)) : [...group.slices, info];
    // As Lighthouse's coredns/resolver/endpoint_slice.go: without its service the slice waits here and is applied when the ServiceImport arrives.
    const service = this.services.get(placed.key);
    if (!service) return;
    this.applySlice(service, info);
    this.touch(placed.key);
  }

  /** Reduces a slice to its ports and servable endpoints; the raw object is not kept. */
  private describeSlice(id: string, group: SliceGroup, cluster: string, family: Family, object: KubeObject): SliceInfo {
    const endpoints: (Endpoint | string | null)[] = [];
    for (const value of asArray(object['endpoints'])) {
      const endpoint = asRecord(value);
      if (!endpoint) {
        endpoints.push(null);
        continue;
      }
      const raw = asArray(endpoint['addresses']);
      const addresses: string[] = [];
      for (const ip of raw) if (typeof ip === 'string' && isPermittedAddress(ip)) addresses.push(ip);
      const firstServable = addresses.length > 0 && raw[0] === addresses[0];
      const hostname = typeof endpoint['hostname'] === 'string' ? endpoint['hostname'] : '';
      const notReady = asRecord(endpoint['conditions'])?.['ready'] === false;
      if (firstServable && addresses.length === 1 && hostname === '' && !notReady) endpoints.push(addresses[0]!);
      else endpoints.push({ addresses: exact(addresses), firstServable, hostname, notReady });
    }
    return {
      id,
      group,
      cluster,
      family,
      stamp: stampOf(object),
      publishNotReady: object.metadata?.annotations?.[annotationPublishNotReady] === 'true',
      ports: this.shared.ports(parsePorts(object['ports'])),
      endpoints: exact(endpoints),
    };
  }

  private removeSlice(info: SliceInfo): void {
    this.slices.delete(info.id);
    const group = info.group;
    const at = group.slices.indexOf(info);
    if (at >= 0) group.slices = group.slices.filter((other) => other !== info);
    if (group.slices.length === 0 && this.slicesByKey.get(group.key) === group) this.slicesByKey.delete(group.key);
    const key = group.key;
    const service = this.services.get(key);
    if (!service) return;
    const family = service.family(info.family);
    if (service.type === 'ClusterSetIP') {
      // The cluster may end up removed without a reset (a successor slice without endpoints).
      family.settle();
      family.clusters.delete(info.cluster);
      // A second slice for the same cluster and family (not something the agent writes) takes over.
      const other = this.slicesOf(key, info.cluster, info.family).at(-1);
      if (other) this.applySlice(service, other);
      else family.reset();
    } else {
      this.rebuildHeadless(service, key, info.cluster, info.family);
    }
    if (!service.exported && !service.hasClusterData) this.services.delete(key);
    this.touch(key);
  }

  private applySlice(service: Service, info: SliceInfo): void {
    if (service.type === 'Headless') {
      this.rebuildHeadless(service, info.group.key, info.cluster, info.family);
      return;
    }
    const family = service.family(info.family);
    // As Lighthouse's coredns/resolver/endpoint_slice.go: a slice with no endpoints is ignored and the cluster keeps its previous record.
    if (info.endpoints.length === 0) return;
    const first = info.endpoints[0];
    if (first === null || first === undefined) return;
    if (typeof first === 'string') {
      family.clusters.set(info.cluster, new ServiceIpCluster(first, info.ports, info.cluster, true));
    } else if (!first.firstServable) {
      family.clusters.delete(info.cluster);
    } else {
      family.clusters.set(info.cluster, new ServiceIpCluster(first.addresses[0]!, info.ports, info.cluster, !first.notReady));
    }
    family.reset();
  }

  /** As Lighthouse's coredns/resolver/endpoint_slice.go: a headless cluster is rebuilt from all its current slices on every change. */
  private rebuildHeadless(service: Service, key: string, cluster: string, familyName: Family): void {
    const family = service.family(familyName);
    // Headless changes never reset the balancer; fix what a later type change would still see.
    family.settle();
    const slices = this.slicesOf(key, cluster, familyName);
    if (slices.length === 0) {
      family.clusters.delete(cluster);
      return;
    }
    const records: DnsRecord[] = [];
    const seen = new Set<string>();
    for (const info of slices) {
      for (const entry of info.endpoints) {
        if (entry === null) continue;
        const endpoint = typeof entry === 'string' ? { addresses: [entry], hostname: '', notReady: false } : entry;
        if (endpoint.notReady && !info.publishNotReady) continue;
        for (const ip of endpoint.addresses) {
          if (seen.has(ip)) continue;
          seen.add(ip);
          records.push({ ip, ports: info.ports, hostname: endpoint.hostname || dashedHostname(ip), cluster });
        }
      }
    }
    const data: HeadlessCluster = { records: exact(records), healthy: true };
    family.clusters.set(cluster, data);
  }

  private slicesOf(key: string, cluster: string, family: Family): SliceInfo[] {
    const out: SliceInfo[] = [];
    for (const info of this.slicesByKey.get(key)?.slices ?? []) {
      if (info.cluster === cluster && info.family === family) out.push(info);
    }
    return out;
  }

  // --- Gateways and Submariner (docs/compatibility.md, "Cluster selection") ----------------------------------------------------

  private upsertGateway(object: KubeObject): void {
    const id = objectId(object);
    const previous = this.gatewayObjects.get(id);
    if (previous && sameStamp(previous, object)) return;
    this.gatewayObjects.set(id, object);
    const status = asRecord(object['status']) ?? {};
    const entries: [string, unknown][] = [];
    const local = asRecord(status['localEndpoint'])?.['cluster_id'];
    if (typeof local === 'string' && local !== '') {
      if (local !== this.localClusterId) {
        this.localClusterId = local;
        this.allChanged = true;
      }
      entries.push([local, 'connected']);
    }
    if (status['haStatus'] === 'active') {
      for (const value of asArray(status['connections'])) {
        const connection = asRecord(value);
        const cluster = asRecord(connection?.['endpoint'])?.['cluster_id'];
        if (typeof cluster === 'string' && cluster !== '') entries.push([cluster, connection?.['status']]);
      }
    }
    // Every entry is judged against the set as it was before this update (docs/compatibility.md, "Cluster selection").
    const before = new Set(this.connected);
    for (const [cluster, state] of entries) {
      if (state === 'connected') {
        if (!before.has(cluster)) this.connected.add(cluster);
      } else if (before.has(cluster)) {
        this.connected.delete(cluster);
      }
    }
    if (this.connected.size !== before.size || [...this.connected].some((c) => !before.has(c))) this.allChanged = true;
  }

  private setSubmarinerCount(): void {
    const count = this.submarinerObjects.size;
    if ((count === 0) !== (this.submarinerCount === 0)) this.allChanged = true;
    this.submarinerCount = count;
  }

  // --- batching -------------------------------------------------------------------------------

  private touch(key: string): void {
    this.changed.add(key);
  }

  /** Runs one sink call and tells the listeners what changed, once. */
  private batch(work: () => void): void {
    this.lastEventMs = this.now();
    work();
    if (!this.allChanged && this.changed.size === 0) return;
    const change: StoreChange = { all: this.allChanged, services: this.changed };
    this.changed = new Set();
    this.allChanged = false;
    this.lastChangeMs = this.lastEventMs;
    for (const listener of this.listeners) listener(change);
  }
}

function samePort(a: Port, b: Port): boolean {
  return a.name === b.name && a.protocol === b.protocol && a.port === b.port && a.appProtocol === b.appProtocol;
}

/** docs/compatibility.md, "Inputs": per-cluster and broker copies of a ServiceImport carry the service-name label or annotation. */
function isIgnoredImport(object: KubeObject): boolean {
  return object.metadata?.labels?.[mcsServiceNameLabel] !== undefined || object.metadata?.annotations?.[mcsServiceNameLabel] !== undefined;
}

/** As Lighthouse's coredns/resolver/endpoint_slice.go: the labels that place a slice, or undefined when it must be ignored. */
function placeSlice(object: KubeObject): { key: string; cluster: string; family: Family } | undefined {
  const labels = object.metadata?.labels;
  const name = labels?.[mcsServiceNameLabel];
  const namespace = labels?.[labelSourceNamespace];
  const cluster = labels?.[mcsSourceClusterLabel];
  if (!name || !namespace || !cluster) return undefined;
  if (object.metadata?.namespace !== namespace) return undefined;
  const addressType = object['addressType'];
  const family: Family | undefined = addressType === 'IPv6' ? 'v6' : addressType === 'IPv4' || addressType === undefined ? 'v4' : undefined;
  if (!family) return undefined;
  return { key: `${namespace}/${name}`, cluster, family };
}

/**
 * Shares strings and port lists that repeat across objects: every slice of a cluster would
 * otherwise hold its own copy of the cluster id and of an identical port list. Bounded: past
 * the limit it starts over, which only costs sharing, never correctness.
 */
class Interner {
  private static readonly limit = 10_000;
  private readonly strings = new Map<string, string>();
  private readonly portLists = new Map<string, readonly Port[]>();

  string(value: string): string {
    const known = this.strings.get(value);
    if (known !== undefined) return known;
    if (this.strings.size >= Interner.limit) this.strings.clear();
    this.strings.set(value, value);
    return value;
  }

  ports(ports: Port[]): readonly Port[] {
    if (ports.length === 0) return noPorts;
    let key = '';
    for (const p of ports) key += `${p.name}\0${p.protocol}\0${p.port}\0${p.appProtocol}\0`;
    const known = this.portLists.get(key);
    if (known !== undefined) return known;
    if (this.portLists.size >= Interner.limit) this.portLists.clear();
    const shared = exact(ports);
    this.portLists.set(key, shared);
    return shared;
  }
}

const noPorts: readonly Port[] = [];

/**
 * A copy without spare capacity. An array grown by push keeps room for 16 more elements (about
 * 130 bytes); arrays kept for every slice and endpoint are copied to their exact size.
 */
export function exact<T>(items: T[]): T[] {
  return items.length === 0 ? [] : items.slice();
}

/** docs/compatibility.md, "Inputs": missing fields become empty strings or 0. */
export function parsePorts(value: unknown): Port[] {
  const ports: Port[] = [];
  for (const item of asArray(value)) {
    const port = asRecord(item);
    if (!port) continue;
    ports.push({
      name: typeof port['name'] === 'string' ? port['name'] : '',
      protocol: typeof port['protocol'] === 'string' ? port['protocol'] : '',
      port: typeof port['port'] === 'number' ? port['port'] : 0,
      appProtocol: typeof port['appProtocol'] === 'string' ? port['appProtocol'] : '',
    });
  }
  return ports;
}

function objectId(object: KubeObject): string {
  return `${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`;
}

function firstOf(maps: Map<string, Map<string, ImportInfo>>, id: string): ImportInfo | undefined {
  for (const map of maps.values()) {
    const info = map.get(id);
    if (info) return info;
  }
  return undefined;
}

function asArray(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function stampOf(object: KubeObject): Stamp {
  const version: unknown = object.metadata?.resourceVersion;
  if (typeof version !== 'string') return object;
  // resourceVersions are etcd revisions in practice: kept as a number, which costs no allocation.
  const n = Number(version);
  return Number.isSafeInteger(n) && String(n) === version ? n : version;
}

/** Same resourceVersion, or (manifests, which have none) the same content. */
function sameStamp(stamp: Stamp, object: KubeObject): boolean {
  const version = object.metadata?.resourceVersion;
  // A versioned object never equals one without a version: their metadata differ.
  if (typeof stamp === 'number') return typeof version === 'string' && stampOf(object) === stamp;
  if (typeof stamp === 'string') return version === stamp;
  const kept = stamp.metadata?.resourceVersion;
  if (kept !== undefined && version !== undefined) return kept === version;
  return deepEqual(stamp, object);
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const k of ka) if (!deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  return true;
}
