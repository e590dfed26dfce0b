/**
 * The *auto* handler: CoreDNS's `Auto.ServeDNS` (`plugin/auto/auto.go`). A name under the
 * directive's zones is answered from the loaded zone it falls in, authoritatively, as *file*
 * answers; one under them that no loaded zone holds is refused (or passed on).
 */
import { matchZone, nextOrFailure, OPCODE_NOTIFY, Rcode, TYPE_AXFR, TYPE_IXFR } from '@foghorn/core';
import type { Handler, HandlerResult, Request, ResponseWriter } from '@foghorn/core';
import { serveZone } from '@foghorn/core/wire';
import type { ZoneServing } from '@foghorn/core/wire';
import type { AutoZones } from './zones.js';

export class Auto implements Handler, ZoneServing {
  readonly name = 'auto';
  /** *auto* has no `fallthrough`. */
  readonly fallthrough: readonly string[] = [];

  constructor(
    private readonly zones: AutoZones,
    readonly next: Handler | null,
  ) {}

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    // Precheck with the origins: are we allowed to look here at all?
    if (matchZone(this.zones.origins, req.qname) === undefined) return nextOrFailure(this.name, this.next, req, w);
    const zone = this.zones.match(req.qname);
    if (zone === undefined) {
      // Authoritative only: with nothing after it, a name in no loaded zone is refused.
      if (this.next === null) return Rcode.REFUSED;
      return nextOrFailure(this.name, this.next, req, w);
    }
    const data = zone.data;
    if (data === null) return Rcode.SERVFAIL;
    // Transfers are *transfer*'s; one that reaches here is not allowed.
    if (req.qtype === TYPE_AXFR || req.qtype === TYPE_IXFR) return Rcode.REFUSED;
    // NOTIFY is for secondary zones: dropped, as *file* drops it.
    if (((req.flags >> 11) & 0xf) === OPCODE_NOTIFY) return Rcode.NOERROR;
    return serveZone(req, w, data, this);
  }
}
