/**
 * Which names a service has and what each answers: one enumeration per service, in a fixed
 * order where a later name replaces an earlier equal one, each name with a function that builds
 * its entry. Names are cheap to enumerate; only the entry asked for is built. The rules are
 * KEP-1645's DNS names (`<svc>.<ns>.svc.<zone>`, `<cluster>.<svc>...`, `<host>.<cluster>.<svc>...`,
 * `_<port>._<proto>.<svc>...`) as Lighthouse's coredns/resolver answers them.
 */
import type { Answer, Entry, Families, ZoneInfo } from './answer.js';
import { positive } from './answer.js';
import type { MapName } from './answer-cache.js';
import type { Served, ServedCells } from './counters.js';
import { exact } from './store.js';
import type { ClusterData, DnsRecord, FamilyData, Port, Service } from './store.js';
import type { BalancerState } from './swrr.js';
import { RecordWriter } from './wire.js';

/** What the builders need from the table that owns them. */
export interface NameContext {
  readonly families: Families;
  readonly ttlSeconds: number;
  readonly localClusterId: string;
  readonly served: ServedCells;
  isConnected(cluster: string): boolean;
}

/** Receives the names of one service in enumeration order, each with how to build its entry. */
export interface NameSink {
  /** When set, only names ending with this can matter (lets big loops be skipped). */
  readonly target: string | null;
  offer(map: MapName, name: string, make: () => Entry): void;
}

/** Finds the entry of one name: the last offer wins, as the last write to a map would. */
export class Finder implements NameSink {
  make: (() => Entry) | undefined;

  constructor(
    readonly map: MapName | null,
    readonly target: string,
  ) {}

  offer(map: MapName, name: string, make: () => Entry): void {
    if (name === this.target && (this.map === null || map === this.map)) this.make = make;
  }
}

export function baseName(service: Service, zone: ZoneInfo): string {
  return `${service.name.toLowerCase()}.${service.namespace.toLowerCase()}.svc.${zone.suffix}`;
}

/** A ClusterSetIP service that asks for a clusterset IP it does not have yet answers NXDOMAIN. */
export function noIpYet(service: Service): boolean {
  return service.ips.length === 0 && service.clustersetIpWanted;
}

/** IPv4 clusters, then IPv6-only ones: the order names are enumerated in. */
export function clustersOf(service: Service): Set<string> {
  return new Set([...service.v4.clusters.keys(), ...service.v6.clusters.keys()]);
}

/** A port a query asks for: lower-case name and protocol (docs/compatibility.md, "Names"). */
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
export class ServiceBuilder {
  private readonly zoneWire: number;
  private readonly clusterAddresses = { v4: new Map<string, Answer>(), v6: new Map<string, Answer>() };

  constructor(
    private readonly table: NameContext,
    private readonly service: Service,
    private readonly zone: ZoneInfo,
    private readonly base: string,
    private readonly sink: NameSink,
  ) {
    this.zoneWire = zone.wire.length;
  }

  // --- ClusterSetIP (docs/compatibility.md, "Answers") ---------------------------------------------------------------

  clusterSetIp(): void {
    const { service, table, zone, base, sink } = this;
    const families = table.families;
    const waiting = noIpYet(service);
    if (families.v4) sink.offer('a', base, () => this.clustersetAddress('v4', waiting));
    if (families.v6) sink.offer('aaaa', base, () => this.clustersetAddress('v6', waiting));

    // Bare SRV and every `port.proto` variant share the family balancers with A (docs/compatibility.md, "Cluster selection").
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

    // Cluster-specific names ignore health and connectivity (docs/compatibility.md, "Answers").
    for (const cluster of clustersOf(service)) {
      const name = `${cluster.toLowerCase()}.${base}`;
      const v4 = families.v4 ? service.v4.clusters.get(cluster) : undefined;
      const v6 = families.v6 ? service.v6.clusters.get(cluster) : undefined;
      if (v4) sink.offer('a', name, () => this.clusterAddress('v4', cluster, v4));
      if (v6) sink.offer('aaaa', name, () => this.clusterAddress('v6', cluster, v6));
      // SRV tries the IPv4 state, then IPv6 (docs/compatibility.md, "Answers").
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

  /** A or AAAA on the bare name: clusterset IPs, else local, else the balancer (docs/compatibility.md, "Answers"). */
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
    const stages: { state: BalancerState; answers: readonly (Answer | null)[] }[] = [];
    let last: Answer = this.zone.nodata;
    const local = this.table.localClusterId;
    for (const family of families) {
      if (family.clusters.size === 0) continue;
      const localData = local === '' ? undefined : family.clusters.get(local);
      if (localData?.healthy) {
        last = make(local, localData, family);
        break;
      }
      const balancer = family.balancer;
      const answers: (Answer | null)[] = [];
      for (let i = 0; i < balancer.size; i++) {
        const cluster = balancer.keyAt(i);
        const data = family.clusters.get(cluster);
        answers.push(data && data.healthy && this.table.isConnected(cluster) ? make(cluster, data, family) : null);
      }
      stages.push({ state: balancer.state, answers: exact(answers) });
    }
    // Chained from the last stage back: each stage falls to the next, the last to `last`.
    let entry: Entry = last;
    for (let i = stages.length - 1; i >= 0; i--) entry = { kind: 'balanced', state: stages[i]!.state, answers: stages[i]!.answers, next: entry };
    return entry;
  }

  // --- Headless (docs/compatibility.md, "Answers") -------------------------------------------------------------------

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

  /** One A/AAAA per record, owner = the question (docs/compatibility.md, "Answers"); none → NODATA. */
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
   * SRV per requested port of every source (docs/compatibility.md, "Answers"): a source with none of the requested ports
   * voids the whole answer (NODATA); within a source a port number is written once (Lighthouse #1685).
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

  private served(counts: Map<string, number>): Served | null {
    return this.table.served.of(counts);
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

export function portQueriesOf(ports: readonly Port[]): PortQuery[] {
  const out = new Map<string, PortQuery>();
  for (const port of ports) {
    if (port.name === '') continue;
    const q: PortQuery = [port.name.toLowerCase(), port.protocol.toLowerCase()];
    out.set(`${q[0]}.${q[1]}`, q);
  }
  return [...out.values()];
}
