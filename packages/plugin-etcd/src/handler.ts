/**
 * The etcd handler (CoreDNS `plugin/etcd/handler.go` and `etcd.go`). Per query in its zones: one
 * to three range reads (the name's subtree, else its exact key; the apex and NS names first try
 * their `dns` keys), one lease read per leased key, and a lookup through the rest of the chain for
 * each CNAME, SRV or MX target outside the zone. Nothing is cached: put *cache* before it.
 *
 * | outcome                               | reply                                                  |
 * |---------------------------------------|--------------------------------------------------------|
 * | name outside the zones                | next                                                   |
 * | records                               | NOERROR, AA, the records (additional: target addresses) |
 * | keys, none for this type              | NOERROR, AA, the zone's SOA in authority (NODATA)      |
 * | no key                                | next under `fallthrough`, else NXDOMAIN with the SOA   |
 * | etcd fails (unreachable, bad JSON)    | SERVFAIL with the SOA, the error to *errors*           |
 */
import type { Answer, Packet } from 'dns-packet';
import {
  errorMessage, Flags, lookupVia, matchZone, nextOrFailure, PluginError, Rcode, replyTo,
  TYPE_A, TYPE_AAAA, TYPE_CNAME, TYPE_MX, TYPE_NS, TYPE_PTR, TYPE_SOA, TYPE_SRV, TYPE_TXT,
} from '@foghorn/core';
import type { Handler, Request, ResponseWriter } from '@foghorn/core';
import type { EtcdClient, KeyValue } from './client.js';
import { cname, follow, KeyNotFound, mx, ns, ptr, soa, srv } from './lookup.js';
import type { Backend, Records } from './lookup.js';
import { group, parseService, path, pathWithWildcard } from './service.js';
import type { Service } from './service.js';

const DEFAULT_TTL = 300;
const DEFAULT_PRIORITY = 10;

/** What the handler reads per query. */
export interface EtcdSettings {
  readonly zones: readonly string[];
  /** The first path segment of every key, `skydns` by default. */
  readonly pathPrefix: string;
  /** `fallthrough` zones: null when off. */
  readonly fallthrough: readonly string[] | null;
  /** Bounds of a leased key's TTL, in seconds. */
  readonly minLeaseTtl: number;
  readonly maxLeaseTtl: number;
}

/** The services of the data in etcd: CoreDNS's `Etcd.Records`, `loopNodes` and `TTL`. */
export class EtcdServices {
  constructor(
    private readonly client: EtcdClient,
    private readonly settings: EtcdSettings,
  ) {}

  /** The services at `name` (lower case), grouped; {@link KeyNotFound} when no key is there. */
  async services(name: string, qtype: number, exact: boolean): Promise<readonly Service[]> {
    const { path: key, star } = pathWithWildcard(name, this.settings.pathPrefix);
    const kvs = await this.get(key, !exact);
    const segments = path(name, this.settings.pathPrefix).split('/');
    const out: Service[] = [];
    for (const kv of kvs) {
      if (star && !matchesWildcard(kv.key.split('/'), segments)) continue;
      let serv: Service;
      try {
        serv = parseService(kv.key, kv.value);
      } catch (error) {
        throw new Error(`${kv.key}: ${errorMessage(error)}`);
      }
      serv.ttl = await this.ttl(kv, serv);
      if (serv.priority === 0) serv.priority = DEFAULT_PRIORITY;
      // Only TXT answers may come from a service without a host.
      if ((qtype === TYPE_TXT && serv.text !== '') || serv.host !== '') out.push(serv);
    }
    return group(out);
  }

  /** The subtree below `key` (its exact key when the subtree is empty), or only the exact key. */
  private async get(key: string, recursive: boolean): Promise<KeyValue[]> {
    if (recursive) {
      const below = await this.client.range(key.endsWith('/') ? key : `${key}/`, true);
      if (below.length > 0) return below;
      key = key.replace(/\/$/, '');
    }
    const exact = await this.client.range(key, false);
    if (exact.length === 0) throw new KeyNotFound();
    return exact;
  }

  /** The smaller of the service's TTL and its lease's time left (clamped to the bounds); 300 without either. */
  private async ttl(kv: KeyValue, serv: Service): Promise<number> {
    let leaseTtl = 0;
    if (kv.lease !== '0') {
      try {
        const left = await this.client.leaseTtl(kv.lease);
        if (left > 0) leaseTtl = Math.min(Math.max(left, this.settings.minLeaseTtl), this.settings.maxLeaseTtl);
      } catch {
        // As CoreDNS: a lease that cannot be read does not limit the TTL.
      }
    }
    const own = serv.ttl >>> 0;
    if (leaseTtl === 0) return own === 0 ? DEFAULT_TTL : own;
    return own === 0 ? leaseTtl : Math.min(own, leaseTtl);
  }
}

/** A key under a wildcard name: every label of the name but `*` and `any` equal at its depth. */
function matchesWildcard(keyParts: readonly string[], nameParts: readonly string[]): boolean {
  for (const [i, label] of nameParts.entries()) {
    if (i > keyParts.length - 1) return false;
    if (label === '*' || label === 'any') continue;
    if (keyParts[i] !== label) return false;
  }
  return true;
}

export class Etcd implements Handler {
  readonly name = 'etcd';

  constructor(
    private readonly data: EtcdServices,
    private readonly settings: EtcdSettings,
    private readonly next: Handler | null,
  ) {}

  serveDNS(req: Request, w: ResponseWriter): number | Promise<number> {
    const zone = matchZone(this.settings.zones, req.qname);
    if (zone === undefined) return nextOrFailure(this.name, this.next, req, w);
    return this.answer(req, w, zone);
  }

  private async answer(req: Request, w: ResponseWriter, zone: string): Promise<number> {
    const backend: Backend = {
      services: (name, qtype, exact) => this.data.services(name, qtype, exact),
      lookup: (name, qtype) => this.lookup(req, name, qtype),
    };
    const qname = req.name;
    const qtype = req.qtype;
    let records: Records = { answer: [], extra: [], truncated: false };
    try {
      switch (qtype) {
        case TYPE_A:
        case TYPE_AAAA:
        case TYPE_TXT:
          records = await follow(backend, zone, qname, qtype);
          break;
        case TYPE_CNAME:
          records.answer = await cname(backend, qname, qtype);
          break;
        case TYPE_PTR:
          records.answer = await ptr(backend, qname, qtype);
          break;
        case TYPE_MX:
          records = await mx(backend, zone, qname, qtype);
          break;
        case TYPE_SRV:
          records = await srv(backend, zone, qname, qtype);
          break;
        case TYPE_SOA:
          records.answer = [soa(zone)];
          break;
        default:
          // NS at the apex; any other type (NS below the apex too) gets NODATA or NXDOMAIN,
          // which a made-up A lookup tells apart.
          if (qtype === TYPE_NS && req.qname === zone) records = await ns(backend, zone, qname, qtype);
          else await follow(backend, zone, qname, TYPE_A);
      }
    } catch (error) {
      if (error instanceof KeyNotFound) {
        const through = this.settings.fallthrough;
        if (through !== null && matchZone(through, req.qname) !== undefined) return nextOrFailure(this.name, this.next, req, w);
        return this.negative(req, w, zone, Rcode.NXDOMAIN);
      }
      this.negative(req, w, zone, Rcode.SERVFAIL);
      throw new PluginError(`plugin/etcd: ${errorMessage(error)}`, { rcode: Rcode.SERVFAIL, cause: error });
    }
    if (records.answer.length === 0) return this.negative(req, w, zone, Rcode.NOERROR);
    const reply = replyTo(req);
    reply.flags |= Flags.AA | (records.truncated ? Flags.TC : 0);
    reply.answers = records.answer;
    reply.additionals = records.extra;
    w.write(reply);
    return Rcode.NOERROR;
  }

  /** CoreDNS's `BackendError`: the rcode, AA, and the zone's SOA in authority. */
  private negative(req: Request, w: ResponseWriter, zone: string, rcode: number): number {
    const reply = replyTo(req, rcode);
    reply.flags |= Flags.AA;
    reply.authorities = [soa(zone) as Answer];
    w.write(reply);
    return Rcode.NOERROR;
  }

  /** A target outside the zone, asked of the rest of the chain; undefined when it cannot say. */
  private async lookup(req: Request, name: string, qtype: number): Promise<Packet | undefined> {
    if (this.next === null) return undefined;
    try {
      return await lookupVia(this.next, this.name, req, name, qtype);
    } catch {
      return undefined;
    }
  }
}
