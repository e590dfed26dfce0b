/**
 * What a lookup returns: a complete reply minus header and question ({@link Answer}), or a name
 * the balancer answers ({@link Balanced}), and the zone every reply in it shares ({@link ZoneInfo}).
 */
import { Rcode } from '@foghorn/core';
import { questionOwned, rfc8482Hinfo } from '@foghorn/core/wire';
import { Outcome } from './counters.js';
import type { Served } from './counters.js';
import { exact } from './store.js';
import { selectPresent } from './swrr.js';
import type { BalancerState } from './swrr.js';
import { encodeSoaTail, RecordWriter, wireName } from './wire.js';

/** The supported IP families (the `ip_families` option). */
export interface Families {
  readonly v4: boolean;
  readonly v6: boolean;
}

/** A zone the plugin answers for, with what every reply in it shares. */
export class ZoneInfo {
  /** Lower-case wire form, compared with the question's zone bytes to decide on a case patch. */
  readonly wire: Buffer;
  /** `''` for the root zone, else the zone with its trailing dot: what names are built on. */
  readonly suffix: string;
  readonly isReverse: boolean;
  /** The SOA record minus its owner; replaced when the serial moves. */
  soaTail: Buffer;
  readonly nxdomain: Answer;
  readonly nodata: Answer;

  constructor(
    readonly name: string,
    private readonly ttl: number,
  ) {
    this.wire = wireName(name);
    this.suffix = name === '.' ? '' : name;
    this.isReverse = name.endsWith('in-addr.arpa.') || name.endsWith('ip6.arpa.');
    this.soaTail = encodeSoaTail(name, 0, ttl);
    this.nxdomain = negativeAnswer(Rcode.NXDOMAIN, this);
    this.nodata = negativeAnswer(Rcode.NOERROR, this);
  }

  setSerial(serial: number): void {
    this.soaTail = encodeSoaTail(this.name, serial, this.ttl);
  }
}

/** A complete reply minus header and question. */
export interface Answer {
  readonly kind: 'answer';
  readonly rcode: number;
  readonly outcome: number;
  readonly ancount: number;
  readonly body: Buffer;
  /** Offsets in `body` of lower-case zone names to overwrite with the client's spelling. */
  readonly zoneOffsets: readonly number[] | null;
  /** The zone whose SOA goes into the authority section (RFC 2308), or null for none. */
  readonly soaZone: ZoneInfo | null;
  /** Records served, per cluster, for `coredns_lighthouse_records_served_total`; null for none. */
  readonly served: Served | null;
}

/**
 * One family's balancer state and the answer each of its clusters would give (null = not acceptable);
 * when none is acceptable, `next` answers: the next family's stage, a healthy local cluster's
 * answer, or NODATA. The first stage that yields a cluster wins, as Lighthouse's coredns/resolver
 * does: a healthy local cluster first, then coredns/loadbalancer's round robin. A chain rather
 * than a list of stages, so the usual single stage is read from one object (the answer cache
 * copies the first stage into its record, see answer-cache.ts).
 */
export interface Stage {
  /** The state of the family's balancer (store.ts, `FamilyData.balancer`), shared by every name it answers. */
  readonly state: BalancerState;
  readonly answers: readonly (Answer | null)[];
  readonly next: Entry;
}

/** A name answered by the balancer. */
export interface Balanced extends Stage {
  readonly kind: 'balanced';
}

export type Entry = Answer | Balanced;

const empty = Buffer.alloc(0);

export function negativeAnswer(rcode: number, zone: ZoneInfo | null, outcome?: number): Answer {
  return {
    kind: 'answer',
    rcode,
    outcome: outcome ?? (rcode === Rcode.NXDOMAIN ? Outcome.nxdomain : Outcome.nodata),
    ancount: 0,
    body: empty,
    zoneOffsets: null,
    soaZone: zone,
    served: null,
  };
}

/** NOTIMP and NOTZONE carry no SOA: they are not negative answers in RFC 2308's sense. */
export const notImplemented: Answer = negativeAnswer(Rcode.NOTIMP, null, Outcome.notimp);

/**
 * ANY at a name that exists (RFC 8482 §4.2): the one synthesized HINFO record core builds for
 * CoreDNS's *any* plugin, owned by the question, instead of every record of the name.
 */
export const anyAnswer: Answer = {
  kind: 'answer',
  rcode: Rcode.NOERROR,
  outcome: Outcome.success,
  ancount: 1,
  body: questionOwned(rfc8482Hinfo('.')),
  zoneOffsets: null,
  soaZone: null,
  served: null,
};
export const notZone: Answer = negativeAnswer(Rcode.NOTZONE, null, Outcome.notzone);

/** A NOERROR answer with the records `writer` holds. */
export function positive(writer: RecordWriter, zone: ZoneInfo | null, served: Served | null): Answer {
  return {
    kind: 'answer',
    rcode: Rcode.NOERROR,
    outcome: Outcome.success,
    ancount: writer.count,
    body: writer.body(),
    zoneOffsets: zone && writer.zoneOffsets.length > 0 ? exact(writer.zoneOffsets) : null,
    soaZone: null,
    served,
  };
}

/** The balancer walk over prebuilt answers: the first stage with an acceptable cluster answers. */
export function pick(first: Stage): Answer {
  let stage: Stage = first;
  for (;;) {
    const answers = stage.answers;
    const index = selectPresent(stage.state, answers);
    if (index >= 0) return answers[index]!;
    const next = stage.next;
    if (next.kind === 'answer') return next;
    stage = next;
  }
}
