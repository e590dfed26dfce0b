/**
 * The dnstap handler (CoreDNS's plugin/dnstap/handler.go and writer.go): a CLIENT_QUERY to each
 * sink of the block as the query comes in, before anything below can forward it (so the
 * collector sees CLIENT_QUERY before FORWARDER_QUERY), and a CLIENT_RESPONSE for each reply
 * written, after it was sent.
 *
 * Per query: one writer wrapper, one clock read for the reply (the query's time is the clock
 * read that log and prometheus share, `Request.startTime`), and the encoding of two messages per
 * sink. With `full`, the query's bytes are the ones received; a reply written as an object is
 * encoded again for the sink, as CoreDNS packs it again.
 */
import { performance } from 'node:perf_hooks';
import { DnstapType, nextOrFailure } from '@foghorn/core';
import type { Handler, HandlerResult, Request, ResponseWriter } from '@foghorn/core';
import { encodeReply } from '@foghorn/core/wire';
import type { Packet } from 'dns-packet';
import type { TapSink } from './sink.js';

/** A TapMessage filled in place: sinks encode it before `tap` returns, so one per handler serves every query. */
interface Scratch {
  type: number;
  transport: 'udp' | 'tcp';
  queryAddress: string | undefined;
  queryPort: number | undefined;
  queryTime: number;
  responseTime: number | undefined;
  queryMessage: Uint8Array | undefined;
  responseMessage: Uint8Array | undefined;
}

export class Dnstap implements Handler {
  readonly name = 'dnstap';
  private readonly scratch: Scratch = {
    type: DnstapType.CLIENT_QUERY,
    transport: 'udp',
    queryAddress: undefined,
    queryPort: undefined,
    queryTime: 0,
    responseTime: undefined,
    queryMessage: undefined,
    responseMessage: undefined,
  };

  constructor(
    /** Every `dnstap` line of the block, in Corefile order. */
    private readonly sinks: readonly TapSink[],
    private readonly next: Handler | null,
  ) {}

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    const m = this.scratch;
    m.type = DnstapType.CLIENT_QUERY;
    m.transport = req.transport;
    m.queryAddress = req.remoteAddress;
    m.queryPort = req.remotePort;
    m.queryTime = req.startTime();
    m.responseTime = undefined;
    m.responseMessage = undefined;
    for (const sink of this.sinks) {
      m.queryMessage = sink.full ? req.raw : undefined;
      sink.tap(m);
    }
    return nextOrFailure(this.name, this.next, req, new TapWriter(w, req, this));
  }

  /**
   * A reply to `req` went out, written as `msg` or as `wire`: a CLIENT_RESPONSE to each sink.
   * A message object is encoded only for full sinks; the writer below applied the scrub's OPT
   * to it, so encoded again it is the reply as sent.
   */
  responded(req: Request, msg: Packet | undefined, wire: Buffer | undefined): void {
    const m = this.scratch;
    m.type = DnstapType.CLIENT_RESPONSE;
    m.transport = req.transport;
    m.queryAddress = req.remoteAddress;
    m.queryPort = req.remotePort;
    m.queryTime = req.startTime();
    m.responseTime = performance.now();
    m.queryMessage = undefined;
    let bytes: Uint8Array | undefined = wire;
    for (const sink of this.sinks) {
      m.responseMessage = sink.full ? (bytes ??= encodeReply(req, msg as Packet)) : undefined;
      sink.tap(m);
    }
  }
}

/** CoreDNS's dnstap ResponseWriter: writes the reply, then taps it. */
class TapWriter implements ResponseWriter {
  constructor(
    private readonly inner: ResponseWriter,
    private readonly req: Request,
    private readonly dnstap: Dnstap,
  ) {}

  write(msg: Packet): number {
    const sent = this.inner.write(msg);
    this.dnstap.responded(this.req, msg, undefined);
    return sent;
  }

  writeWire(wire: Buffer, size?: number): number {
    const sent = this.inner.writeWire(wire, size);
    this.dnstap.responded(this.req, undefined, wire);
    return sent;
  }

  drained(): Promise<void> {
    return this.inner.drained?.() ?? Promise.resolve();
  }
}
