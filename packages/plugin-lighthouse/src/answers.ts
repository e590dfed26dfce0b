/**
 * The answer table: answers as wire bytes per (name, qtype), built on a name's first query and
 * cached. A cached query is a map lookup plus an ID and question copy; only ClusterSetIP names
 * without a clusterset IP and without a healthy local cluster run the balancer, which picks one
 * of the cached per-cluster bodies.
 *
 * Why lazily: a clusterset of 50,000 services has about 700,000 answerable (name, type) pairs,
 * and building them all took 20 s and 700 MB, while a DNS server sees a small working set. The
 * table keeps only an index of services by name; answers are built from the store when first
 * asked for, kept in a bounded cache (first in, first out), and invalidated per service: every
 * cached answer points at its service's view, which a change of that service marks stale, so a
 * query sees the service either before or after the change. A connectivity or local-cluster
 * change empties the cache at once instead of rebuilding every service.
 *
 * Which names exist and what they answer follows one enumeration per service
 * ({@link ServiceBuilder}), in a fixed order where a later name replaces an earlier equal one;
 * a lookup walks it for the name asked and builds only that answer. Names it does not list
 * (`<anything>.<cluster>.<svc>...` on a ClusterSetIP service, an unknown port, a misspelt kind
 * label) fall to {@link AnswerTable.resolveMiss}, which parses the name once.
 */
import { Rcode, TYPE_A, TYPE_AAAA, TYPE_SRV } from '@foghorn/core';
import { reverseName } from './addresses.js';
import { exact } from './store.js';
import type { ClusterData, DnsRecord, FamilyData, Port, Service, ServiceStore, StoreChange } from './store.js';
import type { SmoothWeightedRoundRobin } from './swrr.js';
import { encodeName, encodeSoaTail, RecordWriter } from './wire.js';

/**
 * Cached answers per query type (CoreDNS's cache plugin keeps 9,984 per kind by default). An
 * entry costs a few hundred bytes, a round-robin one about 1 KB with its per-cluster bodies,
 * so the cache stays within about 10-20 MB however many services there are. Past it, the
 * oldest entries make room; a miss builds its answer again in a few microseconds.
 */
export const cacheCapacity = 10_000;

/** Query outcomes, the `outcome` label of `coredns_lighthouse_queries_total`. */
export const Outcome = {
  success: 0,
  nodata: 1,
  nxdomain: 2,
  notimp: 3,
  notzone: 4,
  fallthrough: 5,
  unsynced: 6,
} as const;
export const outcomeNames = ['success', 'nodata', 'nxdomain', 'notimp', 'notzone', 'fallthrough', 'unsynced'] as const;

/** A counter cell for records served per cluster; the metrics module reads them at scrape time. */
export interface ServedCell {
  value: number;
}

/** A zone the plugin answers for, with what every reply in it shares. */
export class ZoneInfo {
  /** Lower-case wire form, compared with the question's zone bytes to decide on a case patch. */
  readonly wire: Buffer;
  /** `''` for the root zone, else the zone with its trailing dot: what names are built on. */
  readonly suffix: string;
  readonly isReverse: boolean;
  /** The SOA record minus its owner; replaced when the serial moves. */
  soaTail: Buffer;
  readonly nxdomain: Answer;
  readonly nodata: Answer;

  constructor(
    readonly name: string,
    private readonly ttl: number,
  ) {
    this.wire = encodeName(name);
    this.suffix = name === '.' ? '' : name;
    this.isReverse = name.endsWith('in-addr.arpa.') || name.endsWith('ip6.arpa.');
    this.soaTail = encodeSoaTail(name, 0, ttl);
    this.nxdomain = negativeAnswer(Rcode.NXDOMAIN, this);
    this.nodata = negativeAnswer(Rcode.NOERROR, this);
  }

  setSerial(serial: number): void {
    this.soaTail = encodeSoaTail(this.name, serial, this.ttl);
  }
}

/** A complete reply minus header and question. */
export interface Answer {
  readonly kind: 'answer';
  readonly rcode: number;
  readonly outcome: number;
  readonly ancount: number;
  readonly body: Buffer;
  /** Offsets in `body` of lower-case zone names to overwrite with the client's spelling. */
  readonly zoneOffsets: readonly number[] | null;
  /** The zone whose SOA goes into the authority section (RFC 2308), or null for none. */
  readonly soaZone: ZoneInfo | null;
  /** Records served, per cluster, for `coredns_lighthouse_records_served_total`. */
  readonly served: readonly (readonly [ServedCell, number])[];
}

/** A name answered by the balancer: the first stage that yields a cluster wins (spec 3.3). */
export interface Balanced {
  readonly kind: 'balanced';
  readonly stages: readonly (Answer | BalancedStage)[];
  readonly none: Answer;
}

/** One family's balancer and the body each of its clusters would give; null = not acceptable. */
export interface BalancedStage {
  readonly kind: 'stage';
  readonly balancer: SmoothWeightedRoundRobin<string>;
  readonly answers: readonly (Answer | null)[];
}

export type Entry = Answer | Balanced;

const empty = Buffer.alloc(0);

function negativeAnswer(rcode: number, zone: ZoneInfo | null, outcome?: number): Answer {
  return {
    kind: 'answer',
    rcode,
    outcome: outcome ?? (rcode === Rcode.NXDOMAIN ? Outcome.nxdomain : Outcome.nodata),
    ancount: 0,
    body: empty,
    zoneOffsets: null,
    soaZone: zone,
    served: [],
  };
}

/** NOTIMP and NOTZONE carry no SOA: they are not negative answers in RFC 2308's sense. */
export const notImplemented: Answer = negativeAnswer(Rcode.NOTIMP, null, Outcome.notimp);
export const notZone: Answer = negativeAnswer(Rcode.NOTZONE, null, Outcome.notzone);

/** The supported IP families (spec 1.4, Profile B). */
export interface Families {
  readonly v4: boolean;
  readonly v6: boolean;
}

export interface TableOptions {
  /** Plugin zones, normalised; forward zones and reverse (`in-addr.arpa.`/`ip6.arpa.`) zones. */
  readonly zones: readonly string[];
  readonly ttlSeconds: number;
  readonly families: Families;
  /** The counter cell for records served from `cluster` (`''` = the clusterset IP). */
  readonly servedCell: (cluster: string) => ServedCell;
}

/** Optional: lets tests and benchmarks pick a smaller cache. */
export interface TableTuning {
  /** Cached answers per query type; default {@link cacheCapacity}. */
  readonly cacheCapacity?: number;
}

/**
 * A service as the table sees it. Cached answers point at the view they were built from; a
 * change of the service marks the view stale and installs a new one.
 */
interface ServiceView {
  readonly key: string;
  readonly service: Service;
  valid: boolean;
}

interface Cached {
  readonly entry: Entry;
  readonly view: ServiceView;
}

type MapName = 'a' | 'aaaa' | 'srv';

/**
 * The cached entries of one query type. Eviction is first in, first out through a ring of keys
 * (a Map's own iteration order would walk every deleted slot at its front on each eviction).
 */
class AnswerCache {
  readonly map = new Map<string, Cached>();
  private ring: string[] = [];
  private head = 0;

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.map.size;
  }

  set(name: string, cached: Cached): void {
    if (this.map.has(name)) {
      // A stale entry replaced: the name keeps its place in the ring.
      this.map.set(name, cached);
      return;
    }
    if (this.ring.length < this.capacity) {
      this.ring.push(name);
    } else {
      this.map.delete(this.ring[this.head]!);
      this.ring[this.head] = name;
      this.head = (this.head + 1) % this.capacity;
    }
    this.map.set(name, cached);
  }

  clear(): void {
    this.map.clear();
    this.ring = [];
    this.head = 0;
  }
}

/** Receives the names of one service in enumeration order, each with how to build its entry. */
interface NameSink {
  /** When set, only names ending with this can matter (lets big loops be skipped). */
  readonly target: string | null;
  offer(map: MapName, name: string, make: () => Entry): void;
}

/** Finds the entry of one name: the last offer wins, as the last write to a map would. */
class Finder implements NameSink {
  make: (() => Entry) | undefined;

  constructor(
    readonly map: MapName | null,
    readonly target: string,
  ) {}

  offer(map: MapName, name: string, make: () => Entry): void {
    if (name === this.target && (this.map === null || map === this.map)) this.make = make;
  }
}

/** The per-block answer table over a shared store. */
export class AnswerTable {
  private readonly a: AnswerCache;
  private readonly aaaa: AnswerCache;
  private readonly srv: AnswerCache;
  readonly txt = new Map<string, Answer>();
  readonly ptr = new Map<string, Answer>();
  /** Services by lower-case `name.namespace`, the labels left of `svc` in every forward zone. */
  private readonly views = new Map<string, ServiceView>();
  /** PTR names each service contributed to, so a change can withdraw exactly them. */
  private readonly ownedPtr = new Map<string, string[]>();
  /** PTR targets per reverse name and owning service, so shared addresses keep every target. */
  private readonly ptrTargets = new Map<string, Map<string, string[]>>();
  /** Zones longest first, so the most specific zone wins (spec 3.1 step 1). */
  readonly zones: readonly ZoneInfo[];
  private readonly forwardZones: readonly ZoneInfo[];
  private readonly reverseZones: readonly ZoneInfo[];
  /** A forward zone inside another: a name may then belong to a service of either zone. */
  private readonly nestedZones: boolean;
  private readonly ttl: number;
  private unsubscribe: (() => void) | undefined;
  private readonly servedSingles = new Map<string, readonly (readonly [ServedCell, number])[]>();

  constructor(
    private readonly store: ServiceStore,
    private readonly options: TableOptions,
    tuning: TableTuning = {},
  ) {
    this.ttl = options.ttlSeconds;
    const capacity = Math.max(1, tuning.cacheCapacity ?? cacheCapacity);
    this.a = new AnswerCache(capacity);
    this.aaaa = new AnswerCache(capacity);
    this.srv = new AnswerCache(capacity);
    const zones = [...new Set(options.zones)].map((zone) => new ZoneInfo(zone, options.ttlSeconds));
    this.zones = zones.sort((x, y) => y.name.length - x.name.length);
    this.forwardZones = zones.filter((zone) => !zone.isReverse);
    this.reverseZones = zones.filter((zone) => zone.isReverse);
    this.nestedZones = this.forwardZones.some((inner) => this.forwardZones.some((outer) => outer !== inner && isUnder(inner.name, outer)));
    for (const zone of this.forwardZones) {
      // KEP-1645 schema version record, `dns-version.<zone> TXT "1.0.0"`.
      const writer = new RecordWriter(this.ttl);
      writer.txt('1.0.0');
      this.txt.set(`dns-version.${zone.suffix}`, positive(writer, zone, []));
    }
  }

  /** Indexes every service in the store and follows its changes until {@link close}. */
  open(): void {
    for (const key of this.store.services.keys()) this.refresh(key);
    this.setSerial();
    this.unsubscribe = this.store.subscribe((change) => this.apply(change));
  }

  close(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.clearCache();
  }

  /** Number of services indexed. */
  get services(): number {
    return this.views.size;
  }

  /** Number of answers cached (A, AAAA, SRV, stale ones included until evicted) and PTR names. */
  get size(): number {
    return this.a.size + this.aaaa.size + this.srv.size + this.ptr.size;
  }

  /** The longest plugin zone containing `qname`, or undefined. */
  matchZone(qname: string): ZoneInfo | undefined {
    for (const zone of this.zones) {
      if (zone.name === '.') return zone;
      if (qname.length === zone.name.length ? qname === zone.name : qname.endsWith(zone.name) && qname.charCodeAt(qname.length - zone.name.length - 1) === 0x2e) {
        return zone;
      }
    }
    return undefined;
  }

  apply(change: StoreChange): void {
    // Connectivity or the local cluster changed: every service may answer differently. Nothing
    // is rebuilt here; names are built again as they are asked for.
    if (change.all) this.clearCache();
    for (const key of change.services) this.refresh(key);
    this.setSerial();
  }

  private clearCache(): void {
    this.a.clear();
    this.aaaa.clear();
    this.srv.clear();
  }

  /** Replaces the view of one service (`namespace/name`); its cached answers become stale. */
  private refresh(key: string): void {
    const service = this.store.services.get(key);
    const slash = key.indexOf('/');
    const id = service ? viewKey(service.name, service.namespace) : viewKey(key.slice(slash + 1), key.slice(0, slash));
    const old = this.views.get(id);
    if (old) old.valid = false;
    if (service) this.views.set(id, { key, service, valid: true });
    else if (old?.key === key) this.views.delete(id);
    if (this.reverseZones.length > 0 && this.forwardZones.length > 0) this.refreshPtr(key, service);
  }

  private setSerial(): void {
    const serial = Math.floor(this.store.lastChangeMs / 1000);
    for (const zone of this.zones) zone.setSerial(serial);
  }

  // --- lookups -------------------------------------------------------------------------------

  /** A, AAAA or SRV (SRV names come with leading underscores stripped). The hot path. */
  lookup(qname: string, qtype: number, zone: ZoneInfo): Answer {
    const cache = qtype === TYPE_A ? this.a : qtype === TYPE_AAAA ? this.aaaa : this.srv;
    const hit = cache.map.get(qname);
    const entry = hit !== undefined && hit.view.valid ? hit.entry : this.resolve(cache, qname, qtype, zone);
    return entry.kind === 'answer' ? entry : pick(entry);
  }

  /** PTR: the answer in a reverse zone; in a forward zone only the name's existence matters. */
  lookupPtr(qname: string, zone: ZoneInfo): Answer {
    if (zone.isReverse) return this.ptr.get(qname) ?? zone.nxdomain;
    return this.exists(qname, zone) ? zone.nodata : zone.nxdomain;
  }

  /** TXT: the KEP's `dns-version` record, else NODATA or NXDOMAIN by the name's existence. */
  lookupTxt(qname: string, zone: ZoneInfo): Answer {
    const answer = this.txt.get(qname);
    if (answer) return answer;
    if (zone.isReverse) return this.reverseOther(qname, zone);
    return this.exists(qname, zone) ? zone.nodata : zone.nxdomain;
  }

  /** A cache miss: build the entry, and keep it when it belongs to a service. */
  private resolve(cache: AnswerCache, qname: string, qtype: number, zone: ZoneInfo): Entry {
    if (zone.isReverse) return this.reverseOther(qname, zone);
    const map: MapName = qtype === TYPE_A ? 'a' : qtype === TYPE_AAAA ? 'aaaa' : 'srv';
    // With nested zones another zone's service could take a name over: nothing is kept there.
    if (this.nestedZones) return this.listed(map, qname, zone) ?? this.resolveMiss(qname, qtype, zone);
    // Only names of a service are kept, with its view: a flood of random names must not push
    // out real answers.
    const view = this.viewOf(qname, zone);
    if (view === undefined) return this.resolveMiss(qname, qtype, zone);
    const entry = this.find(view, zone, map, qname)?.() ?? this.resolveMiss(qname, qtype, zone);
    cache.set(qname, { entry, view });
    return entry;
  }

  /**
   * The entry `qname` has in `map` (`null`: any map), built now, or undefined when no service
   * lists the name. With nested forward zones (`svc.example.` inside `example.`) a name may be
   * listed by a service of either zone: every zone is tried, the shortest winning.
   */
  private listed(map: MapName | null, qname: string, zone: ZoneInfo): Entry | undefined {
    if (!this.nestedZones) {
      const view = this.viewOf(qname, zone);
      return view === undefined ? undefined : this.find(view, zone, map, qname)?.();
    }
    let found: (() => Entry) | undefined;
    for (let i = this.forwardZones.length - 1; i >= 0; i--) {
      const other = this.forwardZones[i]!;
      if (!isUnder(qname, other)) continue;
      const view = this.viewOf(qname, other);
      found = (view === undefined ? undefined : this.find(view, other, map, qname)) ?? found;
    }
    return found?.();
  }

  /** The service whose name and namespace are the labels left of `svc` in `qname`, if any. */
  private viewOf(qname: string, zone: ZoneInfo): ServiceView | undefined {
    if (qname.length === zone.name.length) return undefined;
    const end = qname.length - zone.suffix.length - 1;
    // `<name>.<namespace>.svc` ends the relative name.
    if (end < 4 || qname.charCodeAt(end - 1) !== 0x63 || qname.charCodeAt(end - 2) !== 0x76 || qname.charCodeAt(end - 3) !== 0x73 || qname.charCodeAt(end - 4) !== 0x2e) return undefined;
    const nsDot = qname.lastIndexOf('.', end - 5);
    if (nsDot < 0) return undefined;
    const nameDot = qname.lastIndexOf('.', nsDot - 1);
    return this.views.get(qname.slice(nameDot + 1, end - 4));
  }

  /** Walks the service's names in `zone` for `qname`. */
  private find(view: ServiceView, zone: ZoneInfo, map: MapName | null, qname: string): (() => Entry) | undefined {
    const service = view.service;
    const finder = new Finder(map, qname);
    const builder = new ServiceBuilder(this, service, zone, baseName(service, zone), finder);
    if (service.type === 'Headless') builder.headless();
    else builder.clusterSetIp();
    return finder.make;
  }

  private reverseOther(qname: string, zone: ZoneInfo): Answer {
    return this.ptr.has(qname) ? zone.nodata : zone.nxdomain;
  }

  /** Whether any record type exists at `qname` (never advances a balancer). */
  private exists(qname: string, zone: ZoneInfo): boolean {
    if (this.txt.has(qname) || this.listed(null, qname, zone) !== undefined) return true;
    return this.resolveMiss(qname, TYPE_A, zone).rcode === Rcode.NOERROR;
  }

  /** Spec 3.1-3.5 for names that are not listed: parse once, then answer from the service. */
  resolveMiss(qname: string, qtype: number, zone: ZoneInfo): Answer {
    if (this.txt.has(qname)) return zone.nodata;
    if (qname.length === zone.name.length || zone.name === '.' && qname === '.') return zone.nxdomain;
    const relative = qname.slice(0, qname.length - zone.suffix.length - 1);
    const labels = relative.split('.');
    const n = labels.length;
    // Spec 3.2: the kind label must be `svc` (pods are never served), with service and namespace before it.
    if (n < 3 || labels[n - 1] !== 'svc') return zone.nxdomain;
    const extras = n - 3;
    if (extras > (qtype === TYPE_SRV ? 3 : 2)) return zone.nxdomain;
    // Spec 3.1 step 4: a family the cluster does not support is NODATA, decided before the lookup.
    if ((qtype === TYPE_A && !this.options.families.v4) || (qtype === TYPE_AAAA && !this.options.families.v6)) return zone.nodata;
    const view = this.views.get(`${labels[n - 3]}.${labels[n - 2]}`);
    if (!view) return zone.nxdomain;
    const service = view.service;
    if (qtype === TYPE_SRV) {
      // An unknown port: NODATA, or NXDOMAIN for a clusterset-IP service still waiting for its IP.
      if (extras === 2) return service.type === 'ClusterSetIP' && noIpYet(service) ? zone.nxdomain : zone.nodata;
      // `_p._t.<cluster>.<svc>` for an unknown port is NODATA when the cluster has SRV names.
      if (extras === 3) return this.hasSrvCluster(service, labels[2]!) ? zone.nodata : zone.nxdomain;
      return extras === 0 ? zone.nodata : zone.nxdomain;
    }
    if (extras === 2 && service.type === 'ClusterSetIP') {
      // Spec 3.3: `<anything>.<cluster>.<svc>` answers as `<cluster>.<svc>`; the host label is ignored.
      const make = this.find(view, zone, qtype === TYPE_A ? 'a' : 'aaaa', `${labels[1]}.${baseName(service, zone)}`);
      const entry = make?.();
      if (entry?.kind === 'answer') return entry;
    }
    return extras === 0 ? zone.nodata : zone.nxdomain;
  }

  /** A cluster (lower-case) with SRV names: it has data in a supported family. */
  private hasSrvCluster(service: Service, label: string): boolean {
    const families = this.options.families;
    for (const cluster of clustersOf(service)) {
      if (cluster.toLowerCase() !== label) continue;
      const v4 = families.v4 ? service.v4.clusters.get(cluster) : undefined;
      const v6 = families.v6 ? service.v6.clusters.get(cluster) : undefined;
      if (service.type === 'ClusterSetIP' ? (v4 ?? v6)?.records[0] !== undefined : v4 !== undefined || v6 !== undefined) return true;
    }
    return false;
  }

  // --- PTR -----------------------------------------------------------------------------------

  /** Replaces the PTR names of one service; they are few and kept built, unlike the rest. */
  private refreshPtr(key: string, service: Service | undefined): void {
    for (const name of this.ownedPtr.get(key) ?? []) {
      const targets = this.ptrTargets.get(name);
      targets?.delete(key);
      this.setPtr(name, targets);
    }
    this.ownedPtr.delete(key);
    if (service) this.addPtr(key, service);
  }

  /** PTR for clusterset IPs, per-cluster service IPs and headless endpoints (KEP-1645 §DNS, PTR). */
  private addPtr(key: string, service: Service): void {
    const zone = this.forwardZones[0]!;
    const base = baseName(service, zone);
    const targets = new Map<string, string[]>();
    const add = (ip: string, target: string): void => {
      const name = reverseName(ip);
      if (!name || this.matchReverse(name) === undefined) return;
      const list = targets.get(name);
      if (list) {
        if (!list.includes(target)) list.push(target);
      } else targets.set(name, [target]);
    };
    if (service.type === 'ClusterSetIP') for (const ip of service.ips) add(ip, base);
    for (const family of [service.v4, service.v6]) {
      for (const [cluster, data] of family.clusters) {
        for (const record of data.records) add(record.ip, service.type === 'Headless' ? `${record.hostname}.${cluster}.${base}` : `${cluster}.${base}`);
      }
    }
    const owned: string[] = [];
    for (const [name, list] of targets) {
      let byService = this.ptrTargets.get(name);
      if (!byService) this.ptrTargets.set(name, (byService = new Map()));
      byService.set(key, list);
      this.setPtr(name, byService);
      owned.push(name);
    }
    this.ownedPtr.set(key, exact(owned));
  }

  private matchReverse(name: string): ZoneInfo | undefined {
    const zone = this.matchZone(name);
    return zone?.isReverse ? zone : undefined;
  }

  private setPtr(name: string, byService: Map<string, string[]> | undefined): void {
    if (!byService || byService.size === 0) {
      this.ptr.delete(name);
      this.ptrTargets.delete(name);
      return;
    }
    const writer = new RecordWriter(this.ttl);
    for (const list of byService.values()) for (const target of list) writer.ptr(target);
    this.ptr.set(name, positive(writer, null, []));
  }

  // --- shared by the builders ----------------------------------------------------------------

  servedCell(cluster: string): ServedCell {
    return this.options.servedCell(cluster);
  }

  /** `[[cell, n]]` for one cluster, shared by every answer with that count (most answers). */
  servedOne(cluster: string, n: number): readonly (readonly [ServedCell, number])[] {
    const key = `${n} ${cluster}`;
    let served = this.servedSingles.get(key);
    if (!served) this.servedSingles.set(key, (served = [[this.servedCell(cluster), n] as const]));
    return served;
  }

  get families(): Families {
    return this.options.families;
  }

  get ttlSeconds(): number {
    return this.ttl;
  }

  get localClusterId(): string {
    return this.store.localClusterId;
  }

  isConnected(cluster: string): boolean {
    return this.store.isConnected(cluster);
  }
}

function viewKey(name: string, namespace: string): string {
  return `${name.toLowerCase()}.${namespace.toLowerCase()}`;
}

function baseName(service: Service, zone: ZoneInfo): string {
  return `${service.name.toLowerCase()}.${service.namespace.toLowerCase()}.svc.${zone.suffix}`;
}

/** `name` is `zone` or below it. */
function isUnder(name: string, zone: ZoneInfo): boolean {
  if (zone.name === '.') return true;
  return name.length === zone.name.length ? name === zone.name : name.endsWith(zone.name) && name.charCodeAt(name.length - zone.name.length - 1) === 0x2e;
}

/** A ClusterSetIP service that asks for a clusterset IP it does not have yet answers NXDOMAIN. */
function noIpYet(service: Service): boolean {
  return service.ips.length === 0 && service.clustersetIpWanted;
}

/** IPv4 clusters, then IPv6-only ones: the order names are enumerated in. */
function clustersOf(service: Service): Set<string> {
  return new Set([...service.v4.clusters.keys(), ...service.v6.clusters.keys()]);
}

/** The balancer walk of spec 3.3 step 4 over prebuilt bodies. */
function pick(entry: Balanced): Answer {
  for (const stage of entry.stages) {
    if (stage.kind === 'answer') return stage;
    const index = stage.balancer.selectPresent(stage.answers);
    if (index >= 0) return stage.answers[index]!;
  }
  return entry.none;
}

function positive(writer: RecordWriter, zone: ZoneInfo | null, served: readonly (readonly [ServedCell, number])[]): Answer {
  return {
    kind: 'answer',
    rcode: Rcode.NOERROR,
    outcome: Outcome.success,
    ancount: writer.count,
    body: writer.body(),
    zoneOffsets: zone && writer.zoneOffsets.length > 0 ? exact(writer.zoneOffsets) : null,
    soaZone: null,
    served,
  };
}

/** A port a query asks for: lower-case name and protocol (spec 3.2). */
type PortQuery = readonly [name: string, protocol: string];

/** One SRV source: a record's ports and the target its RRs point to. */
interface SrvSource {
  readonly target: string;
  readonly ports: readonly Port[];
  readonly cluster: string;
}

/**
 * Enumerates the names of one service in one forward zone, in the order the table has always
 * defined them (a later equal name wins), each with a function that builds its entry. Names are
 * cheap to enumerate; only the entry asked for is built.
 */
class ServiceBuilder {
  private readonly zoneWire: number;
  private readonly clusterAddresses = { v4: new Map<string, Answer>(), v6: new Map<string, Answer>() };

  constructor(
    private readonly table: AnswerTable,
    private readonly service: Service,
    private readonly zone: ZoneInfo,
    private readonly base: string,
    private readonly sink: NameSink,
  ) {
    this.zoneWire = zone.wire.length;
  }

  // --- ClusterSetIP (spec 3.3) ---------------------------------------------------------------

  clusterSetIp(): void {
    const { service, table, zone, base, sink } = this;
    const families = table.families;
    const waiting = noIpYet(service);
    if (families.v4) sink.offer('a', base, () => this.clustersetAddress('v4', waiting));
    if (families.v6) sink.offer('aaaa', base, () => this.clustersetAddress('v6', waiting));

    // Bare SRV and every `port.proto` variant share the family balancers with A (spec 4.2).
    const portQueries = new Map<string, PortQuery>();
    const addPorts = (ports: readonly Port[]): void => {
      for (const port of ports) {
        if (port.name === '') continue;
        const q: PortQuery = [port.name.toLowerCase(), port.protocol.toLowerCase()];
        portQueries.set(`${q[0]}.${q[1]}`, q);
      }
    };
    if (service.ips.length > 0) addPorts(service.ports);
    else for (const family of this.supportedFamilies()) addPorts(family.mergedPorts);
    for (const [prefix, q] of [['', null] as const, ...[...portQueries].map(([p, q]) => [`${p}.`, q] as const)]) {
      sink.offer('srv', prefix + base, (): Entry => {
        if (service.ips.length > 0) return this.srvAnswer([{ target: base, ports: service.ports, cluster: '' }], q);
        if (waiting) return zone.nxdomain;
        return this.balanced(this.supportedFamilies(), (cluster, _data, family) => this.srvAnswer([{ target: base, ports: family.mergedPorts, cluster }], q));
      });
    }

    // Cluster-specific names ignore health and connectivity (spec 3.3 step 1).
    for (const cluster of clustersOf(service)) {
      const name = `${cluster.toLowerCase()}.${base}`;
      const v4 = families.v4 ? service.v4.clusters.get(cluster) : undefined;
      const v6 = families.v6 ? service.v6.clusters.get(cluster) : undefined;
      if (v4) sink.offer('a', name, () => this.clusterAddress('v4', cluster, v4));
      if (v6) sink.offer('aaaa', name, () => this.clusterAddress('v6', cluster, v6));
      // SRV tries the IPv4 state, then IPv6 (spec 3.3, Profile B).
      const record = (v4 ?? v6)?.records[0];
      if (!record) continue;
      const source: SrvSource = { target: name, ports: record.ports, cluster };
      sink.offer('srv', name, () => this.srvAnswer([source], null));
      for (const q of portQueriesOf(record.ports)) sink.offer('srv', `${q[0]}.${q[1]}.${name}`, () => this.srvAnswer([source], q));
    }
  }

  /** One A/AAAA body per cluster serves both `<cluster>.<svc>` and the balancer's pick for `<svc>`. */
  private clusterAddress(familyName: 'v4' | 'v6', cluster: string, data: ClusterData): Answer {
    const answers = this.clusterAddresses[familyName];
    let answer = answers.get(cluster);
    if (!answer) answers.set(cluster, (answer = this.addressAnswer(data.records.slice(0, 1))));
    return answer;
  }

  /** A or AAAA on the bare name: clusterset IPs, else local, else the balancer (spec 3.3 steps 2-5). */
  private clustersetAddress(familyName: 'v4' | 'v6', waiting: boolean): Entry {
    const { service, zone } = this;
    if (service.ips.length > 0) {
      // KEP-1645: A for the IPv4 clusterset IPs, AAAA for the IPv6 ones.
      const ips = service.ips.filter((ip) => (ip.includes(':') ? 'v6' : 'v4') === familyName);
      return ips.length > 0 ? this.addressAnswer(ips.map((ip) => ({ ip, ports: [], hostname: '', cluster: '' }))) : zone.nodata;
    }
    if (waiting) return zone.nxdomain;
    return this.balanced([service.family(familyName)], (cluster, data) => this.clusterAddress(familyName, cluster, data));
  }

  /** Stages for the families given: a healthy local cluster answers alone, else the family's balancer. */
  private balanced(families: readonly FamilyData[], make: (cluster: string, data: ClusterData, family: FamilyData) => Answer): Entry {
    const stages: (Answer | BalancedStage)[] = [];
    const local = this.table.localClusterId;
    for (const family of families) {
      if (family.clusters.size === 0) continue;
      const localData = local === '' ? undefined : family.clusters.get(local);
      if (localData?.healthy) {
        stages.push(make(local, localData, family));
        break;
      }
      const balancer = family.balancer;
      const answers: (Answer | null)[] = [];
      for (let i = 0; i < balancer.size; i++) {
        const cluster = balancer.keyAt(i);
        const data = family.clusters.get(cluster);
        answers.push(data && data.healthy && this.table.isConnected(cluster) ? make(cluster, data, family) : null);
      }
      stages.push({ kind: 'stage', balancer, answers: exact(answers) });
    }
    const first = stages[0];
    if (first === undefined) return this.zone.nodata;
    if (first.kind === 'answer') return first;
    return { kind: 'balanced', stages: exact(stages), none: this.zone.nodata };
  }

  // --- Headless (spec 3.4) -------------------------------------------------------------------

  headless(): void {
    const { service, table, base, sink } = this;
    const families = table.families;
    const connected = (family: FamilyData): DnsRecord[] => {
      const out: DnsRecord[] = [];
      for (const [cluster, data] of family.clusters) if (table.isConnected(cluster)) out.push(...data.records);
      return out;
    };
    if (families.v4) sink.offer('a', base, () => this.addressAnswer(connected(service.v4)));
    if (families.v6) sink.offer('aaaa', base, () => this.addressAnswer(connected(service.v6)));
    this.offerSrvFamily(base, this.supportedFamilies().flatMap(connected));

    for (const cluster of clustersOf(service)) {
      const name = `${cluster.toLowerCase()}.${base}`;
      const v4 = families.v4 ? service.v4.clusters.get(cluster) : undefined;
      const v6 = families.v6 ? service.v6.clusters.get(cluster) : undefined;
      if (v4) sink.offer('a', name, () => this.addressAnswer(v4.records));
      if (v6) sink.offer('aaaa', name, () => this.addressAnswer(v6.records));
      if (!v4 && !v6) continue;
      this.offerSrvFamily(name, [...(v4?.records ?? []), ...(v6?.records ?? [])]);
      // Host names only matter to a lookup of a name under this cluster's.
      if (sink.target !== null && !sink.target.endsWith(`.${name}`)) continue;
      for (const [map, data] of [['a', v4], ['aaaa', v6]] as const) {
        if (!data) continue;
        // Host names are DNS labels; they are matched without regard to case, like every DNS name.
        for (const [host, records] of byHost(data.records)) sink.offer(map, `${host.toLowerCase()}.${name}`, () => this.addressAnswer(records));
      }
    }
  }

  /** SRV for `name` and every `port.proto.name` over headless records (targets name the record's host and cluster). */
  private offerSrvFamily(name: string, records: readonly DnsRecord[]): void {
    let sources: SrvSource[] | undefined;
    const sourcesOf = (): SrvSource[] =>
      (sources ??= records.map((record) => ({ target: `${record.hostname}.${record.cluster}.${this.base}`, ports: record.ports, cluster: record.cluster })));
    this.sink.offer('srv', name, () => this.srvAnswer(sourcesOf(), null));
    const queries = new Map<string, PortQuery>();
    for (const record of records) for (const q of portQueriesOf(record.ports)) queries.set(`${q[0]}.${q[1]}`, q);
    for (const [prefix, q] of queries) this.sink.offer('srv', `${prefix}.${name}`, () => this.srvAnswer(sourcesOf(), q));
  }

  // --- records -------------------------------------------------------------------------------

  private supportedFamilies(): FamilyData[] {
    const out: FamilyData[] = [];
    if (this.table.families.v4) out.push(this.service.v4);
    if (this.table.families.v6) out.push(this.service.v6);
    return out;
  }

  /** One A/AAAA per record, owner = the question (spec 3.6); none → NODATA. */
  private addressAnswer(records: readonly DnsRecord[]): Answer {
    if (records.length === 0) return this.zone.nodata;
    const writer = new RecordWriter(this.table.ttlSeconds);
    const counts = new Map<string, number>();
    for (const record of records) {
      if (writer.address(record.ip)) counts.set(record.cluster, (counts.get(record.cluster) ?? 0) + 1);
    }
    if (writer.count === 0) return this.zone.nodata;
    return positive(writer, this.zone, this.served(counts));
  }

  /**
   * SRV per requested port of every source (spec 3.7): a source with none of the requested ports
   * voids the whole answer (NODATA); within a source a port number is written once (Profile B).
   */
  private srvAnswer(sources: readonly SrvSource[], query: PortQuery | null): Answer {
    const writer = new RecordWriter(this.table.ttlSeconds);
    const counts = new Map<string, number>();
    for (const source of sources) {
      const ports = query === null ? source.ports : source.ports.filter((p) => p.name.toLowerCase() === query[0] && p.protocol.toLowerCase() === query[1]);
      if (ports.length === 0) return this.zone.nodata;
      const seen = new Set<number>();
      for (const port of ports) {
        if (seen.has(port.port)) continue;
        seen.add(port.port);
        writer.srv(port.port, source.target, this.zoneWire);
        counts.set(source.cluster, (counts.get(source.cluster) ?? 0) + 1);
      }
    }
    if (writer.count === 0) return this.zone.nodata;
    return positive(writer, this.zone, this.served(counts));
  }

  private served(counts: Map<string, number>): readonly (readonly [ServedCell, number])[] {
    if (counts.size === 1) {
      for (const [cluster, n] of counts) return this.table.servedOne(cluster, n);
    }
    return [...counts].map(([cluster, n]) => [this.table.servedCell(cluster), n] as const);
  }
}

/** Records by host name, in order of each name's first record. */
function byHost(records: readonly DnsRecord[]): Map<string, DnsRecord[]> {
  const out = new Map<string, DnsRecord[]>();
  for (const record of records) {
    const list = out.get(record.hostname);
    if (list) list.push(record);
    else out.set(record.hostname, [record]);
  }
  return out;
}

function portQueriesOf(ports: readonly Port[]): PortQuery[] {
  const out = new Map<string, PortQuery>();
  for (const port of ports) {
    if (port.name === '') continue;
    const q: PortQuery = [port.name.toLowerCase(), port.protocol.toLowerCase()];
    out.set(`${q[0]}.${q[1]}`, q);
  }
  return [...out.values()];
}
