/**
 * The answer table: answers as wire bytes per (name, qtype), built on a name's first query and
 * cached. A cached query is a map lookup plus an ID and question copy; only ClusterSetIP names
 * without a clusterset IP and without a healthy local cluster run the balancer, which picks one
 * of the cached per-cluster bodies.
 *
 * Why lazily: a clusterset of 50,000 services has about 700,000 answerable (name, type) pairs,
 * and building them all took 20 s and 700 MB, while a DNS server sees a small working set. The
 * table keeps only an index of services by name; answers are built from the store when first
 * asked for, kept in a bounded cache (answer-cache.ts), and invalidated per service: every
 * cached answer points at its service's view, which a change of that service marks stale, so a
 * query sees the service either before or after the change. A connectivity or local-cluster
 * change empties the cache at once instead of rebuilding every service.
 *
 * Which names exist and what they answer follows one enumeration per service (names.ts); a
 * lookup walks it for the name asked and builds only that answer. Names it does not list
 * (`<anything>.<cluster>.<svc>...` on a ClusterSetIP service, an unknown port, a misspelt kind
 * label) fall to {@link AnswerTable.resolveMiss}, which parses the name once. PTR answers live
 * in the reverse index (reverse.ts), query counters in counters.ts.
 */
import { Rcode, TYPE_A, TYPE_AAAA, TYPE_SRV } from '@foghorn/core';
import { anyAnswer, notImplemented, pick, positive, ZoneInfo } from './answer.js';
import type { Answer, Entry, Families } from './answer.js';
import { AnswerCaches, Cached, cacheCapacity } from './answer-cache.js';
import type { AnswerCache, MapName, ServiceView } from './answer-cache.js';
import { ServedCells } from './counters.js';
import type { ServedCell } from './counters.js';
import { baseName, clustersOf, Finder, noIpYet, ServiceBuilder } from './names.js';
import type { NameContext } from './names.js';
import { ReverseIndex } from './reverse.js';
import type { Service, ServiceStore, StoreChange } from './store.js';
import { RecordWriter } from './wire.js';

export type { Families } from './answer.js';

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

/** The per-block answer table over a shared store. */
export class AnswerTable implements NameContext {
  private readonly caches: AnswerCaches;
  readonly txt = new Map<string, Answer>();
  /** PTR answers, when the plugin serves both forward and reverse zones. */
  private readonly reverse: ReverseIndex | undefined;
  /** Services by lower-case `name.namespace`, the labels left of `svc` in every forward zone. */
  private readonly views = new Map<string, ServiceView>();
  /** Zones longest first, so the most specific zone wins (docs/compatibility.md, "Answers"). */
  readonly zones: readonly ZoneInfo[];
  private readonly forwardZones: readonly ZoneInfo[];
  private readonly reverseZones: readonly ZoneInfo[];
  /** A forward zone inside another: a name may then belong to a service of either zone. */
  private readonly nestedZones: boolean;
  private readonly ttl: number;
  private unsubscribe: (() => void) | undefined;
  readonly served: ServedCells;
  /**
   * Moves whenever a view is marked stale. A cached entry stamped with the current epoch is valid
   * without reading its view: a hit then touches one object fewer (see {@link lookup}).
   */
  private epoch = 0;

  constructor(
    private readonly store: ServiceStore,
    private readonly options: TableOptions,
    tuning: TableTuning = {},
  ) {
    this.ttl = options.ttlSeconds;
    const capacity = Math.max(1, tuning.cacheCapacity ?? cacheCapacity);
    this.caches = new AnswerCaches(capacity);
    this.served = new ServedCells(options.servedCell);
    const zones = [...new Set(options.zones)].map((zone) => new ZoneInfo(zone, options.ttlSeconds));
    this.zones = zones.sort((x, y) => y.name.length - x.name.length);
    this.forwardZones = zones.filter((zone) => !zone.isReverse);
    this.reverseZones = zones.filter((zone) => zone.isReverse);
    this.nestedZones = this.forwardZones.some((inner) => this.forwardZones.some((outer) => outer !== inner && isUnder(inner.name, outer)));
    const forward = this.forwardZones[0];
    if (forward !== undefined && this.reverseZones.length > 0) this.reverse = new ReverseIndex(forward, (name) => this.matchReverse(name), this.ttl);
    for (const zone of this.forwardZones) {
      // KEP-1645 schema version record, `dns-version.<zone> TXT "1.0.0"`.
      const writer = new RecordWriter(this.ttl);
      writer.txt('1.0.0');
      this.txt.set(`dns-version.${zone.suffix}`, positive(writer, zone, null));
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
    return this.caches.size + (this.reverse?.size ?? 0);
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
    this.caches.clear();
  }

  /** Replaces the view of one service (`namespace/name`); its cached answers become stale. */
  private refresh(key: string): void {
    const service = this.store.services.get(key);
    const slash = key.indexOf('/');
    const id = service ? viewKey(service.name, service.namespace) : viewKey(key.slice(slash + 1), key.slice(0, slash));
    const old = this.views.get(id);
    if (old) {
      old.valid = false;
      this.epoch++;
    }
    if (service) this.views.set(id, { key, service, valid: true });
    else if (old?.key === key) this.views.delete(id);
    this.reverse?.refresh(key, service);
  }

  private setSerial(): void {
    const serial = Math.floor(this.store.lastChangeMs / 1000);
    for (const zone of this.zones) zone.setSerial(serial);
  }

  // --- lookups -------------------------------------------------------------------------------

  /**
   * A, AAAA or SRV (SRV names come with leading underscores stripped). The hot path. Any other
   * type is NOTIMP: the handler answers those from {@link lookupPtr} and {@link lookupTxt}.
   */
  lookup(qname: string, qtype: number, zone: ZoneInfo): Answer {
    const cache = this.caches.of(qtype);
    if (cache === undefined) return notImplemented;
    const hit = cache.map.get(qname);
    if (hit !== undefined && (hit.epoch === this.epoch || this.revalidate(hit))) return hit.answer ?? pick(hit);
    const entry = this.resolve(cache, qname, qtype, zone);
    return entry.kind === 'answer' ? entry : pick(entry);
  }

  /**
   * A hit from before the latest service change: still good when its view is. Stamped with the
   * current epoch then, so the next hit skips the view again.
   */
  private revalidate(hit: Cached): boolean {
    if (!hit.view.valid) return false;
    hit.epoch = this.epoch;
    return true;
  }

  /** PTR: the answer in a reverse zone; in a forward zone only the name's existence matters. */
  lookupPtr(qname: string, zone: ZoneInfo): Answer {
    if (zone.isReverse) return this.reverse?.ptr.get(qname) ?? zone.nxdomain;
    return this.exists(qname, zone) ? zone.nodata : zone.nxdomain;
  }

  /** TXT: the KEP's `dns-version` record, else NODATA or NXDOMAIN by the name's existence. */
  lookupTxt(qname: string, zone: ZoneInfo): Answer {
    const answer = this.txt.get(qname);
    if (answer) return answer;
    if (zone.isReverse) return this.reverseOther(qname, zone);
    return this.exists(qname, zone) ? zone.nodata : zone.nxdomain;
  }

  /** ANY (RFC 8482): the synthesized HINFO where any record exists, else NXDOMAIN. */
  lookupAny(qname: string, zone: ZoneInfo): Answer {
    if (zone.isReverse) return this.reverse?.ptr.has(qname) === true ? anyAnswer : zone.nxdomain;
    return this.exists(qname, zone) ? anyAnswer : zone.nxdomain;
  }

  /** A cache miss: build the entry, and keep it when it belongs to a service. */
  private resolve(cache: AnswerCache, qname: string, qtype: number, zone: ZoneInfo): Entry {
    if (zone.isReverse) return this.reverseOther(qname, zone);
    const map = cache.mapName;
    // With nested zones another zone's service could take a name over: nothing is kept there.
    if (this.nestedZones) return this.listed(map, qname, zone) ?? this.resolveMiss(qname, qtype, zone);
    // Only names of a service are kept, with its view: a flood of random names must not push
    // out real answers.
    const view = this.viewOf(qname, zone);
    if (view === undefined) return this.labelsLeftOfSvc(qname, zone) === 2 ? this.noSuchService(qname, qtype, zone) : this.resolveMiss(qname, qtype, zone);
    const entry = this.find(view, zone, map, qname)?.() ?? this.resolveMiss(qname, qtype, zone);
    cache.set(qname, new Cached(entry, view, this.epoch));
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

  /**
   * How many labels stand left of `svc` in `qname`, a name under the forward zone `zone` shaped
   * `...<name>.<namespace>.svc.<zone>`: 2 for a service's own name; 0 when it has no such shape
   * or more labels (the name is then left to {@link resolveMiss}).
   */
  private labelsLeftOfSvc(qname: string, zone: ZoneInfo): number {
    if (qname.length === zone.name.length) return 0;
    const end = qname.length - zone.suffix.length - 1;
    if (end < 4 || qname.charCodeAt(end - 1) !== 0x63 || qname.charCodeAt(end - 2) !== 0x76 || qname.charCodeAt(end - 3) !== 0x73 || qname.charCodeAt(end - 4) !== 0x2e) return 0;
    const nsDot = qname.lastIndexOf('.', end - 5);
    return nsDot > 0 && nsDot < end - 5 && qname.lastIndexOf('.', nsDot - 1) < 0 ? 2 : 0;
  }

  /**
   * {@link resolveMiss} for `<name>.<namespace>.svc.<zone>` when no service has that name and
   * namespace, without splitting the name: a name nobody exports is a common query (a client's
   * search path, a service in another cluster set) and its answer is not cached.
   */
  private noSuchService(qname: string, qtype: number, zone: ZoneInfo): Answer {
    if (this.txt.has(qname)) return zone.nodata;
    const families = this.options.families;
    return (qtype === TYPE_A && !families.v4) || (qtype === TYPE_AAAA && !families.v6) ? zone.nodata : zone.nxdomain;
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
    return this.reverse?.ptr.has(qname) === true ? zone.nodata : zone.nxdomain;
  }

  /** Whether any record type exists at `qname` (never advances a balancer). */
  private exists(qname: string, zone: ZoneInfo): boolean {
    if (this.txt.has(qname) || this.listed(null, qname, zone) !== undefined) return true;
    return this.resolveMiss(qname, TYPE_A, zone).rcode === Rcode.NOERROR;
  }

  /** docs/compatibility.md, "Answers" for names that are not listed: parse once, then answer from the service. */
  resolveMiss(qname: string, qtype: number, zone: ZoneInfo): Answer {
    if (this.txt.has(qname)) return zone.nodata;
    if (qname.length === zone.name.length || zone.name === '.' && qname === '.') return zone.nxdomain;
    const relative = qname.slice(0, qname.length - zone.suffix.length - 1);
    const labels = relative.split('.');
    const n = labels.length;
    // docs/compatibility.md, "Names": the kind label must be `svc` (pods are never served), with service and namespace before it.
    if (n < 3 || labels[n - 1] !== 'svc') return zone.nxdomain;
    const extras = n - 3;
    if (extras > (qtype === TYPE_SRV ? 3 : 2)) return zone.nxdomain;
    // docs/compatibility.md, "Answers": a family the cluster does not support is NODATA, decided before the lookup.
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
      // docs/compatibility.md, "Answers": `<anything>.<cluster>.<svc>` answers as `<cluster>.<svc>`; the host label is ignored.
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

  private matchReverse(name: string): ZoneInfo | undefined {
    const zone = this.matchZone(name);
    return zone?.isReverse ? zone : undefined;
  }

  // --- shared by the builders ----------------------------------------------------------------

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

/** `name` is `zone` or below it. */
function isUnder(name: string, zone: ZoneInfo): boolean {
  if (zone.name === '.') return true;
  return name.length === zone.name.length ? name === zone.name : name.endsWith(zone.name) && name.charCodeAt(name.length - zone.name.length - 1) === 0x2e;
}
