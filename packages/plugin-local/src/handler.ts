/**
 * The *local* handler (CoreDNS v1.14.7's `plugin/local/local.go`): loopback answers for
 * `localhost.` and the names under it, an empty zone for each of the reverse zones RFC 6303 keeps
 * local, and the PTR of 127.0.0.1.
 *
 * Cost: a query that is not local (nearly all of them) costs two or three string compares on the
 * lower-case name before it goes on; local answers are built per query, as they are rare.
 */
import { isSubdomain, nextOrFailure, Rcode, replyTo, TYPE_A, TYPE_AAAA, TYPE_NS, TYPE_PTR, TYPE_SOA } from '@foghorn/core';
import type { Handler, HandlerResult, Logger, Request, ResponseWriter } from '@foghorn/core';
import type { Answer } from 'dns-packet';
import type { LocalMetrics } from './metrics.js';
import type { LocalOptions } from './setup.js';

/** The TTL of every record *local* writes, and its SOA's minimum: one week, as in CoreDNS. */
export const LOCAL_TTL = 604800;

const LOCALHOST = 'localhost.';
const IN_ADDR_ARPA = 'in-addr.arpa.';
/** The zones CoreDNS's *local* serves; none is inside another. */
const reverseZones = ['0.in-addr.arpa.', '127.in-addr.arpa.', '255.in-addr.arpa.'] as const;
const LOOPBACK_PTR = '1.0.0.127.in-addr.arpa.';

export class Local implements Handler {
  readonly name = 'local';
  private readonly localhostPrefix: boolean;

  constructor(
    options: LocalOptions,
    private readonly metrics: LocalMetrics,
    private readonly log: Logger,
    private readonly next: Handler | null,
  ) {
    this.localhostPrefix = options.localhostPrefix;
  }

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    const name = req.qname;
    // RFC 6761 §6.3: every name under localhost. is loopback; `localhost.<domain>` too while
    // localhost_prefix is on (CoreDNS's default, for backward compatibility).
    if (name.length > LOCALHOST.length && (name.endsWith('.localhost.') || (this.localhostPrefix && name.startsWith(LOCALHOST)))) {
      return this.localhost(req, w);
    }
    const zone = localZone(name);
    if (zone === undefined) return nextOrFailure(this.name, this.next, req, w);

    const reply = replyTo(req);
    // Owners keep the client's spelling: the question's name, or its tail for the zone.
    const owner = req.name;
    const zoneOwner = owner.slice(owner.length - zone.length);
    if (name === zone) {
      switch (req.qtype) {
        case TYPE_A:
          if (name === LOCALHOST) reply.answers = [{ name: owner, type: 'A', class: 'IN', ttl: LOCAL_TTL, data: '127.0.0.1' }];
          else reply.authorities = [soa(owner)];
          break;
        case TYPE_AAAA:
          if (name === LOCALHOST) reply.answers = [{ name: owner, type: 'AAAA', class: 'IN', ttl: LOCAL_TTL, data: '::1' }];
          else reply.authorities = [soa(owner)];
          break;
        case TYPE_SOA:
          reply.answers = [soa(owner)];
          break;
        case TYPE_NS:
          reply.answers = [{ name: owner, type: 'NS', class: 'IN', ttl: LOCAL_TTL, data: LOCALHOST }];
          break;
        default:
          reply.authorities = [soa(owner)];
      }
    } else if (name === LOOPBACK_PTR) {
      if (req.qtype === TYPE_PTR) reply.answers = [{ name: owner, type: 'PTR', class: 'IN', ttl: LOCAL_TTL, data: LOCALHOST }];
      else reply.authorities = [soa(zoneOwner)];
    } else {
      reply.authorities = [soa(zoneOwner)];
      reply.flags |= Rcode.NXDOMAIN;
    }
    w.write(reply);
    return Rcode.NOERROR;
  }

  /** CoreDNS's `doLocalhost`: 127.0.0.1 for A, ::1 for AAAA, NODATA with an SOA of the name for the rest. */
  private localhost(req: Request, w: ResponseWriter): number {
    this.log.debug(`Intercepting localhost query for ${JSON.stringify(req.qname)} ${req.type}, from ${req.remoteAddress}`);
    this.metrics.localhostRequests.inc();
    const reply = replyTo(req);
    const owner = req.name;
    if (req.qtype === TYPE_A) reply.answers = [{ name: owner, type: 'A', class: 'IN', ttl: LOCAL_TTL, data: '127.0.0.1' }];
    else if (req.qtype === TYPE_AAAA) reply.answers = [{ name: owner, type: 'AAAA', class: 'IN', ttl: LOCAL_TTL, data: '::1' }];
    else reply.authorities = [soa(owner)];
    w.write(reply);
    return Rcode.NOERROR;
  }
}

/** The local zone `name` is in, or undefined: CoreDNS's `plugin.Zones(zones).Matches`. */
function localZone(name: string): string | undefined {
  if (name === LOCALHOST) return LOCALHOST;
  if (!name.endsWith(IN_ADDR_ARPA)) return undefined;
  for (const zone of reverseZones) if (isSubdomain(name, zone)) return zone;
  return undefined;
}

/** CoreDNS's `soaFromOrigin`: the empty zone's SOA, owned by `origin`. */
function soa(origin: string): Answer {
  return {
    name: origin,
    type: 'SOA',
    class: 'IN',
    ttl: LOCAL_TTL,
    data: { mname: LOCALHOST, rname: 'root.localhost.', serial: 1, refresh: 0, retry: 0, expire: 0, minimum: LOCAL_TTL },
  };
}
