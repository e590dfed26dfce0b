/**
 * The answer table: every name the store can answer, precomputed per (name, qtype) as wire bytes.
 * A query is a map lookup plus an ID and question copy; only ClusterSetIP names without a
 * clusterset IP and without a healthy local cluster run the balancer, which picks one of the
 * precomputed per-cluster bodies. When the store reports a changed service, that service's
 * entries are rebuilt and swapped in synchronously, so a query sees either the old or the new set.
 *
 * Names that cannot be listed (`<anything>.<cluster>.<svc>...` on a ClusterSetIP service, an
 * unknown port, a misspelt kind label) fall to {@link AnswerTable.resolveMiss}, which parses the
 * name once and answers from the per-service summary or the zone's shared negative answers.
 */
import { Rcode } from '@foghorn/core';
import { reverseName } from './addresses.js';
import type { ClusterData, DnsRecord, FamilyData, Port, Service, ServiceStore, StoreChange } from './store.js';
import type { SmoothWeightedRoundRobin } from './swrr.js';
import { encodeName, encodeSoaTail, RecordWriter, TYPE_A, TYPE_AAAA, TYPE_SRV } from './wire.js';

/** Services rebuilt per event-loop turn after a connectivity change (about 10 ms of work). */
const rebuildChunk = 1000;

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

/** What a miss on a service's names resolves to, without listing every possible name. */
interface ServiceNames {
  readonly type: Service['type'];
  /** SRV with a `port.proto` nobody exports: NODATA, or NXDOMAIN for a clusterset-IP service without its IP. */
  readonly portMiss: Answer;
  /** Clusters with an SRV entry: `_p._t.<cluster>.<svc>` for an unknown port is NODATA, else NXDOMAIN. */
  readonly srvClusters: ReadonlySet<string>;
}

/** Keys a service owns in each map, so a rebuild can remove exactly them. */
interface OwnedKeys {
  readonly a: string[];
  readonly aaaa: string[];
  readonly srv: string[];
  readonly bases: string[];
  readonly ptr: string[];
}

/** The per-block answer table over a shared store. */
export class AnswerTable {
  readonly a = new Map<string, Entry>();
  readonly aaaa = new Map<string, Entry>();
  readonly srv = new Map<string, Entry>();
  readonly txt = new Map<string, Answer>();
  readonly ptr = new Map<string, Answer>();
  private readonly services = new Map<string, ServiceNames>();
  private readonly owned = new Map<string, OwnedKeys>();
  /** PTR targets per reverse name and owning service, so shared addresses keep every target. */
  private readonly ptrTargets = new Map<string, Map<string, string[]>>();
  /** Zones longest first, so the most specific zone wins (spec 3.1 step 1). */
  readonly zones: readonly ZoneInfo[];
  private readonly forwardZones: readonly ZoneInfo[];
  private readonly reverseZones: readonly ZoneInfo[];
  private readonly ttl: number;
  private unsubscribe: (() => void) | undefined;
  private readonly servedSingles = new Map<string, readonly (readonly [ServedCell, number])[]>();
  /** Services a connectivity change still has to rebuild (see {@link scheduleDrain}). */
  private readonly pending = new Set<string>();
  private drain: NodeJS.Immediate | undefined;

  constructor(
    private readonly store: ServiceStore,
    private readonly options: TableOptions,
  ) {
    this.ttl = options.ttlSeconds;
    const zones = [...new Set(options.zones)].map((zone) => new ZoneInfo(zone, options.ttlSeconds));
    this.zones = zones.sort((x, y) => y.name.length - x.name.length);
    this.forwardZones = zones.filter((zone) => !zone.isReverse);
    this.reverseZones = zones.filter((zone) => zone.isReverse);
    for (const zone of this.forwardZones) {
      // KEP-1645 schema version record, `dns-version.<zone> TXT "1.0.0"`.
      const writer = new RecordWriter(this.ttl);
      writer.txt('1.0.0');
      this.txt.set(`dns-version.${zone.suffix}`, positive(writer, zone, []));
    }
  }

  /** Builds every entry from the store and follows its changes until {@link close}. */
  open(): void {
    for (const key of this.store.services.keys()) this.rebuild(key);
    this.setSerial();
    this.unsubscribe = this.store.subscribe((change) => this.apply(change));
  }

  close(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    if (this.drain !== undefined) clearImmediate(this.drain);
    this.drain = undefined;
    this.pending.clear();
  }

  /** Number of names indexed (A, AAAA, SRV, PTR), for tests and the README's memory figures. */
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
    if (change.all) {
      // Connectivity or the local cluster changed: every service may answer differently.
      for (const key of this.owned.keys()) this.pending.add(key);
      for (const key of this.store.services.keys()) this.pending.add(key);
      if (this.pending.size <= rebuildChunk) this.flush();
      else this.scheduleDrain();
    }
    for (const key of change.services) this.rebuild(key);
    this.setSerial();
  }

  /** Rebuilds every service a connectivity change left pending, now (tests, small tables). */
  flush(): void {
    for (const key of this.pending) this.rebuild(key);
    this.pending.clear();
  }

  /**
   * A big table is rebuilt a chunk per event-loop turn, so queries keep being answered while a
   * Gateway change works through 50,000 services (each service flips whole, never half-built).
   */
  private scheduleDrain(): void {
    if (this.drain !== undefined) return;
    this.drain = setImmediate(() => {
      this.drain = undefined;
      let n = 0;
      for (const key of this.pending) {
        this.pending.delete(key);
        this.rebuild(key);
        if (++n >= rebuildChunk) break;
      }
      if (this.pending.size > 0) this.scheduleDrain();
    });
  }

  private setSerial(): void {
    const serial = Math.floor(this.store.lastChangeMs / 1000);
    for (const zone of this.zones) zone.setSerial(serial);
  }

  // --- lookups -------------------------------------------------------------------------------

  /** A, AAAA or SRV (`map` is the type's map; SRV names come with leading underscores stripped). */
  lookup(map: Map<string, Entry>, qname: string, qtype: number, zone: ZoneInfo): Answer {
    const entry = map.get(qname);
    if (entry === undefined) return zone.isReverse ? this.reverseOther(qname, zone) : this.resolveMiss(qname, qtype, zone);
    if (entry.kind === 'answer') return entry;
    return pick(entry);
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

  private reverseOther(qname: string, zone: ZoneInfo): Answer {
    return this.ptr.has(qname) ? zone.nodata : zone.nxdomain;
  }

  /** Whether any record type exists at `qname` (never advances a balancer). */
  private exists(qname: string, zone: ZoneInfo): boolean {
    if (this.a.has(qname) || this.aaaa.has(qname) || this.srv.has(qname) || this.txt.has(qname)) return true;
    return this.resolveMiss(qname, TYPE_A, zone).rcode === Rcode.NOERROR;
  }

  /** Spec 3.1-3.5 for names that are not listed: parse once, then answer from the service summary. */
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
    const base = `${labels[n - 3]}.${labels[n - 2]}.svc.${zone.suffix}`;
    const names = this.services.get(base);
    if (!names) return zone.nxdomain;
    if (qtype === TYPE_SRV) {
      if (extras === 2) return names.portMiss;
      if (extras === 3) return names.srvClusters.has(labels[2]!) ? zone.nodata : zone.nxdomain;
      return extras === 0 ? zone.nodata : zone.nxdomain;
    }
    if (extras === 2 && names.type === 'ClusterSetIP') {
      // Spec 3.3: `<anything>.<cluster>.<svc>` answers as `<cluster>.<svc>`; the host label is ignored.
      const entry = (qtype === TYPE_A ? this.a : this.aaaa).get(`${labels[1]}.${base}`);
      if (entry?.kind === 'answer') return entry;
    }
    return extras === 0 ? zone.nodata : zone.nxdomain;
  }

  // --- building ------------------------------------------------------------------------------

  /** Replaces every entry of one service (`namespace/name`) with what the store holds now. */
  private rebuild(key: string): void {
    const old = this.owned.get(key);
    if (old) this.drop(key, old);
    const service = this.store.services.get(key);
    if (!service) return;
    const owned: OwnedKeys = { a: [], aaaa: [], srv: [], bases: [], ptr: [] };
    for (const zone of this.forwardZones) {
      const base = `${service.name.toLowerCase()}.${service.namespace.toLowerCase()}.svc.${zone.suffix}`;
      const builder = new ServiceBuilder(this, service, zone, base, owned);
      this.services.set(base, service.type === 'Headless' ? builder.headless() : builder.clusterSetIp());
      owned.bases.push(base);
    }
    if (this.reverseZones.length > 0 && this.forwardZones.length > 0) this.addPtr(key, service, owned);
    this.owned.set(key, owned);
  }

  private drop(key: string, owned: OwnedKeys): void {
    for (const name of owned.a) this.a.delete(name);
    for (const name of owned.aaaa) this.aaaa.delete(name);
    for (const name of owned.srv) this.srv.delete(name);
    for (const base of owned.bases) this.services.delete(base);
    for (const name of owned.ptr) {
      const targets = this.ptrTargets.get(name);
      targets?.delete(key);
      this.setPtr(name, targets);
    }
    this.owned.delete(key);
  }

  set(map: 'a' | 'aaaa' | 'srv', name: string, entry: Entry, owned: OwnedKeys): void {
    this[map].set(name, entry);
    owned[map].push(name);
  }

  /** PTR for clusterset IPs, per-cluster service IPs and headless endpoints (KEP-1645 §DNS, PTR). */
  private addPtr(key: string, service: Service, owned: OwnedKeys): void {
    const zone = this.forwardZones[0]!;
    const base = `${service.name.toLowerCase()}.${service.namespace.toLowerCase()}.svc.${zone.suffix}`;
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
    for (const [name, list] of targets) {
      let byService = this.ptrTargets.get(name);
      if (!byService) this.ptrTargets.set(name, (byService = new Map()));
      byService.set(key, list);
      this.setPtr(name, byService);
      owned.ptr.push(name);
    }
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

  /** Shared by the builders. */
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

/** The balancer walk of spec 3.3 step 4 over precomputed bodies. */
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
    zoneOffsets: zone && writer.zoneOffsets.length > 0 ? writer.zoneOffsets : null,
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

/** Builds the entries of one service in one forward zone. */
class ServiceBuilder {
  private readonly zoneWire: number;
  private readonly clusterAddresses = { v4: new Map<string, Answer>(), v6: new Map<string, Answer>() };

  constructor(
    private readonly table: AnswerTable,
    private readonly service: Service,
    private readonly zone: ZoneInfo,
    private readonly base: string,
    private readonly owned: OwnedKeys,
  ) {
    this.zoneWire = zone.wire.length;
  }

  // --- ClusterSetIP (spec 3.3) ---------------------------------------------------------------

  clusterSetIp(): ServiceNames {
    const { service, table, zone, base } = this;
    const families = table.families;
    const noIpYet = service.ips.length === 0 && service.clustersetIpWanted;
    // One A/AAAA body per cluster serves both `<cluster>.<svc>` and the balancer's pick for `<svc>`.
    for (const [family, answers] of [[service.v4, this.clusterAddresses.v4], [service.v6, this.clusterAddresses.v6]] as const) {
      for (const [cluster, data] of family.clusters) answers.set(cluster, this.addressAnswer(data.records.slice(0, 1)));
    }
    if (families.v4) this.table.set('a', base, this.clustersetAddress('v4', noIpYet), this.owned);
    if (families.v6) this.table.set('aaaa', base, this.clustersetAddress('v6', noIpYet), this.owned);

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
      let entry: Entry;
      if (service.ips.length > 0) {
        entry = this.srvAnswer([{ target: base, ports: service.ports, cluster: '' }], q);
      } else if (noIpYet) {
        entry = zone.nxdomain;
      } else {
        entry = this.balanced(this.supportedFamilies(), (cluster, _data, family) => this.srvAnswer([{ target: base, ports: family.mergedPorts, cluster }], q));
      }
      this.table.set('srv', prefix + base, entry, this.owned);
    }

    // Cluster-specific names ignore health and connectivity (spec 3.3 step 1).
    const srvClusters = new Set<string>();
    const clusters = new Set([...service.v4.clusters.keys(), ...service.v6.clusters.keys()]);
    for (const cluster of clusters) {
      const name = `${cluster.toLowerCase()}.${base}`;
      const v4 = families.v4 ? service.v4.clusters.get(cluster) : undefined;
      const v6 = families.v6 ? service.v6.clusters.get(cluster) : undefined;
      if (v4) this.table.set('a', name, this.clusterAddresses.v4.get(cluster)!, this.owned);
      if (v6) this.table.set('aaaa', name, this.clusterAddresses.v6.get(cluster)!, this.owned);
      // SRV tries the IPv4 state, then IPv6 (spec 3.3, Profile B).
      const record = (v4 ?? v6)?.records[0];
      if (!record) continue;
      srvClusters.add(cluster.toLowerCase());
      const source: SrvSource = { target: name, ports: record.ports, cluster };
      this.table.set('srv', name, this.srvAnswer([source], null), this.owned);
      for (const q of portQueriesOf(record.ports)) this.table.set('srv', `${q[0]}.${q[1]}.${name}`, this.srvAnswer([source], q), this.owned);
    }
    return { type: 'ClusterSetIP', portMiss: noIpYet ? zone.nxdomain : zone.nodata, srvClusters };
  }

  /** A or AAAA on the bare name: clusterset IPs, else local, else the balancer (spec 3.3 steps 2-5). */
  private clustersetAddress(familyName: 'v4' | 'v6', noIpYet: boolean): Entry {
    const { service, zone } = this;
    if (service.ips.length > 0) {
      // KEP-1645: A for the IPv4 clusterset IPs, AAAA for the IPv6 ones.
      const ips = service.ips.filter((ip) => (ip.includes(':') ? 'v6' : 'v4') === familyName);
      return ips.length > 0 ? this.addressAnswer(ips.map((ip) => ({ ip, ports: [], hostname: '', cluster: '' }))) : zone.nodata;
    }
    if (noIpYet) return zone.nxdomain;
    const answers = this.clusterAddresses[familyName];
    return this.balanced([service.family(familyName)], (cluster) => answers.get(cluster)!);
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
      stages.push({ kind: 'stage', balancer, answers });
    }
    const first = stages[0];
    if (first === undefined) return this.zone.nodata;
    if (first.kind === 'answer') return first;
    return { kind: 'balanced', stages, none: this.zone.nodata };
  }

  // --- Headless (spec 3.4) -------------------------------------------------------------------

  headless(): ServiceNames {
    const { service, table, base } = this;
    const families = table.families;
    const connected = (family: FamilyData): DnsRecord[] => {
      const out: DnsRecord[] = [];
      for (const [cluster, data] of family.clusters) if (table.isConnected(cluster)) out.push(...data.records);
      return out;
    };
    if (families.v4) table.set('a', base, this.addressAnswer(connected(service.v4)), this.owned);
    if (families.v6) table.set('aaaa', base, this.addressAnswer(connected(service.v6)), this.owned);
    const all = this.supportedFamilies().flatMap(connected);
    this.setSrvFamily(base, all);

    const srvClusters = new Set<string>();
    const clusters = new Set([...service.v4.clusters.keys(), ...service.v6.clusters.keys()]);
    for (const cluster of clusters) {
      const name = `${cluster.toLowerCase()}.${base}`;
      const v4 = families.v4 ? service.v4.clusters.get(cluster) : undefined;
      const v6 = families.v6 ? service.v6.clusters.get(cluster) : undefined;
      if (v4) table.set('a', name, this.addressAnswer(v4.records), this.owned);
      if (v6) table.set('aaaa', name, this.addressAnswer(v6.records), this.owned);
      if (!v4 && !v6) continue;
      srvClusters.add(cluster.toLowerCase());
      this.setSrvFamily(name, [...(v4?.records ?? []), ...(v6?.records ?? [])]);
      for (const [map, data] of [['a', v4], ['aaaa', v6]] as const) {
        if (!data) continue;
        // Host names are DNS labels; they are matched without regard to case, like every DNS name.
        for (const [host, records] of data.byHost) table.set(map, `${host.toLowerCase()}.${name}`, this.addressAnswer(records), this.owned);
      }
    }
    return { type: 'Headless', portMiss: this.zone.nodata, srvClusters };
  }

  /** SRV for `name` and every `port.proto.name` over headless records (targets name the record's host and cluster). */
  private setSrvFamily(name: string, records: readonly DnsRecord[]): void {
    const sources = records.map((record) => ({ target: `${record.hostname}.${record.cluster}.${this.base}`, ports: record.ports, cluster: record.cluster }));
    this.table.set('srv', name, this.srvAnswer(sources, null), this.owned);
    const queries = new Map<string, PortQuery>();
    for (const record of records) for (const q of portQueriesOf(record.ports)) queries.set(`${q[0]}.${q[1]}`, q);
    for (const [prefix, q] of queries) this.table.set('srv', `${prefix}.${name}`, this.srvAnswer(sources, q), this.owned);
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

function portQueriesOf(ports: readonly Port[]): PortQuery[] {
  const out = new Map<string, PortQuery>();
  for (const port of ports) {
    if (port.name === '') continue;
    const q: PortQuery = [port.name.toLowerCase(), port.protocol.toLowerCase()];
    out.set(`${q[0]}.${q[1]}`, q);
  }
  return [...out.values()];
}
