/**
 * The *secondary* handler: CoreDNS's `File.ServeDNS` as *secondary* embeds it. Authoritative
 * answers from a transferred zone; NOTIFY from a zone's primary starts a refresh; SERVFAIL before
 * the first transfer and once the zone expired.
 */
import { Flags, nextOrFailure, OPCODE_NOTIFY, Rcode, replyTo, TYPE_AXFR, TYPE_IXFR } from '@foghorn/core';
import type { Handler, HandlerResult, Logger, Request, ResponseWriter } from '@foghorn/core';
import { serveZone } from '@foghorn/core/wire';
import type { ZoneServing } from '@foghorn/core/wire';
import type { SecondaryZones } from './zones.js';

export class Secondary implements Handler, ZoneServing {
  readonly name = 'secondary';

  constructor(
    private readonly zones: SecondaryZones,
    /** Zones `fallthrough` applies to; empty when it is off. */
    readonly fallthrough: readonly string[],
    readonly next: Handler | null,
    /** `plugin/file:` lines, as CoreDNS logs a dropped NOTIFY. */
    private readonly fileLog: Logger,
  ) {}

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    const origin = this.zones.match(req.qname);
    if (origin === undefined) {
      // Authoritative only: with nothing after it, a name outside the zones is refused.
      if (this.next === null) return Rcode.REFUSED;
      return nextOrFailure(this.name, this.next, req, w);
    }
    const zone = this.zones.get(origin)!;
    // Transfers out are *transfer*'s; one that reaches here is not allowed.
    if (req.qtype === TYPE_AXFR || req.qtype === TYPE_IXFR) return Rcode.REFUSED;
    if (((req.flags >> 11) & 0xf) === OPCODE_NOTIFY) {
      if (!zone.isPrimary(req.remoteAddress)) {
        // Unanswered, so a stranger learns nothing; a primary that is not configured retries in vain.
        this.fileLog.info(`Dropping notify from ${req.remoteAddress} for ${origin}`);
        return Rcode.NOERROR;
      }
      const ack = replyTo(req);
      ack.flags |= Flags.AA;
      w.write(ack);
      zone.notify(req.remoteAddress);
      return Rcode.NOERROR;
    }
    const data = zone.data;
    if (data === null || zone.expired) return Rcode.SERVFAIL;
    return serveZone(req, w, data, this);
  }
}
