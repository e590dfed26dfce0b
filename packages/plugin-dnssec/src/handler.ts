/**
 * The *dnssec* handler (CoreDNS's `plugin/dnssec/handler.go` and `responsewriter.go`): answers
 * DNSKEY at the apex of its zones itself, and hands DO queries in its zones down the chain with a
 * writer that signs the reply on its way back. Other queries pass untouched, at the cost of one
 * zone match.
 */
import { Flags, matchZone, nextOrFailure, Rcode, replyTo } from '@foghorn/core';
import type { Handler, HandlerResult, Request, ResponseWriter } from '@foghorn/core';
import dnsPacket from 'dns-packet';
import type { Packet } from 'dns-packet';
import { serverCells } from './metrics.js';
import type { DnssecMetrics, ServerCells } from './metrics.js';
import type { Signer } from './signer.js';

const TYPE_DNSKEY = 48;

export class Dnssec implements Handler {
  readonly name = 'dnssec';
  private readonly cellsByServer = new Map<string, ServerCells>();
  /** Cells of the last server label seen: a listener sends runs of queries with the same one. */
  private lastServer: string | undefined;
  private lastCells: ServerCells | undefined;

  constructor(
    readonly signer: Signer,
    private readonly metrics: DnssecMetrics,
    private readonly next: Handler | null,
    /** Seconds since the epoch; injectable so tests can sign in the past or the future. */
    private readonly now: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    const zone = matchZone(this.signer.zones, req.qname);
    if (zone === undefined) return nextOrFailure(this.name, this.next, req, w);
    if (req.qtype === TYPE_DNSKEY && req.qname === zone) {
      const reply = replyTo(req);
      reply.flags |= Flags.AA;
      reply.answers = this.signer.dnskeys(zone, req.dnssecOk, this.now(), this.cellsFor(req.server));
      w.write(reply);
      return Rcode.NOERROR;
    }
    if (!req.dnssecOk) return nextOrFailure(this.name, this.next, req, w);
    return nextOrFailure(this.name, this.next, req, new SigningWriter(w, this, req, zone));
  }

  /** The reply a DO client in `zone` gets for `msg`; counts the cache's size. */
  sign(msg: Packet, req: Request, zone: string): Packet {
    const cells = this.cellsFor(req.server);
    const signed = this.signer.signReply(msg, req.qname, req.qtype, zone, this.now(), cells);
    cells.entries.value = this.signer.cache.size;
    return signed;
  }

  private cellsFor(server: string): ServerCells {
    if (server === this.lastServer) return this.lastCells!;
    let cells = this.cellsByServer.get(server);
    if (cells === undefined) {
      cells = serverCells(this.metrics, server);
      this.cellsByServer.set(server, cells);
    }
    this.lastServer = server;
    this.lastCells = cells;
    return cells;
  }
}

/** Signs what the plugins below write (CoreDNS's dnssec `ResponseWriter`). */
class SigningWriter implements ResponseWriter {
  constructor(
    private readonly inner: ResponseWriter,
    private readonly dnssec: Dnssec,
    private readonly req: Request,
    private readonly zone: string,
  ) {}

  write(msg: Packet): number {
    return this.inner.write(this.dnssec.sign(msg, this.req, this.zone));
  }

  /**
   * Encoded replies (a plugin's precomputed answer) are decoded and signed like the others;
   * CoreDNS's writer sends them unsigned with a warning, which a validator then rejects.
   */
  writeWire(wire: Buffer, size?: number): number {
    let msg: Packet;
    try {
      msg = dnsPacket.decode(wire);
    } catch {
      // Bytes dns-packet cannot read cannot be signed either; they go out as they are.
      return this.inner.writeWire(wire, size);
    }
    return this.inner.write(this.dnssec.sign(msg, this.req, this.zone));
  }

  drained(): Promise<void> {
    return this.inner.drained?.() ?? Promise.resolve();
  }
}
