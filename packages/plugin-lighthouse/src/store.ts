/**
 * The service model (spec 2.7) and how ServiceImport, EndpointSlice, Gateway and Submariner
 * objects change it (spec 2.2-2.6, 4.4). Both sources (the Kubernetes watch and the manifests
 * directory) feed the same sinks, so every ingest rule lives here once. The store knows nothing
 * about DNS: it tells its listeners which services changed, and the answer index rebuilds those.
 */
import { dashedHostname, isPermittedAddress } from './addresses.js';
import type { KubeObject, ObjectSink } from './kube/types.js';
import { SmoothWeightedRoundRobin } from './swrr.js';

/** Label the agent puts on every slice it writes; the EndpointSlice watch selects on it. */
export const managedBySelector = 'endpointslice.kubernetes.io/managed-by=lighthouse-agent.submariner.io';
const labelServiceName = 'multicluster.kubernetes.io/service-name';
const labelSourceNamespace = 'lighthouse.submariner.io/sourceNamespace';
const labelSourceCluster = 'multicluster.kubernetes.io/source-cluster';
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

/** One address a cluster serves for a service (spec 2.7 DNSRecord). */
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
  /** Records by host name (headless only), in record order. */
  readonly byHost: ReadonlyMap<string, readonly DnsRecord[]>;
  /** ClusterSetIP: the slice's first endpoint is ready (or says nothing). Always true for headless. */
  readonly healthy: boolean;
}

/** Per-family state of a service (Profile B keeps IPv4 and IPv6 apart). */
export class FamilyData {
  /** Clusters in the order they first exported; the balancer follows this order. */
  readonly clusters = new Map<string, ClusterData>();
  /** ClusterSetIP: the ports every cluster exports identically (spec 3.6). */
  mergedPorts: readonly Port[] = [];
  /** ClusterSetIP: replaced (reset) after every EndpointSlice change of the service (spec 4.2). */
  balancer = new SmoothWeightedRoundRobin<string>();
}

const emptyFamily = new FamilyData();
/** ClusterSetIP clusters have no host names; they share one empty map. */
const noHosts: ReadonlyMap<string, readonly DnsRecord[]> = new Map();

/** One `namespace/name` service and everything known about it. */
export class Service {
  type: ServiceType = 'ClusterSetIP';
  /** `spec.ips`: clusterset VIPs. */
  ips: readonly string[] = [];
  /** `spec.ports`: the agent's merged ports, used with clusterset IPs. */
  ports: readonly Port[] = [];
  /** A ServiceImport exists; when false the entry lives on only while cluster data remains. */
  exported = false;
  /** `use-clusterset-ip: "true"`: answer with the clusterset IP or not at all (spec 2.2, Profile B). */
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

interface SliceInfo {
  readonly id: string;
  readonly key: string;
  readonly cluster: string;
  readonly family: Family;
  readonly object: KubeObject;
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
  /** Connectivity tracking is on only when a Submariner object exists (spec 4.4). */
  private submarinerCount = 0;
  private readonly connected = new Set<string>();
  private readonly importsByVersion = new Map<string, Map<string, KubeObject>>();
  private readonly slices = new Map<string, SliceInfo>();
  private readonly slicesByKey = new Map<string, Set<string>>();
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
    return this.submarinerCount === 0 || this.connected.has(cluster);
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
    return {
      replace: (items) =>
        this.batch(() => {
          const ids = new Set(items.map(objectId));
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

  readonly endpointSlices: ObjectSink = {
    replace: (items) =>
      this.batch(() => {
        const ids = new Set(items.map(objectId));
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
    replace: (items) =>
      this.batch(() => {
        const ids = new Set(items.map(objectId));
        for (const id of [...this.gatewayObjects.keys()]) if (!ids.has(id)) this.gatewayObjects.delete(id);
        for (const item of items) this.upsertGateway(item);
      }),
    upsert: (item) => this.batch(() => this.upsertGateway(item)),
    // Spec 4.4: a deleted Gateway leaves every cluster in its last state.
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

  // --- ServiceImports (spec 2.2) -------------------------------------------------------------

  private upsertImport(map: Map<string, KubeObject>, item: KubeObject): void {
    const id = objectId(item);
    const previous = map.get(id);
    if (previous && sameObject(previous, item)) return;
    map.set(id, item);
    this.applyImport(id);
  }

  /** Applies the effective ServiceImport for `id`: v1beta1 when present, else v1alpha1. */
  private applyImport(id: string): void {
    const object = this.importsByVersion.get('v1beta1')?.get(id) ?? this.importsByVersion.get('v1alpha1')?.get(id) ?? firstOf(this.importsByVersion, id);
    if (object && !isIgnoredImport(object)) this.upsertService(object);
    else this.unexportService(id);
  }

  private upsertService(object: KubeObject): void {
    const namespace = object.metadata?.namespace ?? '';
    const name = object.metadata?.name ?? '';
    const key = `${namespace}/${name}`;
    // mcs-api v1beta1 moved the spec fields to the object's root; read either place.
    const spec = (asRecord(object['spec']) ?? object) as Record<string, unknown>;
    const type: ServiceType = (spec['type'] ?? object['type']) === 'Headless' ? 'Headless' : 'ClusterSetIP';
    let service = this.services.get(key);
    const isNew = service === undefined;
    if (!service) this.services.set(key, (service = new Service(namespace, name)));
    const typeChanged = service.type !== type;
    service.type = type;
    service.ips = asArray(spec['ips'] ?? object['ips']).filter((ip): ip is string => typeof ip === 'string');
    service.ports = parsePorts(spec['ports'] ?? object['ports']);
    service.exported = true;
    service.clustersetIpWanted = object.metadata?.annotations?.[annotationUseClustersetIp] === 'true';
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
    service.v4.clusters.clear();
    if (service.v6 !== emptyFamily) service.v6.clusters.clear();
    const ids = this.slicesByKey.get(key);
    if (!ids) return;
    for (const id of ids) {
      const info = this.slices.get(id);
      if (info) this.applySlice(service, info);
    }
  }

  // --- EndpointSlices (spec 2.3) -------------------------------------------------------------

  private upsertSlice(object: KubeObject): void {
    const id = objectId(object);
    const previous = this.slices.get(id);
    if (previous && sameObject(previous.object, object)) return;
    const info = describeSlice(id, object);
    if (previous && (!info || previous.key !== info.key || previous.cluster !== info.cluster || previous.family !== info.family)) {
      this.removeSlice(previous);
    }
    if (!info) return;
    this.slices.set(id, info);
    let ids = this.slicesByKey.get(info.key);
    if (!ids) this.slicesByKey.set(info.key, (ids = new Set()));
    ids.add(id);
    // Spec 2.3 rule 3: without its service the slice waits here and is applied when the ServiceImport arrives.
    const service = this.services.get(info.key);
    if (!service) return;
    this.applySlice(service, info);
    this.touch(info.key);
  }

  private removeSlice(info: SliceInfo): void {
    this.slices.delete(info.id);
    const ids = this.slicesByKey.get(info.key);
    ids?.delete(info.id);
    if (ids?.size === 0) this.slicesByKey.delete(info.key);
    const service = this.services.get(info.key);
    if (!service) return;
    const family = service.family(info.family);
    if (service.type === 'ClusterSetIP') {
      family.clusters.delete(info.cluster);
      // A second slice for the same cluster and family (not something the agent writes) takes over.
      const other = this.slicesOf(info.key, info.cluster, info.family).at(-1);
      if (other) this.applySlice(service, other);
      else resetBalancing(family);
    } else {
      this.rebuildHeadless(service, info.key, info.cluster, info.family);
    }
    if (!service.exported && !service.hasClusterData) this.services.delete(info.key);
    this.touch(info.key);
  }

  private applySlice(service: Service, info: SliceInfo): void {
    if (service.type === 'Headless') {
      this.rebuildHeadless(service, info.key, info.cluster, info.family);
      return;
    }
    const family = service.family(info.family);
    const endpoints = asArray(info.object['endpoints']);
    // Spec 2.3 rule 5: a slice with no endpoints is ignored and the cluster keeps its previous record.
    const first = asRecord(endpoints[0]);
    if (!first) return;
    const ip = asArray(first['addresses'])[0];
    if (typeof ip !== 'string' || !isPermittedAddress(ip)) {
      family.clusters.delete(info.cluster);
    } else {
      const ready = asRecord(first['conditions'])?.['ready'];
      family.clusters.set(info.cluster, {
        records: [{ ip, ports: parsePorts(info.object['ports']), hostname: '', cluster: info.cluster }],
        byHost: noHosts,
        healthy: ready !== false,
      });
    }
    resetBalancing(family);
  }

  /** Spec 2.3 rule 6: a headless cluster is rebuilt from all its current slices on every change. */
  private rebuildHeadless(service: Service, key: string, cluster: string, familyName: Family): void {
    const family = service.family(familyName);
    const slices = this.slicesOf(key, cluster, familyName);
    if (slices.length === 0) {
      family.clusters.delete(cluster);
      return;
    }
    const records: DnsRecord[] = [];
    const byHost = new Map<string, DnsRecord[]>();
    const seen = new Set<string>();
    for (const { object } of slices) {
      const publishNotReady = object.metadata?.annotations?.[annotationPublishNotReady] === 'true';
      const ports = parsePorts(object['ports']);
      for (const value of asArray(object['endpoints'])) {
        const endpoint = asRecord(value);
        if (!endpoint) continue;
        if (asRecord(endpoint['conditions'])?.['ready'] === false && !publishNotReady) continue;
        const hostname = typeof endpoint['hostname'] === 'string' ? endpoint['hostname'] : '';
        for (const ip of asArray(endpoint['addresses'])) {
          if (typeof ip !== 'string' || seen.has(ip) || !isPermittedAddress(ip)) continue;
          seen.add(ip);
          const record: DnsRecord = { ip, ports, hostname: hostname || dashedHostname(ip), cluster };
          records.push(record);
          const list = byHost.get(record.hostname);
          if (list) list.push(record);
          else byHost.set(record.hostname, [record]);
        }
      }
    }
    family.clusters.set(cluster, { records, byHost, healthy: true });
  }

  private slicesOf(key: string, cluster: string, family: Family): SliceInfo[] {
    const out: SliceInfo[] = [];
    for (const id of this.slicesByKey.get(key) ?? []) {
      const info = this.slices.get(id);
      if (info && info.cluster === cluster && info.family === family) out.push(info);
    }
    return out;
  }

  // --- Gateways and Submariner (spec 4.4) ----------------------------------------------------

  private upsertGateway(object: KubeObject): void {
    const id = objectId(object);
    const previous = this.gatewayObjects.get(id);
    if (previous && sameObject(previous, object)) return;
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
    // Every entry is judged against the set as it was before this update (spec 4.4).
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

/** Merged ports (spec 3.6) and a fresh balancer in cluster order (spec 4.2 reset). */
function resetBalancing(family: FamilyData): void {
  let merged: Port[] | undefined;
  for (const cluster of family.clusters.values()) {
    const ports = cluster.records[0]?.ports ?? [];
    merged = merged === undefined ? [...ports] : merged.filter((p) => ports.some((q) => samePort(p, q)));
  }
  family.mergedPorts = merged ?? [];
  const balancer = new SmoothWeightedRoundRobin<string>();
  for (const cluster of family.clusters.keys()) balancer.add(cluster, 1);
  family.balancer = balancer;
}

function samePort(a: Port, b: Port): boolean {
  return a.name === b.name && a.protocol === b.protocol && a.port === b.port && a.appProtocol === b.appProtocol;
}

/** Spec 2.2: per-cluster and broker copies of a ServiceImport carry the service-name label or annotation. */
function isIgnoredImport(object: KubeObject): boolean {
  return object.metadata?.labels?.[labelServiceName] !== undefined || object.metadata?.annotations?.[labelServiceName] !== undefined;
}

/** Spec 2.3 rules 1-2: the labels that place a slice, or undefined when it must be ignored. */
function describeSlice(id: string, object: KubeObject): SliceInfo | undefined {
  const labels = object.metadata?.labels;
  const name = labels?.[labelServiceName];
  const namespace = labels?.[labelSourceNamespace];
  const cluster = labels?.[labelSourceCluster];
  if (!name || !namespace || !cluster) return undefined;
  if (object.metadata?.namespace !== namespace) return undefined;
  const addressType = object['addressType'];
  const family: Family | undefined = addressType === 'IPv6' ? 'v6' : addressType === 'IPv4' || addressType === undefined ? 'v4' : undefined;
  if (!family) return undefined;
  return { id, key: `${namespace}/${name}`, cluster, family, object };
}

/** Spec 2.4: missing fields become empty strings or 0. */
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

function firstOf(maps: Map<string, Map<string, KubeObject>>, id: string): KubeObject | undefined {
  for (const map of maps.values()) {
    const object = map.get(id);
    if (object) return object;
  }
  return undefined;
}

function asArray(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** Same resourceVersion, or (manifests, which have none) the same content. */
function sameObject(a: KubeObject, b: KubeObject): boolean {
  const va = a.metadata?.resourceVersion;
  const vb = b.metadata?.resourceVersion;
  if (va !== undefined && vb !== undefined) return va === vb;
  return deepEqual(a, b);
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
