/**
 * Writing replies. The listener hands the chain a writer that scrubs (docs/compatibility.md, "Scrub"): it echoes EDNS
 * only to clients that sent it, and cuts replies to the client's size limit with TC set.
 * Plugins that need to see the reply on its way out wrap the writer in a {@link Recorder}.
 */
import dnsPacket from 'dns-packet';
import type { OptAnswer, Packet } from 'dns-packet';
import * as types from 'dns-packet/types.js';
import type { Request } from './request.js';
import { replyOpt } from './edns.js';
import { compressReply } from './compress.js';
import { EDNS_FLAG_DO, HEADER_LENGTH, REPLY_COPIED_FLAGS } from './constants.js';

/**
 * Where a handler sends its reply. Write once per query, except over TCP (`req.transport`),
 * where a handler may write several messages for one query: a zone transfer streams its records
 * in many envelopes (RFC 5936 §2.2). The TCP writer frames each write on its own, and the
 * listener counts the query as answered only when `serveDNS` has settled, so a streaming handler
 * returns a promise that resolves after its last write.
 */
export interface ResponseWriter {
  /**
   * Encodes, scrubs and sends `msg`; returns the number of bytes sent, 0 when the client's TCP
   * connection is gone (a handler streaming many messages stops there).
   */
  write(msg: Packet): number;
  /**
   * Sends an already encoded reply (a cache hit). The bytes are sent as they are when they fit
   * the client's limit; otherwise they are decoded and truncated like {@link write}. They may go
   * out after this returns (UDP replies leave at the end of the event loop's turn), so do not
   * change them.
   *
   * `size` is what a {@link Recorder} counts for it, when that is not `wire.length`: a plugin that
   * writes the scrub's OPT into its own bytes (whoami) passes the length without it, which is what
   * CoreDNS's recorder sees before its scrub writer adds the OPT.
   */
  writeWire(wire: Buffer, size?: number): number;
  /**
   * Resolves when the connection takes more data again (TCP backpressure), at once when it
   * already does. A handler writing many messages (a zone transfer) awaits it between writes, so
   * a slow client holds the transfer back instead of filling memory. Optional: absent, go on.
   */
  drained?(): Promise<void>;
}

/** The header of a reply to `req`, with no records yet: CoreDNS's `SetReply`. */
export function replyTo(req: Request, rcode = 0): Packet & { flags: number; questions: NonNullable<Packet['questions']> } {
  return {
    type: 'response',
    id: req.id,
    // Opcode, RD and CD are copied from the query (RFC 1035 §4.1.1, RFC 4035 §3.1.6).
    flags: (req.flags & REPLY_COPIED_FLAGS) | (rcode & 0xf),
    // dns-packet's own name for the type (`UNKNOWN_65534`) is the one it can encode back.
    questions: [{ name: req.name, type: types.toString(req.qtype) as never, class: req.class as never }],
    answers: [],
    authorities: [],
    additionals: [],
  };
}

/**
 * The reply the server writes itself (CoreDNS's `SetRcode`): the query's header bits, the rcode,
 * the question copied byte for byte from the query — whatever its type and class, which
 * dns-packet could not always encode — and OPT for EDNS clients.
 */
export function errorReply(req: Request, rcode: number): Buffer {
  const msg: Packet = { type: 'response', id: req.id, flags: (req.flags & REPLY_COPIED_FLAGS) | (rcode & 0xf), questions: [], additionals: [] };
  const body = encodeReply(req, msg);
  const wire = Buffer.concat([body.subarray(0, HEADER_LENGTH), req.raw.subarray(HEADER_LENGTH, req.questionEnd), body.subarray(HEADER_LENGTH)]);
  wire.writeUInt16BE(1, 4);
  return wire;
}

/** The rcode in an encoded message's header. */
export function wireRcode(wire: Uint8Array): number {
  return (wire[3] ?? 0) & 0x0f;
}

/** The rcode of a message object (the low four bits; OPT extends it). */
export function packetRcode(msg: Packet): number {
  return (msg.flags ?? 0) & 0x0f;
}

/**
 * Applies the scrub (docs/compatibility.md, "Scrub") to `msg` and encodes it for `req`:
 * 1. EDNS: only when the query had OPT; the reply's OPT echoes the client's size and DO bit,
 *    version 0, or the query's own OPT is reused with its echoable options.
 * 2. Size: dns-packet writes names in full; a reply over the client's limit is compressed
 *    ({@link compressReply}) and, if it still does not fit, whole records are kept in order
 *    (answer, authority, additional; OPT always, last) while they fit, and TC is set: CoreDNS's
 *    `Truncate` with `Compress = true`. A reply that fits is sent as dns-packet wrote it.
 */
export function encodeReply(req: Request, msg: Packet): Buffer {
  if (req.hasEdns) applyEdns(req, msg);
  const wire = dnsPacket.encode(msg);
  const limit = req.maxResponseSize;
  return wire.length <= limit ? wire : compressReply(wire, limit);
}

function applyEdns(req: Request, msg: Packet): void {
  const additionals = (msg.additionals ??= []);
  const flagsDo = req.dnssecOk ? EDNS_FLAG_DO : 0;
  for (const rr of additionals) {
    if (rr.type === 'OPT') {
      const opt = rr as OptAnswer;
      opt.name = '.';
      opt.udpPayloadSize = req.udpSize;
      opt.ednsVersion = 0;
      opt.flags = (opt.flags ?? 0) | flagsDo;
      return;
    }
  }
  additionals.push(replyOpt(req, { options: req.ednsOptions ?? [] }));
}

/**
 * Wraps a writer and remembers what went through it, for plugins on the return path
 * (log, prometheus, cache, errors). Create one per query in `serveDNS`.
 *
 * `size` is CoreDNS's recorder length: the message as the plugin wrote it, before the server's
 * scrub adds OPT or truncates. For a message object that costs a dns-packet `encodingLength`
 * walk, so a plugin that does not need it passes `measure: false` and gets the bytes sent.
 */
export class Recorder implements ResponseWriter {
  /** Rcode of the last reply written, or -1 when nothing was written. */
  rcode = -1;
  /** Length of everything written, summed (see the class comment). */
  size = 0;
  /** The last message written as an object (undefined for wire writes). */
  msg: Packet | undefined = undefined;
  /** The last message written as wire bytes (undefined for object writes). */
  wire: Buffer | undefined = undefined;

  constructor(
    readonly inner: ResponseWriter,
    private readonly measure = true,
  ) {}

  /**
   * A recorder of what is written to `w` from now on: `w` itself when it is a Recorder that has
   * recorded nothing yet and measures at least as much, else a new one around it. Plugins in a
   * row that each record the reply (prometheus, errors, log in the stock order) then share one
   * recorder: every write crosses one layer, not one per plugin, and the query allocates one.
   * What each reads afterwards is the same: only what was written below the first of them.
   */
  static over(w: ResponseWriter, measure = true): Recorder {
    if (w instanceof Recorder && w.rcode < 0 && (w.measure || !measure)) return w;
    return new Recorder(w, measure);
  }

  /** True once a reply went out through this recorder. */
  get written(): boolean {
    return this.rcode >= 0;
  }

  write(msg: Packet): number {
    this.msg = msg;
    this.wire = undefined;
    this.rcode = packetRcode(msg);
    if (this.measure) this.size += dnsPacket.encodingLength(msg);
    const sent = this.inner.write(msg);
    if (!this.measure) this.size += sent;
    return sent;
  }

  drained(): Promise<void> {
    return this.inner.drained?.() ?? Promise.resolve();
  }

  writeWire(wire: Buffer, size = wire.length): number {
    this.wire = wire;
    this.msg = undefined;
    this.rcode = wireRcode(wire);
    this.size += size;
    return this.inner.writeWire(wire, size);
  }
}
