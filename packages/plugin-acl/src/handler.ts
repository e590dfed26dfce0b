/**
 * The acl handler: checks each query against the rules of its server block and allows, blocks,
 * filters or drops it. Rules are tried in file order; inside a rule the first matching policy
 * decides; a query no policy matches goes on to the next plugin.
 */
import { matchZone, nextOrFailure, Rcode, replyTo } from '@foghorn/core';
import type { Handler, HandlerResult, Logger, Request, ResponseWriter } from '@foghorn/core';
import { edeOption, replyOpt } from '@foghorn/core/wire';
import { networkContains, parseClientAddress } from './address.js';
import type { AddressWords, Network } from './address.js';
import type { AclMetrics } from './metrics.js';
import type { AclAction, AclPolicy, AclRule } from './setup.js';

/** RFC 8914 §4.16: "Blocked", what CoreDNS attaches to a blocked query's REFUSED. */
export const EDE_BLOCKED = 15;
/** RFC 8914 §4.18: "Filtered", what CoreDNS attaches to a filtered query's empty NOERROR. */
export const EDE_FILTERED = 17;

/** A policy matched nothing in a rule: try the next rule. */
const noAction = 'none';

export class Acl implements Handler {
  readonly name = 'acl';
  /**
   * Label objects per `server` (a block has one per listener), built once, so the allow path,
   * taken by almost every query, allocates nothing for its counter.
   */
  private readonly allowedLabels = new Map<string, { server: string; view: string }>();

  constructor(
    private readonly rules: readonly AclRule[],
    private readonly metrics: AclMetrics,
    private readonly log: Logger,
    private readonly next: Handler | null,
    /** The block's view, the `view` label ('' without one). */
    private readonly view = '',
  ) {}

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    // The client address is parsed at most once, and only when some rule guards the name.
    let client: AddressWords | undefined | null = null;
    for (const rule of this.rules) {
      const zone = matchZone(rule.zones, req.qname);
      if (zone === undefined) continue;
      if (client === null) client = parseClientAddress(req.remoteAddress);
      let action: AclAction | typeof noAction;
      if (client === undefined) {
        // As CoreDNS: a source that cannot be read is refused rather than let through.
        this.log.error(`Blocking request. Unable to parse source address: ${req.remoteAddress}`);
        action = 'block';
      } else {
        action = matchPolicies(rule.policies, req.qtype, client);
      }
      switch (action) {
        case 'allow':
          return this.allow(req, w);
        case 'block':
          w.write(this.reply(req, Rcode.REFUSED, EDE_BLOCKED));
          this.metrics.blocked.inc({ server: req.server, zone, view: this.view });
          // CoreDNS returns success here: the REFUSED has been written already.
          return Rcode.NOERROR;
        case 'filter':
          w.write(this.reply(req, Rcode.NOERROR, EDE_FILTERED));
          this.metrics.filtered.inc({ server: req.server, zone, view: this.view });
          return Rcode.NOERROR;
        case 'drop':
          // Success without a write: the listener sends nothing, so the client times out.
          this.metrics.dropped.inc({ server: req.server, zone, view: this.view });
          return Rcode.NOERROR;
        case noAction:
          break;
      }
    }
    return this.allow(req, w);
  }

  private allow(req: Request, w: ResponseWriter): HandlerResult {
    let labels = this.allowedLabels.get(req.server);
    if (labels === undefined) {
      labels = { server: req.server, view: this.view };
      this.allowedLabels.set(req.server, labels);
    }
    this.metrics.allowed.inc(labels);
    return nextOrFailure(this.name, this.next, req, w);
  }

  /**
   * An empty reply with `rcode`. The extended error rides in an OPT record only when the query
   * had one: RFC 6891 §7 forbids OPT in a reply to a query without it (CoreDNS adds it anyway).
   */
  private reply(req: Request, rcode: number, ede: number): ReturnType<typeof replyTo> {
    const msg = replyTo(req, rcode);
    // RFC 8914 §2: CoreDNS leaves the EXTRA-TEXT empty.
    if (req.hasEdns) msg.additionals = [replyOpt(req, { options: [edeOption(ede)] })];
    return msg;
  }
}

/** The action of the first policy matching the query's type and source, or `none`. */
function matchPolicies(policies: readonly AclPolicy[], qtype: number, client: AddressWords): AclAction | typeof noAction {
  for (const policy of policies) {
    if (policy.qtypes !== null && !policy.qtypes.has(qtype)) continue;
    if (policy.networks !== null && !inAny(policy.networks, client)) continue;
    return policy.action;
  }
  return noAction;
}

/** A plain loop: `Array#some` would allocate a closure per policy per query. */
function inAny(networks: readonly Network[], client: AddressWords): boolean {
  for (const network of networks) if (networkContains(network, client)) return true;
  return false;
}
