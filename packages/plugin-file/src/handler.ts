/**
 * The *file* handler: CoreDNS's `File.ServeDNS` (`plugin/file/file.go`). Authoritative answers
 * from the zone the query falls in; names outside every zone go to the next plugin.
 */
import { Flags, isSubdomain, nextOrFailure, OPCODE_NOTIFY, Rcode, replyTo, TYPE_AXFR, TYPE_IXFR } from '@foghorn/core';
import type { Handler, HandlerResult, Request, ResponseWriter } from '@foghorn/core';
import type { FileZones } from './zones.js';
import { Result } from './zone.js';


export class File implements Handler {
  readonly name = 'file';

  constructor(
    private readonly zones: FileZones,
    /** Zones `fallthrough` applies to; empty when it is off. */
    private readonly fallthrough: readonly string[],
    private readonly next: Handler | null,
  ) {}

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    const entry = this.zones.match(req.qname);
    if (!entry) {
      // Authoritative only: with nothing after it, a name outside the zones is refused.
      if (this.next === null) return Rcode.REFUSED;
      return nextOrFailure(this.name, this.next, req, w);
    }
    const data = entry.data;
    if (data === null) return Rcode.SERVFAIL;
    // Transfers are *transfer*'s; one that reaches here is not allowed.
    if (req.qtype === TYPE_AXFR || req.qtype === TYPE_IXFR) return Rcode.REFUSED;
    // NOTIFY is for secondary zones, which this plugin does not serve: dropped, as CoreDNS does.
    if (((req.flags >> 11) & 0xf) === OPCODE_NOTIFY) return Rcode.NOERROR;

    let found = data.lookup(req.qname, req.qtype);
    // CoreDNS's `zone/wildcard` metadata: the wildcard that synthesised the answer.
    if (found.wildcard !== undefined) req.metadata?.set('zone/wildcard', found.wildcard);
    if (req.dnssecOk && data.signed) found = data.sign(found, req.qname);
    if (found.answer.length === 0 && (found.result === Result.NameError || found.result === Result.Success) && this.fallsThrough(req.qname)) {
      return nextOrFailure(this.name, this.next, req, w);
    }
    const msg = replyTo(req);
    msg.flags |= Flags.AA;
    msg.answers = found.answer;
    msg.authorities = found.ns;
    msg.additionals = found.extra;
    switch (found.result) {
      case Result.NameError:
        msg.flags |= Rcode.NXDOMAIN;
        break;
      case Result.Delegation:
        // A referral is not authoritative; a partial answer with an in-zone alias keeps AA.
        if (found.answer.length === 0) msg.flags &= ~Flags.AA;
        break;
      case Result.ServerFailure:
        if (found.answer.length === 0) return Rcode.SERVFAIL;
        msg.flags |= Rcode.SERVFAIL;
        break;
    }
    w.write(msg);
    return Rcode.NOERROR;
  }

  private fallsThrough(qname: string): boolean {
    for (const zone of this.fallthrough) if (isSubdomain(qname, zone)) return true;
    return false;
  }
}
