/**
 * The k8s_external handler (CoreDNS plugin/k8s_external external.go, apex.go, msg_to_dns.go):
 * names of Services outside the cluster under the plugin's zones, read per query from the
 * kubernetes plugin of the same server block (`KubernetesExternals`), so there is nothing to
 * invalidate. Per query: a zone match, one index lookup by `<service>.<namespace>`, the records;
 * a load balancer's hostname adds a lookup of its addresses down the rest of the chain.
 */
import { isIP } from 'node:net';
import { Flags, isSubdomain, lookupVia, matchZone, nextOrFailure, Rcode, replyTo, TYPE_A, TYPE_AAAA, TYPE_NS, TYPE_PTR, TYPE_SOA, TYPE_SRV } from '@foghorn/core';
import type { ExternalRecord, Handler, HandlerResult, Request, ResponseWriter, ServiceExternals } from '@foghorn/core';
import type { Answer, Packet } from 'dns-packet';
import { fqdn } from '@foghorn/core/wire';

export interface ExternalOptions {
  /** Lower case, fully qualified. */
  readonly zones: readonly string[];
  /** The label of the nameserver names (`ns1.<apex>.<zone>`); `dns` by default. */
  readonly apex: string;
  readonly ttl: number;
  readonly headless: boolean;
  /** Zones whose NXDOMAIN goes to the next plugin; null without `fallthrough`. */
  readonly fallthrough: readonly string[] | null;
}

/** The kubernetes plugin's externals, once startup found them. */
export interface ExternalSource {
  externals: ServiceExternals | null;
}

const hostmaster = 'hostmaster';

export class External implements Handler {
  readonly name = 'k8s_external';

  constructor(
    private readonly options: ExternalOptions,
    private readonly source: ExternalSource,
    private readonly next: Handler | null,
  ) {}

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    const zone = matchZone(this.options.zones, req.qname);
    if (zone === undefined) return nextOrFailure(this.name, this.next, req, w);
    const externals = this.source.externals;
    if (externals === null) return Rcode.SERVFAIL;
    // As external.go, every zone is tried for the apex and its `apex` label, not only the matched one.
    for (const z of this.options.zones) {
      if (req.qname === z) return this.serveApex(req, w, zone, externals);
      if (isSubdomain(req.qname, join(this.options.apex, z))) return this.serveSubApex(req, w, zone, externals);
    }
    const found = externals.external(req.qname, zone, req.qtype, this.options.headless);
    if (found.records.length === 0) {
      if (found.nameError && this.fallsThrough(req.qname)) return nextOrFailure(this.name, this.next, req, w);
      return this.negative(req, w, zone, externals, found.nameError ? Rcode.NXDOMAIN : Rcode.NOERROR);
    }
    switch (req.qtype) {
      case TYPE_A:
      case TYPE_AAAA:
        return this.address(req, w, zone, externals, found.records);
      case TYPE_SRV:
        return this.srv(req, w, zone, externals, found.records);
      case TYPE_PTR:
        return this.answer(req, w, zone, externals, this.ptr(req, found.records), []);
      default:
        return this.negative(req, w, zone, externals, Rcode.NOERROR);
    }
  }

  /** apex.go `serveApex`: SOA, NS with the nameservers' addresses as glue, else NODATA. */
  private serveApex(req: Request, w: ResponseWriter, zone: string, externals: ServiceExternals): HandlerResult {
    if (req.qtype === TYPE_SOA) return this.answer(req, w, zone, externals, [this.soa(zone, externals)], []);
    if (req.qtype !== TYPE_NS) return this.negative(req, w, zone, externals, Rcode.NOERROR);
    const ns = join('ns1', this.options.apex, req.name);
    const glue = externals.nameservers(zone, this.options.headless).map((record) => this.addressRecord(ns, record.host));
    return this.answer(req, w, zone, externals, [{ name: req.name, type: 'NS', class: 'IN', ttl: this.options.ttl, data: join('ns1', this.options.apex, zone) }], glue);
  }

  /** apex.go `serveSubApex`: `ns1.<apex>` has the nameservers' addresses, `<apex>` is empty, the rest does not exist. */
  private serveSubApex(req: Request, w: ResponseWriter, zone: string, externals: ServiceExternals): HandlerResult {
    const base = zone === '.' ? req.qname.slice(0, -1) : req.qname.slice(0, req.qname.length - zone.length - 1);
    const labels = base.split('.');
    if (labels.length === 1) return this.negative(req, w, zone, externals, Rcode.NOERROR);
    if (labels.length !== 2 || labels[0] !== 'ns1') return this.negative(req, w, zone, externals, Rcode.NXDOMAIN);
    const answer: Answer[] = [];
    for (const record of externals.nameservers(zone, this.options.headless)) {
      const family = isIP(record.host);
      if ((family === 4 && req.qtype === TYPE_A) || (family === 6 && req.qtype === TYPE_AAAA)) answer.push(this.addressRecord(req.name, record.host));
    }
    return this.answer(req, w, zone, externals, answer, []);
  }

  /** msg_to_dns.go `a`/`aaaa`: addresses of the asked family once each; a hostname as a CNAME and its looked-up addresses. */
  private async address(req: Request, w: ResponseWriter, zone: string, externals: ServiceExternals, records: readonly ExternalRecord[]): Promise<number> {
    const answer: Answer[] = [];
    const seen = new Set<string>();
    let truncated = false;
    for (const record of records) {
      const family = isIP(record.host);
      if (family === 0) {
        const target = fqdn(record.host);
        answer.push({ name: req.name, type: 'CNAME', class: 'IN', ttl: externals.ttl, data: target });
        const up = await this.lookup(req, target, req.qtype);
        if (up !== undefined) {
          answer.push(...((up.answers ?? []) as Answer[]));
          if (((up.flags ?? 0) & Flags.TC) !== 0) truncated = true;
        }
        continue;
      }
      if ((family === 4) !== (req.qtype === TYPE_A) || seen.has(record.host)) continue;
      seen.add(record.host);
      answer.push(this.addressRecord(req.name, record.host));
    }
    return this.answer(req, w, zone, externals, answer, [], truncated);
  }

  /**
   * msg_to_dns.go `srv`: weight 100/N of every record's share, at least 1; an address targets its
   * own name with the address as glue, a hostname targets itself with its looked-up addresses.
   */
  private async srv(req: Request, w: ResponseWriter, zone: string, externals: ServiceExternals, records: readonly ExternalRecord[]): Promise<number> {
    const weight = Math.max(1, Math.floor((100 / (100 * records.length)) * 100));
    const answer: Answer[] = [];
    const extra: Answer[] = [];
    const seen = new Set<string>();
    for (const record of records) {
      if (record.port === -1) continue;
      const family = isIP(record.host);
      const target = family === 0 ? fqdn(record.host) : record.key + (zone === '.' ? '' : zone);
      if (!seen.has(`${target} ${record.port}`)) {
        seen.add(`${target} ${record.port}`);
        answer.push({ name: req.name, type: 'SRV', class: 'IN', ttl: externals.ttl, data: { priority: 0, weight, port: record.port, target } });
      }
      if (seen.has(`${target} @${record.host}`)) continue;
      seen.add(`${target} @${record.host}`);
      if (family !== 0) {
        extra.push(this.addressRecord(target, record.host));
        continue;
      }
      for (const qtype of [TYPE_A, TYPE_AAAA]) extra.push(...(((await this.lookup(req, target, qtype))?.answers ?? []) as Answer[]));
    }
    return this.answer(req, w, zone, externals, answer, extra);
  }

  /** msg_to_dns.go `ptr`: `<service>.<namespace>` in the first zone, once each. */
  private ptr(req: Request, records: readonly ExternalRecord[]): Answer[] {
    const first = this.options.zones[0]!;
    return [...new Set(records.map((record) => record.host))].map((host) => ({ name: req.name, type: 'PTR', class: 'IN', ttl: this.options.ttl, data: join(host, first) }));
  }

  /** The reply: authoritative, the SOA as authority when there is no answer. */
  private answer(req: Request, w: ResponseWriter, zone: string, externals: ServiceExternals, answer: Answer[], extra: Answer[], truncated = false): number {
    const reply = replyTo(req, Rcode.NOERROR) as Packet & { flags: number };
    reply.flags |= Flags.AA | (truncated ? Flags.TC : 0);
    reply.answers = answer;
    reply.additionals = extra;
    if (answer.length === 0) reply.authorities = [this.soa(zone, externals)];
    w.write(reply);
    return Rcode.NOERROR;
  }

  private negative(req: Request, w: ResponseWriter, zone: string, externals: ServiceExternals, rcode: number): number {
    const reply = replyTo(req, rcode) as Packet & { flags: number };
    reply.flags |= Flags.AA;
    reply.authorities = [this.soa(zone, externals)];
    w.write(reply);
    return rcode;
  }

  /** apex.go `soa`: CoreDNS's fixed timers, the serial of the last external change. */
  private soa(zone: string, externals: ServiceExternals): Answer {
    const ttl = this.options.ttl;
    return {
      name: zone,
      type: 'SOA',
      class: 'IN',
      ttl,
      data: { mname: join('ns1', this.options.apex, zone), rname: join(hostmaster, this.options.apex, zone), serial: externals.serial(), refresh: 7200, retry: 1800, expire: 86400, minimum: ttl },
    };
  }

  private addressRecord(name: string, ip: string): Answer {
    return { name, type: isIP(ip) === 4 ? 'A' : 'AAAA', class: 'IN', ttl: this.options.ttl, data: ip };
  }

  /** upstream.Lookup of a hostname's addresses; nothing when the rest of the chain cannot answer. */
  private async lookup(req: Request, name: string, qtype: number): Promise<Packet | undefined> {
    try {
      return await lookupVia(this.next, this.name, req, name, qtype);
    } catch {
      return undefined;
    }
  }

  private fallsThrough(qname: string): boolean {
    return this.options.fallthrough !== null && this.options.fallthrough.some((zone) => isSubdomain(qname, zone));
  }
}

/** dnsutil.Join: labels and a fully qualified name, the root not doubled. */
function join(...labels: string[]): string {
  const last = labels[labels.length - 1];
  if (last === '.') return `${labels.slice(0, -1).join('.')}.`;
  return fqdn(labels.join('.'));
}

