import { setTimeout as sleep } from 'node:timers/promises';
import { Flags, Rcode, replyTo, TYPE_A, TYPE_AAAA, TYPE_AXFR } from '@foghorn/core';
import type { Handler, HandlerResult, Request, ResponseWriter } from '@foghorn/core';
import type { Answer, Packet } from 'dns-packet';
import type { ErraticOptions } from './setup.js';


/** The fixed answers: documentation addresses (RFC 5737, RFC 3849). */
const ADDRESS_A = '192.0.2.53';
const ADDRESS_AAAA = '2001:db8::53';

/**
 * CoreDNS's *erratic* (`plugin/erratic/erratic.go`): answers A and AAAA with fixed records and
 * AXFR with a small zone, SERVFAIL for every other type, and drops, delays or truncates every
 * Nth query. It never calls a next plugin. One instance serves a server block, so the query
 * count runs across its transports and zones.
 */
export class Erratic implements Handler {
  readonly name = 'erratic';
  /** Queries seen so far. */
  private queries = 0;

  constructor(private readonly options: ErraticOptions) {}

  /** CoreDNS's `Ready`: true while 3 or 4 queries were seen, so tests see readiness flip. */
  ready(): boolean {
    return this.queries >= 3 && this.queries < 5;
  }

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    const { drop, delay, truncate } = this.options;
    const n = this.queries++;
    // The count starts at 0, so the first query is dropped, delayed and truncated when enabled.
    // CoreDNS tests truncation with `n & truncate` (a typo for `%`); Foghorn truncates 1 per
    // AMOUNT queries, as its README says.
    const dropped = drop > 0 && n % drop === 0;
    const delayed = delay > 0 && n % delay === 0;
    const truncated = truncate > 0 && n % truncate === 0;
    // Nothing written and a success code: the server sends nothing either. No delay for these.
    if (dropped) return Rcode.NOERROR;
    let reply: Packet | undefined;
    if (req.qtype === TYPE_A || req.qtype === TYPE_AAAA) reply = this.address(req, truncated);
    else if (req.qtype === TYPE_AXFR) reply = transfer(req, truncated);
    // Any other type: SERVFAIL, which the server writes.
    const finish = (): number => {
      if (reply === undefined) return Rcode.SERVFAIL;
      w.write(reply);
      return Rcode.NOERROR;
    };
    if (!delayed || this.options.delayMs <= 0) return finish();
    return sleep(this.options.delayMs).then(finish);
  }

  private address(req: Request, truncated: boolean): Packet {
    const reply = replyTo(req);
    reply.flags |= Flags.AA | (truncated ? Flags.TC : 0);
    const rr: Answer = req.qtype === TYPE_A ? { type: 'A', name: req.name, class: 'IN', ttl: 0, data: ADDRESS_A } : { type: 'AAAA', name: req.name, class: 'IN', ttl: 0, data: ADDRESS_AAAA };
    // `large` repeats the A record 30 times (CoreDNS's erratic appends the same record 29 more).
    reply.answers = this.options.large && req.qtype === TYPE_A ? Array.from({ length: 30 }, () => rr) : [rr];
    return reply;
  }
}

/**
 * CoreDNS's `xfr`: the zone `allRecords` builds under the query name, in one message. The
 * closing SOA is left out of a truncated transfer, so the client sees an incomplete AXFR (no TC).
 */
function transfer(req: Request, truncated: boolean): Packet {
  const zone = req.name;
  const under = (label: string): string => (zone === '.' ? `${label}.` : `${label}.${zone}`);
  const soa: Answer = {
    type: 'SOA',
    name: zone,
    class: 'IN',
    ttl: 0,
    data: { mname: 'sns.dns.icann.org.', rname: 'noc.dns.icann.org.', serial: 2018050825, refresh: 7200, retry: 3600, expire: 1209600, minimum: 3600 },
  };
  const records: Answer[] = [
    soa,
    { type: 'NS', name: zone, class: 'IN', ttl: 0, data: under('b') },
    { type: 'NS', name: zone, class: 'IN', ttl: 0, data: under('a') },
    { type: 'AAAA', name: under('a'), class: 'IN', ttl: 0, data: '2001:bd8::53' },
    { type: 'AAAA', name: under('b'), class: 'IN', ttl: 0, data: '2001:500::54' },
  ];
  if (!truncated) records.push(soa);
  const reply = replyTo(req);
  reply.flags |= Flags.AA;
  reply.answers = records;
  return reply;
}
