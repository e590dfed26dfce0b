/**
 * The *transfer* handler (CoreDNS's `plugin/transfer/transfer.go`): answers AXFR, and IXFR with
 * the AXFR fallback, over TCP for the zones of a `transfer` directive, streaming the records a
 * transferer (*file*) hands out in envelopes of at most ~63 kB; and sends NOTIFY (RFC 1996) when
 * a transferer says a zone changed.
 */
import dnsPacket from 'dns-packet';
import type { Answer, Packet } from 'dns-packet';
import { Flags, isSubdomain, nextOrFailure, Rcode, replyTo, TYPE_AXFR, TYPE_IXFR } from '@foghorn/core';
import type { Handler, HandlerResult, Logger, Request, ResponseWriter, Transferer } from '@foghorn/core';
import type { XfrConfig } from './setup.js';

/**
 * CoreDNS flushes an envelope before it passes 63000 bytes of records, leaving room for the
 * header and question under the 65535-byte TCP message limit.
 */
const ENVELOPE_BYTES = 63_000;

const codec = dnsPacket as unknown as { answer: { encodingLength(rr: Answer): number } };

/** The `transfer` directive whose zones match `name` longest (CoreDNS's `longestMatch`). */
export function longestMatch(xfrs: readonly XfrConfig[], name: string): XfrConfig | undefined {
  let best: XfrConfig | undefined;
  let bestZone = '';
  for (const x of xfrs) {
    for (const zone of x.zones) {
      if (!isSubdomain(name, zone)) continue;
      if (zone.length > bestZone.length || (zone.length === bestZone.length && zone > bestZone) || best === undefined) {
        best = x;
        bestZone = zone;
      }
    }
  }
  return best;
}

/** Whether `address` may transfer: `*`, or the host of a `to` address (ports do not matter). */
export function allowed(x: XfrConfig, address: string): boolean {
  for (const to of x.to) {
    if (to === '*') return true;
    const host = to.startsWith('[') ? to.slice(1, to.indexOf(']')) : to.slice(0, to.lastIndexOf(':'));
    if (host === address) return true;
  }
  return false;
}

export class Transfer implements Handler {
  readonly name = 'transfer';

  constructor(
    private readonly xfrs: readonly XfrConfig[],
    /** The block's transferers (`c.use(Transferers)`): a live list, complete once the server runs. */
    private readonly transferers: readonly Transferer[],
    private readonly log: Logger,
    private readonly next: Handler | null,
  ) {}

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    if (req.qtype !== TYPE_AXFR && req.qtype !== TYPE_IXFR) return nextOrFailure(this.name, this.next, req, w);
    // RFC 5936 §4.2: zone transfers are TCP only.
    if (req.transport !== 'tcp') return Rcode.REFUSED;
    const x = longestMatch(this.xfrs, req.qname);
    if (!x) return nextOrFailure(this.name, this.next, req, w);
    if (!allowed(x, req.remoteAddress)) {
      // Written here rather than returned, so log and metrics see the refusal (as CoreDNS).
      w.write(replyTo(req, Rcode.REFUSED));
      return Rcode.NOERROR;
    }
    let serial = 0;
    if (req.qtype === TYPE_IXFR) {
      // RFC 1995 §3: the client's SOA is the only authority record.
      const authorities = req.message.authorities ?? [];
      const soa = authorities[0];
      if (authorities.length !== 1 || soa?.type !== 'SOA') return Rcode.SERVFAIL;
      serial = soa.data.serial ?? 0;
    }
    for (const transferer of this.transferers) {
      const records = transferer.transfer(req.qname, serial);
      if (records !== null) return this.stream(req, w, records);
    }
    return nextOrFailure(this.name, this.next, req, w);
  }

  /** Writes the records in envelopes; a lone SOA is an up-to-date IXFR's answer. */
  private async stream(req: Request, w: ResponseWriter, records: Iterable<readonly Answer[]> | AsyncIterable<readonly Answer[]>): Promise<number> {
    let batch: Answer[] = [];
    let bytes = 0;
    let sent = 0;
    let soa: Answer | undefined;
    for await (const rrs of records) {
      for (const rr of rrs) {
        if (soa === undefined && rr.type === 'SOA') soa = rr;
        const length = codec.answer.encodingLength(rr);
        if (batch.length > 0 && bytes + length > ENVELOPE_BYTES) {
          // The client went away (closed, or cut for not reading): stop walking the zone for it.
          if (this.envelope(req, w, batch) === 0) return Rcode.SERVFAIL;
          // A slow secondary holds the transfer back rather than the whole zone piling up in memory.
          await w.drained?.();
          sent += batch.length;
          batch = [];
          bytes = 0;
        }
        batch.push(rr);
        bytes += length;
      }
    }
    const serial = soa?.type === 'SOA' ? (soa.data.serial ?? 0) : 0;
    if (sent === 0 && batch.length === 1 && soa !== undefined) {
      const msg = replyTo(req);
      msg.answers = [soa];
      w.write(msg);
      this.log.info(`Outgoing noop, incremental transfer for up to date zone "${req.name}" to ${req.remoteAddress} for ${serial} SOA serial`);
      return Rcode.NOERROR;
    }
    if (batch.length > 0) {
      this.envelope(req, w, batch);
      sent += batch.length;
    }
    this.log.info(`Outgoing transfer of ${sent} records of zone "${req.name}" to ${req.remoteAddress} for ${serial} SOA serial`);
    return Rcode.NOERROR;
  }

  /** Writes one envelope; the bytes sent, 0 when the connection is gone. */
  private envelope(req: Request, w: ResponseWriter, answers: Answer[]): number {
    const msg: Packet = replyTo(req);
    msg.flags = (msg.flags ?? 0) | Flags.AA;
    msg.answers = answers;
    return w.write(msg);
  }
}
