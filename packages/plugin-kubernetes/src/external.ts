/**
 * Services as seen from outside the cluster, for *k8s_external* (CoreDNS plugin/kubernetes
 * external.go `External`, `ExternalAddress`, `ExternalServices`, `ExternalReverse`, and ns.go
 * `nsAddrs` with `external`), read from the same index the plugin answers from: no watch of its
 * own. Nothing here is kept per query; the index holds a service's external addresses only when
 * it has some (store.ts).
 */
import { isIP } from 'node:net';
import { TYPE_PTR } from '@foghorn/core';
import type { ExternalLookup, ExternalRecord, ServiceExternals } from '@foghorn/core';
import { addressFromReverse } from './resolve.js';
import type { Resolver } from './resolve.js';
import { canonicalIp } from './store.js';
import type { ClusterStore, Port } from './store.js';

/** What the externals read once the plugin runs; null before startup. */
export interface ExternalState {
  readonly store: ClusterStore | null;
  readonly resolver: Resolver | null;
  /** This server's addresses (CoreDNS `localIPs`). */
  readonly localIps: () => readonly string[];
}

const nameError: ExternalLookup = { records: [], nameError: true };
const noData: ExternalLookup = { records: [], nameError: false };

const stripUnderscore = (label: string): string => (label.startsWith('_') ? label.slice(1) : label);

/** kubernetes.go `matchPortAndProtocol`: an empty request label matches anything. */
const matches = (port: string, protocol: string, p: Port): boolean =>
  (port === '' || port === p.name.toLowerCase()) && (protocol === '' || protocol === p.protocol.toLowerCase());

export class Externals implements ServiceExternals {
  readonly name = 'kubernetes';

  constructor(
    private readonly state: ExternalState,
    readonly ttl: number,
  ) {}

  external(qname: string, zone: string, qtype: number, headless: boolean): ExternalLookup {
    const { store, resolver } = this.state;
    if (store === null || resolver === null) return nameError;
    if (qtype === TYPE_PTR) {
      const ip = addressFromReverse(qname);
      if (ip !== null) return this.reverse(store, resolver, ip);
      // An invalid reverse name goes on, for the NXDOMAIN/NODATA answer of the name.
    }
    const base = zone === '.' ? qname.slice(0, -1) : qname.slice(0, qname.length - zone.length - 1);
    const segs = base === '' ? [] : base.split('.');
    let last = segs.length - 1;
    if (last < 0) return noData;
    const namespace = segs[last]!;
    if (!resolver.namespaceExposed(namespace)) return nameError;
    if (--last < 0) return noData;
    const service = segs[last--]!;
    let endpoint = '';
    let port = '';
    let protocol = '';
    if (last === 0) {
      endpoint = stripUnderscore(segs[0]!);
      last--;
    } else if (last === 1) {
      protocol = stripUnderscore(segs[1]!);
      port = stripUnderscore(segs[0]!);
      last -= 2;
    }
    if (last !== -1) return nameError;

    const records: ExternalRecord[] = [];
    let found = false;
    for (const svc of store.services.inIndex(`${service}.${namespace}`)) {
      const key = `${svc.name}.${svc.namespace}.`;
      if (headless && svc.external.length === 0 && (svc.headless || endpoint !== '')) {
        for (const slice of store.slices.inIndex(svc.index)) {
          for (let k = 0; k < slice.ips.length; k++) {
            const name = resolver.endpointName(slice, k);
            if (endpoint !== '' && endpoint !== name.toLowerCase()) continue;
            for (const p of slice.ports) {
              if (!matches(port, protocol, p)) continue;
              found = true;
              records.push({ host: slice.ips[k]!, port: p.port, key: `${name}.${key}`.toLowerCase() });
            }
          }
        }
        continue;
      }
      for (const ip of svc.external) {
        for (const p of svc.ports) {
          if (!matches(port, protocol, p)) continue;
          found = true;
          records.push({ host: ip, port: p.port, key: key.toLowerCase() });
        }
      }
    }
    // A PTR question of a forward name: NODATA or NXDOMAIN as the name's records say.
    if (qtype === TYPE_PTR) return found ? noData : nameError;
    return found ? { records, nameError: false } : nameError;
  }

  /** external.go `ExternalReverse`: `svc.ns` of each exposed service with external address `ip`. */
  private reverse(store: ClusterStore, resolver: Resolver, ip: string): ExternalLookup {
    const records: ExternalRecord[] = [];
    for (const svc of store.servicesByExternalIp(ip)) {
      if (!resolver.reverseExposed(svc.namespace)) continue;
      records.push({ host: `${svc.name}.${svc.namespace}`, port: 0, key: '' });
    }
    return records.length === 0 ? nameError : { records, nameError: false };
  }

  /**
   * ns.go `nsAddrs(external)`: the external addresses of the services whose endpoints are this
   * server (with `headless`, a headless one's endpoints), else `ns.dns.` with the local addresses.
   */
  nameservers(_zone: string, headless: boolean): readonly ExternalRecord[] {
    const { store, resolver } = this.state;
    const local = this.state.localIps();
    const out: ExternalRecord[] = [];
    let found = false;
    if (store !== null && resolver !== null) {
      for (const ip of local) {
        for (const slice of store.slices.atIp(canonicalIp(ip))) {
          found = true;
          for (const svc of store.services.inIndex(slice.index)) {
            const key = `${svc.name}.${svc.namespace}.`;
            if (headless && svc.headless) {
              for (let k = 0; k < slice.ips.length; k++) out.push({ host: slice.ips[k]!, port: 0, key: `${resolver.endpointName(slice, k)}.${key}` });
            } else {
              for (const external of svc.external) out.push({ host: external, port: 0, key });
            }
          }
        }
      }
    }
    if (!found) for (const ip of local) out.push({ host: ip, port: 0, key: 'ns.dns.' });
    return out.filter((record) => isIP(record.host) !== 0);
  }

  serial(): number {
    return this.state.store?.serial('external') ?? 0;
  }
}
