/**
 * The route53 handler (CoreDNS `plugin/route53/route53.go`, `ServeDNS`): answers from the zones
 * read from Route 53, held in memory and replaced whole at each refresh. Per query: one zone
 * match, then *file*'s lookup in each hosted zone of that name in Corefile order until one has
 * an answer or the name (NODATA); a CNAME to a name outside the zone is completed by the rest of
 * the chain (CoreDNS's upstream lookup).
 *
 * | outcome                                        | reply                                    |
 * |------------------------------------------------|------------------------------------------|
 * | name outside the zones                         | next                                     |
 * | records                                        | NOERROR, AA, the records                 |
 * | name known, no records of the type             | NODATA: NOERROR, AA, the SOA             |
 * | no such name (or zone not loaded), `fallthrough` | next                                   |
 * | no such name                                   | NXDOMAIN, AA, the SOA                    |
 * | below a delegation                             | the referral, not AA                     |
 * | zone never loaded, or without SOA              | SERVFAIL                                 |
 */
import type { Packet } from 'dns-packet';
import { Flags, isSubdomain, lookupVia, matchZone, nextOrFailure, Rcode, replyTo, TYPE_CNAME } from '@foghorn/core';
import type { Handler, HandlerResult, Request, ResponseWriter } from '@foghorn/core';
import { LookupResult as Result } from '@foghorn/core/wire';
import type { ZoneLookup as Lookup, ZoneData } from '@foghorn/core/wire';

/** One hosted zone: its ID and the data of its last successful read (null before the first). */
export interface HostedZone {
  readonly id: string;
  data: ZoneData | null;
}

/** The zones of one `route53` line: zone name → hosted zones in Corefile order. */
export type Zones = ReadonlyMap<string, readonly HostedZone[]>;

const failed: Lookup = { answer: [], ns: [], extra: [], result: Result.ServerFailure };

export class Route53 implements Handler {
  readonly name = 'route53';
  private readonly names: string[];

  constructor(
    private readonly zones: Zones,
    private readonly fallthrough: readonly string[] | null,
    private readonly next: Handler | null,
  ) {
    this.names = [...zones.keys()];
  }

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    const qname = req.qname;
    const zone = matchZone(this.names, qname);
    if (zone === undefined) return nextOrFailure(this.name, this.next, req, w);
    let found = failed;
    for (const hosted of this.zones.get(zone)!) {
      found = hosted.data === null ? failed : hosted.data.lookup(qname, req.qtype);
      if (found.answer.length !== 0 || found.result === Result.NoData) break;
    }
    if (found.answer.length === 0 && found.result !== Result.NoData && this.fallthrough !== null && matchZone(this.fallthrough, qname) !== undefined) {
      return nextOrFailure(this.name, this.next, req, w);
    }
    if (found.result === Result.ServerFailure) return Rcode.SERVFAIL;
    const last = found.answer[found.answer.length - 1];
    if (found.result === Result.Success && last?.type === 'CNAME' && req.qtype !== TYPE_CNAME && !isSubdomain(String(last.data).toLowerCase().replace(/\.?$/, '.'), zone)) {
      return this.complete(req, w, found, String(last.data));
    }
    this.write(req, w, found, []);
    return Rcode.NOERROR;
  }

  /** A CNAME out of the zone: the answer plus what the rest of the chain says of its target. */
  private async complete(req: Request, w: ResponseWriter, found: Lookup, target: string): Promise<number> {
    let reply: Packet | undefined;
    if (this.next !== null) {
      try {
        reply = await lookupVia(this.next, this.name, req, target, req.qtype);
      } catch {
        reply = undefined;
      }
    }
    this.write(req, w, found, reply?.answers ?? []);
    return Rcode.NOERROR;
  }

  private write(req: Request, w: ResponseWriter, found: Lookup, more: NonNullable<Packet['answers']>): void {
    const reply = replyTo(req, found.result === Result.NameError ? Rcode.NXDOMAIN : Rcode.NOERROR);
    if (found.result !== Result.Delegation) reply.flags |= Flags.AA;
    reply.answers = more.length === 0 ? found.answer : [...found.answer, ...more];
    reply.authorities = found.ns;
    reply.additionals = found.extra;
    w.write(reply);
  }
}
