/**
 * What a query answers, as records: CoreDNS's kubernetes plugin (handler.go, parse.go,
 * kubernetes.go `Records`/`findServices`/`findPods`/`findMultiClusterServices`, reverse.go,
 * ns.go) and the shared backend lookups it calls (plugin/backend_lookup.go `A`, `SRV`, `PTR`,
 * `NS`, `CNAME`), as a pure function of the index and the question. Names the plugin builds
 * end in the matched zone, which the reply writes in the client's spelling; see wire.ts.
 */
import { isIP } from 'node:net';
import { isSubdomain, TYPE_A, TYPE_AAAA, TYPE_AXFR, TYPE_CNAME, TYPE_IXFR, TYPE_MX, TYPE_NS, TYPE_PTR, TYPE_SOA, TYPE_SRV, TYPE_TXT } from '@foghorn/core';
import type { KubernetesOptions } from './options.js';
import { canonicalIp } from './store.js';
import type { ClusterStore, Port, Slice } from './store.js';
import { fqdn } from '@foghorn/core/wire';

/** The schema version `dns-version.<zone>` TXT answers (CoreDNS `DNSSchemaVersion`). */
export const dnsSchemaVersion = '1.1.0';
const dnsVersionTtl = 28800;

/**
 * A name in a record: the question itself, a prefix (`svc1.ns.svc.`) on the matched zone (written
 * in the client's case), or a literal fully qualified name.
 */
export type Name =
  | { readonly kind: 'question' }
  | { readonly kind: 'zone'; readonly prefix: string }
  | { readonly kind: 'literal'; readonly name: string };

export const question: Name = { kind: 'question' };

export type Rdata =
  | { readonly type: typeof TYPE_A | typeof TYPE_AAAA; readonly ip: string }
  | { readonly type: typeof TYPE_CNAME | typeof TYPE_PTR | typeof TYPE_NS; readonly target: Name }
  | { readonly type: typeof TYPE_SRV; readonly weight: number; readonly port: number; readonly target: Name }
  | { readonly type: typeof TYPE_TXT; readonly text: string }
  | { readonly type: typeof TYPE_SOA };

export interface Record {
  readonly owner: Name;
  readonly ttl: number;
  readonly data: Rdata;
}

/** The outcome of a query before fallthrough and the sync check (handler.go). */
export type Result =
  | { readonly kind: 'records'; readonly answer: readonly Record[]; readonly extra: readonly Record[]; readonly upstream: Upstream | null }
  | { readonly kind: 'nameError' }
  | { readonly kind: 'refused' };

/**
 * An ExternalName target outside the zone: the answer so far (the CNAMEs) is kept only when the
 * lookup of `target` writes a reply, whose answer section is appended (backend_lookup.go `A`).
 */
export interface Upstream {
  readonly target: string;
  readonly qtype: number;
}

/** A zone the plugin serves. */
export interface ZoneInfo {
  /** Lower case, fully qualified. */
  readonly name: string;
  readonly multicluster: boolean;
}

/** A CoreDNS `msg.Service`: an address (or a name, for ExternalName) with a port and the name it came from. */
interface Entry {
  readonly host: string;
  readonly port: number;
  /** Prefix on the zone of the name the entry came from (`ep.svc.ns.svc.`). */
  readonly key: string;
}

/** parse.go `recordRequest`. */
interface Request {
  port: string;
  protocol: string;
  endpoint: string;
  cluster: string;
  service: string;
  namespace: string;
  podOrSvc: string;
  /** `zonal`: the topology zone of `ZONE.pin|prefer._zone.SVC...` ('' otherwise). */
  zone: string;
  /** `prefer` rather than `pin`. */
  zonePrefer: boolean;
}

const nameError = { kind: 'nameError' } as const;
const none: Result = { kind: 'records', answer: [], extra: [], upstream: null };
const maxCnameChain = 10;

/** Lookup failures that are name errors (kubernetes.go `IsNameError`). */
class NameError {
  static readonly instance = new NameError();
}

type Found = Entry[] | NameError;

export class Resolver {
  private readonly namespaces: ReadonlySet<string> | null;

  constructor(
    private readonly store: ClusterStore,
    private readonly options: KubernetesOptions,
    /** Non-loopback addresses the server listens on (CoreDNS `boundIPs`), for NS records. */
    private readonly localIps: () => readonly string[],
  ) {
    this.namespaces = options.namespaces === null ? null : new Set(options.namespaces);
  }

  /**
   * `qname` is lower case; `mixedZone` says the client wrote the zone part with upper-case
   * letters, which hides `ns.dns.<zone>` and the apex NS from CoreDNS (its comparisons there
   * mix the lower-cased name with the client-cased zone).
   */
  resolve(qname: string, qtype: number, zone: ZoneInfo, mixedZone: boolean): Result {
    switch (qtype) {
      case TYPE_A:
      case TYPE_AAAA:
        return this.address(qname, qtype, zone, mixedZone, [], question);
      case TYPE_TXT:
        return this.txt(qname, zone);
      case TYPE_CNAME: {
        const found = this.services(qname, qtype, zone, mixedZone);
        if (found instanceof NameError) return nameError;
        const first = found[0];
        if (first === undefined || isIP(first.host) !== 0) return none;
        return records([{ owner: question, ttl: this.options.ttl, data: { type: TYPE_CNAME, target: literal(first.host) } }]);
      }
      case TYPE_PTR:
        return this.ptr(qname, zone);
      case TYPE_MX: {
        // Kubernetes never has mail records: NODATA unless the name does not exist.
        const found = this.services(qname, qtype, zone, mixedZone);
        return found instanceof NameError ? nameError : none;
      }
      case TYPE_SRV:
        return this.srv(qname, zone, mixedZone);
      case TYPE_SOA:
        return qname === zone.name ? records([{ owner: question, ttl: this.soaTtl(), data: { type: TYPE_SOA } }]) : none;
      case TYPE_AXFR:
      case TYPE_IXFR:
        return { kind: 'refused' };
      default: {
        if (qtype === TYPE_NS && qname === zone.name && !mixedZone) return this.ns();
        // A hidden A lookup tells NXDOMAIN from NODATA.
        const found = this.address(qname, TYPE_A, zone, mixedZone, [], question);
        return found.kind === 'nameError' ? nameError : none;
      }
    }
  }

  /** SOA TTL: min(ttl, 300) (backend_lookup.go `SOA`). */
  soaTtl(): number {
    return Math.min(this.options.ttl, 300);
  }

  /**
   * backend_lookup.go `A`/`AAAA`, with the ExternalName chase: `chain` holds the CNAME targets so
   * far, `owner` is the question or, inside the chase, the target as the ExternalName wrote it.
   */
  private address(qname: string, qtype: number, zone: ZoneInfo, mixedZone: boolean, chain: readonly string[], owner: Name): Result {
    const found = this.services(qname, qtype, zone, mixedZone);
    if (found instanceof NameError) return nameError;
    const ttl = this.options.ttl;
    const answer: Record[] = [];
    const seen = new Set<string>();
    for (const entry of found) {
      const family = isIP(entry.host);
      if (family === 0) {
        const target = fqdn(entry.host).toLowerCase();
        // x CNAME x, too long a chain, or a repeated CNAME.
        if (target === qname || chain.length > maxCnameChain || chain.includes(target)) continue;
        const cname: Record = { owner, ttl, data: { type: TYPE_CNAME, target: literal(fqdn(entry.host)) } };
        if (isSubdomain(target, zone.name)) {
          const next = this.address(target, qtype, zone, false, [...chain, target], literal(fqdn(entry.host)));
          if (next.kind === 'records' && (next.answer.length > 0 || next.upstream !== null)) {
            answer.push(cname, ...next.answer);
            if (next.upstream) return { kind: 'records', answer, extra: [], upstream: next.upstream };
          }
          continue;
        }
        answer.push(cname);
        return { kind: 'records', answer, extra: [], upstream: { target: fqdn(entry.host), qtype } };
      }
      const type = family === 4 ? TYPE_A : TYPE_AAAA;
      if (type !== qtype || seen.has(entry.host)) continue;
      seen.add(entry.host);
      answer.push({ owner, ttl, data: { type, ip: entry.host } });
    }
    return records(answer);
  }

  /** kubernetes.go `Services` for TXT: only `dns-version` has one; existing names are NODATA. */
  private txt(qname: string, zone: ZoneInfo): Result {
    if (qname === `dns-version.${zone.name === '.' ? '' : zone.name}`) {
      return records([{ owner: question, ttl: dnsVersionTtl, data: { type: TYPE_TXT, text: dnsSchemaVersion } }]);
    }
    const found = this.records(qname, zone);
    if (found instanceof NameError) return nameError;
    if (found.length > 0) return none;
    // A zonal name of an existing headless service is NODATA for every type, TXT included.
    if (this.options.zonal && (parseRequest(qname, zone.name, zone.multicluster, true)?.zone ?? '') !== '') return none;
    return nameError;
  }

  /** backend_lookup.go `SRV`: weight ⌊100/N⌋ over every entry, de-duplicated targets, address glue. */
  private srv(qname: string, zone: ZoneInfo, mixedZone: boolean): Result {
    const found = this.services(qname, TYPE_SRV, zone, mixedZone);
    if (found instanceof NameError) return nameError;
    // ExternalName entries are dropped for SRV (kubernetes.go `Services`).
    const entries = found.filter((e) => isIP(e.host) !== 0);
    // The same float arithmetic as CoreDNS: 100/(100·N)·100, floored, at least 1.
    const weight = Math.max(1, Math.floor((100 / (100 * entries.length)) * 100));
    const ttl = this.options.ttl;
    const answer: Record[] = [];
    const extra: Record[] = [];
    const seen = new Set<string>();
    for (const entry of entries) {
      if (entry.port === -1) continue;
      const target: Name = { kind: 'zone', prefix: entry.key };
      const srvKey = `${entry.key}|${entry.port}`;
      if (!seen.has(srvKey)) {
        seen.add(srvKey);
        answer.push({ owner: question, ttl, data: { type: TYPE_SRV, weight, port: entry.port, target } });
      }
      const glueKey = `${entry.key}|@${entry.host}`;
      if (!seen.has(glueKey)) {
        seen.add(glueKey);
        extra.push({ owner: target, ttl, data: { type: isIP(entry.host) === 4 ? TYPE_A : TYPE_AAAA, ip: entry.host } });
      }
    }
    return { kind: 'records', answer, extra, upstream: null };
  }

  /** reverse.go: ClusterIPs first, then endpoint addresses; targets in the primary zone. */
  private ptr(qname: string, zone: ZoneInfo): Result {
    const ip = addressFromReverse(qname);
    if (ip === null) {
      const found = this.records(qname, zone);
      return found instanceof NameError ? nameError : none;
    }
    const primary = this.options.primaryZone;
    const suffix = primary === '.' ? '' : primary;
    const targets: string[] = [];
    for (const service of this.store.servicesByIp(ip)) {
      if (this.namespaces !== null && !this.namespaceExposed(service.namespace)) continue;
      targets.push(`${service.name}.${service.namespace}.svc.${suffix}`);
      break;
    }
    if (targets.length === 0) {
      for (const slice of this.store.slices.atIp(ip)) {
        if (this.namespaces !== null && !this.namespaceExposed(slice.namespace)) continue;
        for (let k = 0; k < slice.ips.length; k++) {
          if (canonicalIp(slice.ips[k]!) === ip) targets.push(`${this.endpointName(slice, k)}.${slice.index}.svc.${suffix}`);
        }
      }
    }
    if (targets.length === 0) return nameError;
    const ttl = this.options.ttl;
    return records([...new Set(targets)].map((target) => ({ owner: question, ttl, data: { type: TYPE_PTR, target: literal(target) } })));
  }

  /** backend_lookup.go `NS` over ns.go `nsAddrs`: one NS per distinct name, every address as glue. */
  private ns(): Result {
    const ttl = this.options.ttl;
    const answer: Record[] = [];
    const extra: Record[] = [];
    const seen = new Set<string>();
    for (const [prefix, ip] of this.nsAddrs()) {
      const name: Name = { kind: 'zone', prefix };
      extra.push({ owner: name, ttl, data: { type: isIP(ip) === 4 ? TYPE_A : TYPE_AAAA, ip } });
      if (seen.has(prefix)) continue;
      seen.add(prefix);
      answer.push({ owner: question, ttl, data: { type: TYPE_NS, target: name } });
    }
    return { kind: 'records', answer, extra, upstream: null };
  }

  /**
   * ns.go `nsAddrs`: the services whose endpoints are this server's addresses (the kube-dns
   * Service in a cluster), else `ns.dns.` with the local addresses. Prefixes go on the queried zone.
   */
  private nsAddrs(): [string, string][] {
    const out: [string, string][] = [];
    let found = false;
    const local = this.localIps();
    for (const ip of local) {
      for (const slice of this.store.slices.atIp(canonicalIp(ip))) {
        found = true;
        for (const service of this.store.services.inIndex(slice.index)) {
          const name = `${service.name}.${service.namespace}.svc.`;
          if (service.headless) {
            for (let k = 0; k < slice.ips.length; k++) out.push([`${this.endpointName(slice, k)}.${name}`, slice.ips[k]!]);
          } else {
            for (const clusterIp of service.clusterIPs) out.push([name, clusterIp]);
          }
        }
      }
    }
    if (!found) for (const ip of local) out.push(['ns.dns.', ip]);
    return out.filter(([, ip]) => isIP(ip) !== 0);
  }

  /** kubernetes.go `Services` for everything but TXT and NS. */
  private services(qname: string, qtype: number, zone: ZoneInfo, mixedZone: boolean): Found {
    // ns.go `isDefaultNS`: every nameserver address of the asked family, whatever its name.
    if (!mixedZone && qname === `ns.dns.${zone.name === '.' ? '' : zone.name}`) {
      const out: Entry[] = [];
      for (const [prefix, ip] of this.nsAddrs()) {
        if ((isIP(ip) === 4 ? TYPE_A : TYPE_AAAA) === qtype) out.push({ host: ip, port: 0, key: prefix });
      }
      return out;
    }
    return this.records(qname, zone);
  }

  /** kubernetes.go `Records`. */
  private records(qname: string, zone: ZoneInfo): Found {
    const r = parseRequest(qname, zone.name, zone.multicluster, this.options.zonal);
    if (r === null) return NameError.instance;
    if (r.podOrSvc === '') return [];
    if (qname.endsWith('in-addr.arpa.') || qname.endsWith('ip6.arpa.')) return NameError.instance;
    if (!this.namespaceExposed(r.namespace)) return NameError.instance;
    const prefix = (r.podOrSvc === 'pod' ? [r.service, r.namespace, 'pod'] : [r.service, r.namespace, 'svc']).join('.');
    if (r.podOrSvc === 'pod') return this.findPods(r, `${prefix}.`);
    return zone.multicluster ? this.findMultiClusterServices(r) : this.findServices(r);
  }

  /** namespace.go `namespaceExposed`: listed (when `namespaces` is set) and present in the Namespace cache. */
  namespaceExposed(namespace: string): boolean {
    return (this.namespaces === null || this.namespaces.has(namespace)) && this.store.namespaces.has(namespace);
  }

  /** external.go `serviceRecordForExternalIP`: the namespace check applies only with `namespaces`. */
  reverseExposed(namespace: string): boolean {
    return this.namespaces === null || this.namespaceExposed(namespace);
  }

  /** kubernetes.go `endpointHostname`, of the slice's address `k`. */
  endpointName(slice: Slice, k: number): string {
    const hostname = slice.hostnames?.[k] ?? '';
    if (hostname !== '') return hostname;
    const podName = slice.podNames?.[k] ?? '';
    if (this.options.endpointPodNames && podName !== '') return podName;
    const ip = slice.ips[k]!;
    if (ip.includes('.')) return ip.replaceAll('.', '-');
    if (ip.includes(':')) {
      const name = ip.replaceAll(':', '-');
      return name.endsWith('-') ? `${name}0` : name;
    }
    return '';
  }

  /** kubernetes.go `findPods`. */
  private findPods(r: Request, key: string): Found {
    const mode = this.options.pods;
    if (mode === 'disabled') return NameError.instance;
    const podname = r.service;
    if (podname === '') return [];
    const ip = (podname.match(/-/g)?.length ?? 0) === 3 && !podname.includes('--') ? podname.replaceAll('-', '.') : podname.replaceAll('-', ':');
    if (mode === 'insecure') return isIP(ip) === 0 ? NameError.instance : [{ host: ip, port: 0, key }];
    const out: Entry[] = [];
    for (const pod of this.store.pods.atIp(canonicalIp(ip))) {
      if (pod.ip === ip && pod.namespace.toLowerCase() === r.namespace) out.push({ host: ip, port: 0, key });
    }
    return out.length > 0 ? out : NameError.instance;
  }

  /** Ready addresses of every slice count (`ignore empty_service`). */
  private static addressCount(slices: readonly Slice[]): number {
    let n = 0;
    for (const slice of slices) n += slice.ips.length;
    return n;
  }

  /** kubernetes.go `findServices`. */
  private findServices(r: Request): Found {
    if (r.service === '') return [];
    const index = `${r.service}.${r.namespace}`;
    let error = true;
    const out: Entry[] = [];
    for (const svc of this.store.services.inIndex(index)) {
      const slices = this.store.slices.inIndex(svc.index);
      if (this.options.ignoreEmptyService && svc.type !== 'ExternalName' && !svc.headless && Resolver.addressCount(slices) === 0) continue;
      // Zone-scoped names exist for headless services only.
      if (r.zone !== '' && !svc.headless) continue;
      const key = `${svc.name}.${svc.namespace}.svc.`;
      if (svc.type === 'ExternalName') {
        // No endpoints, ports or protocols under an ExternalName; an IP there is ignored.
        if (r.endpoint !== '' || r.port !== '' || r.protocol !== '') continue;
        if (isIP(svc.externalName) === 0 && svc.externalName !== '') {
          out.push({ host: svc.externalName, port: 0, key });
          error = false;
        }
        continue;
      }
      if (svc.headless || r.endpoint !== '') {
        // A zonal name of a headless service exists even when no endpoint is in that zone.
        if (r.zone !== '') error = false;
        const addForZone = (topology: string): number => {
          let added = 0;
          for (const slice of slices) {
            for (let k = 0; k < slice.ips.length; k++) {
              if (topology !== '' && (slice.zones?.[k] ?? '') !== topology) continue;
              const name = this.endpointName(slice, k);
              if (r.endpoint !== '' && r.endpoint !== name.toLowerCase()) continue;
              for (const port of slice.ports) {
                if (!matchPort(r, port)) continue;
                out.push({ host: slice.ips[k]!, port: port.port, key: `${name}.${key}` });
                error = false;
                added++;
              }
            }
          }
          return added;
        };
        // `prefer` falls back to every endpoint when the zone has none.
        if (addForZone(r.zone) === 0 && r.zonePrefer) addForZone('');
        continue;
      }
      for (const port of svc.ports) {
        if (!matchPort(r, port)) continue;
        error = false;
        for (const ip of svc.clusterIPs) out.push({ host: ip, port: port.port, key });
      }
    }
    return error ? NameError.instance : out;
  }

  /** kubernetes.go `findMultiClusterServices`: ServiceImports and the multicluster slices. */
  private findMultiClusterServices(r: Request): Found {
    if (r.service === '') return [];
    const index = `${r.service}.${r.namespace}`;
    let error = true;
    const out: Entry[] = [];
    for (const svc of this.store.imports.inIndex(index)) {
      const slices = this.store.mcSlices.inIndex(svc.index);
      if (this.options.ignoreEmptyService && !svc.headless && Resolver.addressCount(slices) === 0) continue;
      const key = `${svc.name}.${svc.namespace}.svc.`;
      if (svc.headless || r.endpoint !== '') {
        for (const slice of slices) {
          for (let k = 0; k < slice.ips.length; k++) {
            const name = this.endpointName(slice, k);
            if (r.endpoint !== '' && (r.cluster !== slice.cluster.toLowerCase() || r.endpoint !== name.toLowerCase())) continue;
            for (const port of slice.ports) {
              if (!matchPort(r, port)) continue;
              out.push({ host: slice.ips[k]!, port: port.port, key: `${name}.${slice.cluster}.${key}` });
              error = false;
            }
          }
        }
        continue;
      }
      for (const port of svc.ports) {
        if (!matchPort(r, port)) continue;
        error = false;
        for (const ip of svc.ips) out.push({ host: ip, port: port.port, key });
      }
    }
    return error ? NameError.instance : out;
  }
}

function records(answer: Record[]): Result {
  return { kind: 'records', answer, extra: [], upstream: null };
}

function literal(name: string): Name {
  return { kind: 'literal', name };
}

/** kubernetes.go `matchPortAndProtocol`: an empty request label matches anything. */
function matchPort(r: Request, port: Port): boolean {
  return (r.port === '' || r.port === port.name.toLowerCase()) && (r.protocol === '' || r.protocol === port.protocol.toLowerCase());
}

const stripUnderscore = (label: string): string => (label.startsWith('_') ? label.slice(1) : label);

/**
 * parse.go `parseRequest`. Null for an invalid name (a name error);
 * `podOrSvc` '' for the apex, `svc.` and `pod.`, which answer NODATA.
 */
export function parseRequest(qname: string, zone: string, multicluster: boolean, zonal = false): Request | null {
  const r: Request = { port: '', protocol: '', endpoint: '', cluster: '', service: '', namespace: '', podOrSvc: '', zone: '', zonePrefer: false };
  const base = zone === '.' ? qname.slice(0, -1) : qname.slice(0, qname.length - zone.length - 1);
  if (base === '' || base === 'svc' || base === 'pod' || qname === zone) return r;
  const segs = base.split('.');
  let last = segs.length - 1;
  r.podOrSvc = segs[last]!;
  if (r.podOrSvc !== 'pod' && r.podOrSvc !== 'svc') return null;
  if (--last < 0) return r;
  r.namespace = segs[last]!;
  if (--last < 0) return r;
  r.service = segs[last]!;
  if (--last < 0) return r;
  if (last === 0) {
    r.endpoint = segs[0]!;
  } else if (last === 1) {
    if (!multicluster || segs[1]!.startsWith('_') || segs[0]!.startsWith('_')) {
      r.protocol = stripUnderscore(segs[1]!);
      r.port = stripUnderscore(segs[0]!);
    } else {
      r.cluster = segs[1]!;
      r.endpoint = segs[0]!;
    }
  } else {
    // `TOPOZONE.pin|prefer._zone.SVC.NS.svc`: the topology zone may span labels. Not in
    // multicluster zones nor under `pod`; anything else is too long.
    if (!zonal || multicluster || segs[last] !== '_zone' || r.podOrSvc !== 'svc') return null;
    const directive = segs[last - 1];
    if (directive !== 'pin' && directive !== 'prefer') return null;
    r.zonePrefer = directive === 'prefer';
    r.zone = segs.slice(0, last - 1).join('.');
  }
  return r;
}

/** dnsutil.ExtractAddressFromReverse: the address of a complete reverse name, else null. */
export function addressFromReverse(qname: string): string | null {
  if (qname.endsWith('.in-addr.arpa.')) {
    const labels = qname.slice(0, -'.in-addr.arpa.'.length).split('.');
    if (labels.length !== 4 || !labels.every((l) => /^\d{1,3}$/.test(l) && Number(l) <= 255)) return null;
    return labels.reverse().map(Number).join('.');
  }
  if (qname.endsWith('.ip6.arpa.')) {
    const labels = qname.slice(0, -'.ip6.arpa.'.length).split('.');
    if (labels.length !== 32 || !labels.every((l) => /^[0-9a-f]$/.test(l))) return null;
    const hex = labels.reverse().join('');
    return canonicalIp(hex.match(/.{4}/g)!.join(':'));
  }
  return null;
}
