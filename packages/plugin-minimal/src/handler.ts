/**
 * The *minimal* handler (CoreDNS v1.14.7's `plugin/minimal/minimal.go`): a NOERROR reply that is
 * not a delegation goes out with its answer section only; every other reply goes out as written.
 *
 * CoreDNS holds the reply back until the plugins below return and then writes it; here the writer
 * decides as the reply passes, so nothing waits. Cost per query: one small writer object. A
 * message reply with nothing to strip is passed on untouched; a wire reply (forward's) is walked
 * once without decoding, and a new buffer is made only when something is cut.
 */
// A binding, not the global: read per query (docs/architecture.md, "Per-query code").
import { Buffer } from 'node:buffer';
import dnsPacket from 'dns-packet';
import type { Packet } from 'dns-packet';
import { nextOrFailure, OPT_LENGTH, TYPE_AXFR, TYPE_IXFR } from '@foghorn/core';
import type { Handler, HandlerResult, Request, ResponseWriter } from '@foghorn/core';
import { ResponseType, typify, writeOpt } from '@foghorn/core/wire';
import { DECODE, KEEP, minimalEnd } from './wire.js';
import type { OptFound } from './wire.js';

export class Minimal implements Handler {
  readonly name = 'minimal';

  constructor(private readonly next: Handler | null) {}

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    // A transfer streams its zone in many messages, each one neither answer nor denial: CoreDNS's
    // minimal would keep only the last of them; they go through untouched.
    if (req.qtype === TYPE_AXFR || req.qtype === TYPE_IXFR) return nextOrFailure(this.name, this.next, req, w);
    return nextOrFailure(this.name, this.next, req, new MinimalWriter(w, req));
  }
}

/** The OPT record {@link minimalEnd} found; one per process, as the walk is synchronous. */
const found: OptFound = { start: -1, end: -1, plain: false };

/** Writes what the plugins below write, minimised. */
export class MinimalWriter implements ResponseWriter {
  constructor(
    private readonly inner: ResponseWriter,
    private readonly req: Request,
  ) {}

  write(msg: Packet): number {
    if (!hasExtra(msg) || !this.isNoError(msg)) return this.inner.write(msg);
    return this.inner.write(minimised(msg));
  }

  writeWire(wire: Buffer, size?: number): number {
    const end = minimalEnd(wire, found);
    if (end === KEEP) return this.inner.writeWire(wire, size);
    if (end === DECODE) {
      const msg = dnsPacket.decode(wire);
      return this.isNoError(msg) ? this.inner.write(minimised(msg)) : this.inner.writeWire(wire, size);
    }
    const req = this.req;
    if (end === wire.length) return this.inner.writeWire(wire, size);
    // Nothing but the OPT the scrub would write: the bytes go as they are, counted without it.
    if (end === found.start && found.end === wire.length && found.plain && req.hasEdns && req.ednsOptions === null) return this.inner.writeWire(wire, end);
    // Options to echo: the scrub writes the OPT of a message.
    if (req.ednsOptions !== null) return this.inner.write(minimised(dnsPacket.decode(wire)));
    const out = Buffer.allocUnsafe(end + (req.hasEdns ? OPT_LENGTH : 0));
    wire.copy(out, 0, 0, end);
    out[8] = 0;
    out[9] = 0;
    out[10] = 0;
    out[11] = req.hasEdns ? 1 : 0;
    if (req.hasEdns) writeOpt(out, end, req.udpSize, req.dnssecOk);
    // CoreDNS's recorders above count the minimal message before the scrub adds OPT.
    return this.inner.writeWire(out, end);
  }

  /** CoreDNS's `response.Typify` says NoError: the only kind of reply minimal cuts. */
  private isNoError(msg: Packet): boolean {
    return typify(msg, Math.floor(Date.now() / 1000), this.req.dnssecOk) === ResponseType.NoError;
  }

  drained(): Promise<void> {
    return this.inner.drained?.() ?? Promise.resolve();
  }
}

/** As CoreDNS: header, question and answers; the scrub gives an EDNS client its OPT back. */
function minimised(msg: Packet): Packet {
  return { ...msg, authorities: [], additionals: [] };
}

/** Whether the message has anything minimal would strip: authority, or additional besides OPT. */
function hasExtra(msg: Packet): boolean {
  if (msg.authorities !== undefined && msg.authorities.length > 0) return true;
  const additionals = msg.additionals;
  if (additionals === undefined) return false;
  for (const rr of additionals) if (rr.type !== 'OPT') return true;
  return false;
}
