/**
 * The *header* handler (CoreDNS v1.14.7's `plugin/header/handler.go`): query rules change the
 * request's flags in place, so every plugin after it and the reply built from the request see
 * them; response rules change the flags of the reply written below it.
 *
 * Cost: rules are two masks per direction, applied with one AND and one OR. Without response
 * rules the writer is not wrapped at all; with them, a query costs one small writer object, and a
 * reply whose flags already are as wanted goes through untouched. A reply that changes is a
 * shallow copy of the message, or a copy of the wire bytes (another plugin may keep those).
 */
// A binding, not the global: read per query (docs/architecture.md, "Per-query code").
import { Buffer } from 'node:buffer';
import type { Packet } from 'dns-packet';
import { nextOrFailure } from '@foghorn/core';
import type { Handler, HandlerResult, Request, ResponseWriter } from '@foghorn/core';
import type { FlagMasks } from './setup.js';

export class Header implements Handler {
  readonly name = 'header';
  private readonly querySet: number;
  private readonly queryClear: number;
  private readonly hasQueryRules: boolean;
  private readonly hasResponseRules: boolean;

  constructor(
    query: FlagMasks,
    private readonly response: FlagMasks,
    private readonly next: Handler | null,
  ) {
    this.querySet = query.set;
    this.queryClear = query.clear;
    this.hasQueryRules = (query.set | query.clear) !== 0;
    this.hasResponseRules = (response.set | response.clear) !== 0;
  }

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    if (this.hasQueryRules) {
      const flags = (req.flags & ~this.queryClear) | this.querySet;
      if (flags !== req.flags) req.setFlags(flags);
    }
    if (!this.hasResponseRules) return nextOrFailure(this.name, this.next, req, w);
    return nextOrFailure(this.name, this.next, req, new HeaderWriter(w, this.response));
  }
}

/**
 * CoreDNS's `ResponseHeaderWriter`: the response rules applied to every reply written through
 * it. CoreDNS only warns when a plugin writes raw bytes; here pre-encoded replies (forward's,
 * for one) are the common case, so their header is patched as well.
 */
export class HeaderWriter implements ResponseWriter {
  private readonly set: number;
  private readonly clear: number;

  constructor(
    private readonly inner: ResponseWriter,
    masks: FlagMasks,
  ) {
    this.set = masks.set;
    this.clear = masks.clear;
  }

  write(msg: Packet): number {
    const flags = msg.flags ?? 0;
    const wanted = (flags & ~this.clear) | this.set;
    if (wanted === flags) return this.inner.write(msg);
    // A copy: the plugin below may keep its message (a cache would).
    return this.inner.write({ ...msg, flags: wanted });
  }

  writeWire(wire: Buffer, size?: number): number {
    if (wire.length < 4) return this.inner.writeWire(wire, size);
    const flags = (wire[2]! << 8) | wire[3]!;
    const wanted = (flags & ~this.clear) | this.set;
    if (wanted === flags) return this.inner.writeWire(wire, size);
    const out = Buffer.allocUnsafe(wire.length);
    wire.copy(out);
    out[2] = wanted >> 8;
    out[3] = wanted;
    // Same length: what a recorder above counts (`size`) does not change.
    return this.inner.writeWire(out, size);
  }

  drained(): Promise<void> {
    return this.inner.drained?.() ?? Promise.resolve();
  }
}
