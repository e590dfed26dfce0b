/**
 * The *file* handler: CoreDNS's `File.ServeDNS` (`plugin/file/file.go`). Authoritative answers
 * from the zone the query falls in; names outside every zone go to the next plugin.
 */
import { OPCODE_NOTIFY, Rcode, TYPE_AXFR, TYPE_IXFR, nextOrFailure } from '@foghorn/core';
import type { Handler, HandlerResult, Request, ResponseWriter } from '@foghorn/core';
import { serveZone } from '@foghorn/core/wire';
import type { ZoneServing } from '@foghorn/core/wire';
import type { FileZones } from './zones.js';

export class File implements Handler, ZoneServing {
  readonly name = 'file';

  constructor(
    private readonly zones: FileZones,
    /** Zones `fallthrough` applies to; empty when it is off. */
    readonly fallthrough: readonly string[],
    readonly next: Handler | null,
  ) {}

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    const zone = this.zones.match(req.qname);
    if (!zone) {
      // Authoritative only: with nothing after it, a name outside the zones is refused.
      if (this.next === null) return Rcode.REFUSED;
      return nextOrFailure(this.name, this.next, req, w);
    }
    const data = zone.data;
    if (data === null) return Rcode.SERVFAIL;
    // Transfers are *transfer*'s; one that reaches here is not allowed.
    if (req.qtype === TYPE_AXFR || req.qtype === TYPE_IXFR) return Rcode.REFUSED;
    // NOTIFY is for secondary zones, which this plugin does not serve: dropped, as CoreDNS does.
    if (((req.flags >> 11) & 0xf) === OPCODE_NOTIFY) return Rcode.NOERROR;
    return serveZone(req, w, data, this);
  }
}
