/**
 * The *dns64* handler (CoreDNS v1.14.7's `plugin/dns64/dns64.go`, RFC 6147): an AAAA query of
 * class IN from an IPv6 client (or any client with `allow_ipv4`) goes down the chain as usual;
 * when its reply has no AAAA record and is not a name error (or always, with `translate_all`),
 * the A records of the name are asked of the same plugins and the reply is made of them, each
 * address embedded in the prefix (RFC 6052).
 *
 * Cost: any other query costs three compares. An AAAA query it may translate costs one small
 * writer object, and a reply that has AAAA records passes as it was written (a wire reply is
 * read in place, not decoded). Only a translation decodes and looks the A records up.
 */
import dnsPacket from 'dns-packet';
import type { Answer, Packet } from 'dns-packet';
import { CLASS_IN, Flags, lookupVia, nextOrFailure, Rcode, replyTo, TYPE_A, TYPE_AAAA } from '@foghorn/core';
import type { CounterCell, Handler, HandlerResult, Request, ResponseWriter } from '@foghorn/core';
import { formatIp, parseIp, ResponseType, typify } from '@foghorn/core/wire';
import type { Cidr } from '@foghorn/core/wire';
import type { Dns64Metrics } from './metrics.js';
import type { Dns64Options } from './setup.js';
import { aaaaVerdict, Verdict } from './wire.js';

/** RFC 6147 §5.1.7: without an SOA in the AAAA reply, the TTL is at most 600 seconds. */
const DEFAULT_SOA_TTL = 600;

export class Dns64 implements Handler {
  readonly name = 'dns64';
  readonly translateAll: boolean;
  private readonly allowIpv4: boolean;
  private readonly prefix: Cidr;
  private lastServer = '';
  private lastCell: CounterCell | undefined;

  constructor(
    options: Dns64Options,
    private readonly metrics: Dns64Metrics,
    private readonly next: Handler | null,
  ) {
    this.prefix = options.prefix;
    this.translateAll = options.translateAll;
    this.allowIpv4 = options.allowIpv4;
  }

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    // RFC 6147 §5.1: only AAAA of class IN. Over IPv4 the client can reach the A records itself.
    if (req.qtype !== TYPE_AAAA || req.qclass !== CLASS_IN || (!this.allowIpv4 && req.family === 'IPv4')) {
      return nextOrFailure(this.name, this.next, req, w);
    }
    const writer = new Dns64Writer(this, req, w);
    const result = nextOrFailure(this.name, this.next, req, writer);
    if (typeof result === 'number') return writer.pending === undefined ? result : writer.pending;
    return result.then((rcode) => (writer.pending === undefined ? rcode : writer.pending));
  }

  /** CoreDNS's `responseShouldDNS64` on a message: not a name error, and no AAAA unless translate_all. */
  shouldTranslate(msg: Packet, req: Request): boolean {
    // Only an NXDOMAIN can be a name error: the clock and the classification only for those.
    if (((msg.flags ?? 0) & 0x0f) === Rcode.NXDOMAIN && typify(msg, Math.floor(Date.now() / 1000), req.dnssecOk) === ResponseType.NameError) return false;
    if (this.translateAll) return true;
    for (const rr of msg.answers ?? []) if (rr.type === 'AAAA') return false;
    return true;
  }

  /**
   * CoreDNS's `DoDNS64` and `Synthesize`: asks the plugins after dns64 for the name's A records
   * and writes the reply made of them. Resolves with the rcode written.
   */
  async translate(req: Request, original: Packet, w: ResponseWriter): Promise<number> {
    let a: Packet | undefined;
    try {
      // CoreDNS asks for the lower-case name, so the records it gets are owned by that.
      a = await lookupVia(this.next, this.name, req, req.qname, TYPE_A);
    } catch {
      // CoreDNS's lookup goes through its whole server, which answers a failure with SERVFAIL:
      // a reply with no records, which gives an empty NOERROR below.
      a = undefined;
    }
    const reply = replyTo(req);
    // The header is the query's (SetReply), with the lookup's TC: a client that sees a cut A
    // set retries over TCP.
    if ((((a?.flags ?? 0) & Flags.TC) !== 0)) reply.flags |= Flags.TC;
    // RFC 6147 §5.3.2: the additional section is passed unchanged (the scrub writes the OPT).
    reply.authorities = a?.authorities ?? [];
    reply.additionals = (a?.additionals ?? []).filter((rr) => rr.type !== 'OPT');
    // RFC 6147 §5.1.7: the TTL is at most the SOA's of the AAAA reply, else at most 600.
    let soaTtl = DEFAULT_SOA_TTL;
    for (const rr of original.authorities ?? []) if (rr.type === 'SOA') soaTtl = rr.ttl ?? 0;
    const answers: Answer[] = [];
    for (const rr of a?.answers ?? []) {
      const v4 = rr.type === 'A' ? parseIp(rr.data) : null;
      // RFC 6147 §5.3.3: every record but A goes through unchanged.
      if (rr.type !== 'A' || v4 === null || v4.length !== 4) {
        answers.push(rr);
        continue;
      }
      answers.push({ name: rr.name, type: 'AAAA', class: rr.class ?? 'IN', ttl: Math.min(rr.ttl ?? 0, soaTtl), data: aaaaText(to6(this.prefix, v4)) });
    }
    reply.answers = answers;
    this.translatedCell(req.server).value++;
    w.write(reply);
    return Rcode.NOERROR;
  }

  private translatedCell(server: string): CounterCell {
    if (server !== this.lastServer || this.lastCell === undefined) {
      this.lastCell = this.metrics.translated.child(server);
      this.lastServer = server;
    }
    return this.lastCell;
  }
}

/**
 * The writer of an AAAA query dns64 may translate: a reply that needs no translation goes on as
 * written; one that does starts the translation, which writes in its place.
 */
export class Dns64Writer implements ResponseWriter {
  /** The translation in progress, resolving with the rcode it wrote. */
  pending: Promise<number> | undefined = undefined;

  constructor(
    private readonly dns64: Dns64,
    private readonly req: Request,
    private readonly inner: ResponseWriter,
  ) {}

  write(msg: Packet): number {
    if (!this.dns64.shouldTranslate(msg, this.req)) return this.inner.write(msg);
    this.pending = this.dns64.translate(this.req, msg, this.inner);
    return 0;
  }

  writeWire(wire: Buffer, size?: number): number {
    const verdict = aaaaVerdict(wire, this.dns64.translateAll);
    if (verdict === Verdict.Pass) return this.inner.writeWire(wire, size);
    const msg = dnsPacket.decode(wire);
    if (verdict === Verdict.Decode && !this.dns64.shouldTranslate(msg, this.req)) return this.inner.writeWire(wire, size);
    this.pending = this.dns64.translate(this.req, msg, this.inner);
    return 0;
  }
}

/**
 * RFC 6052 §2.2: the IPv4 address embedded after the prefix, bits 64 to 71 (the "u" octet) left
 * zero. CoreDNS's `to6`.
 */
export function to6(prefix: Cidr, v4: Uint8Array): Uint8Array {
  const v6 = new Uint8Array(16);
  let i = 0;
  let j = 0;
  for (; i < prefix.bits / 8; i++) v6[i] = prefix.network[i]!;
  for (; i < 8; i++, j++) v6[i] = v4[j]!;
  if (i === 8) i++;
  for (; j < 4; i++, j++) v6[i] = v4[j]!;
  return v6;
}

/** IPv6 text for an AAAA record: `formatIp` writes an IPv4-mapped address dotted, as Go does. */
function aaaaText(v6: Uint8Array): string {
  const text = formatIp(v6);
  return text.includes(':') ? text : `::ffff:${text}`;
}
