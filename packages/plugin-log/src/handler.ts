/**
 * The log handler: finds the first rule whose name covers the query, records the reply on its
 * way out, and writes one `[INFO] ` line when the reply's class is selected. Per query it costs a
 * rule scan, one small recorder object and one pass writing the line's bytes into the output
 * buffer (format.ts says what that pass costs).
 */
import dnsPacket from 'dns-packet';
import type { Packet } from 'dns-packet';
import { clientWrote, Flags, isSubdomain, nextOrFailure, OPT_LENGTH, PluginError, Recorder, REPLY_COPIED_FLAGS, replyTo } from '@foghorn/core';
import type { Handler, HandlerResult, QueryMetadata, Request, ResponseWriter } from '@foghorn/core';
import { responseClass, responseTypeName, typify } from '@foghorn/core/wire';
import type { ResponseType } from '@foghorn/core/wire';
import { ClassBit } from './classify.js';
import { metadataBytes } from './format.js';
import type { CompiledFormat, ReplySummary } from './format.js';
import type { LineOutput } from './sink.js';

/** A rule ready for the hot path. */
export interface CompiledRule {
  /** Lower-case FQDN; queries at or below it match. */
  readonly zone: string;
  /** Compiled with the `[INFO] ` prefix and the newline (setup.ts). */
  readonly format: CompiledFormat;
  /** {@link ClassBit} OR-ed; `ClassBit.all` skips classification altogether. */
  readonly classes: number;
}

/** Length of the reply the server writes itself for an error rcode nobody wrote. */
function synthesizedSize(req: Request, msg: Packet): number {
  let size = dnsPacket.encodingLength(msg);
  // The server adds an OPT to its reply when the query had one (docs/compatibility.md, "Who writes the reply").
  if (req.hasEdns) {
    size += OPT_LENGTH;
    for (const option of req.ednsOptions ?? []) size += 4 + option.data.length;
  }
  return size;
}

/** A reply a plugin wrote as bytes, decoded for classification; undecodable ones class as errors. */
function decodeOrUndefined(wire: Buffer): Packet | undefined {
  try {
    return dnsPacket.decode(wire);
  } catch {
    // typify(undefined) is OTHERERROR, the class CoreDNS gives a reply it cannot make sense of.
    return undefined;
  }
}

/** The metadata values of a format without `{/LABEL}`, or of a query without metadata: none set. */
const noValues: readonly (string | undefined)[] = [];

/**
 * The response type of a reply, typified on first use: by the `class` rule, or by a read of
 * `log/type` or `log/class`. Undefined `msg` and `wire` (nothing written) is OTHERERROR, as
 * CoreDNS's `Typify(nil)`.
 */
class ReplyType {
  private type: ResponseType | undefined;

  constructor(
    private readonly msg: Packet | undefined,
    private readonly wire: Buffer | undefined,
  ) {}

  get(): ResponseType {
    if (this.type === undefined) {
      const msg = this.msg ?? (this.wire === undefined ? undefined : decodeOrUndefined(this.wire));
      this.type = typify(msg, Math.floor(Date.now() / 1000));
    }
    return this.type;
  }

  /** CoreDNS's `log/type` and `log/class`, published whether or not the line is written. */
  publish(metadata: QueryMetadata): void {
    metadata.set('log/type', () => responseTypeName(this.get()));
    metadata.set('log/class', () => responseClass(this.get()));
  }
}

export class Log implements Handler {
  readonly name = 'log';

  constructor(
    private readonly rules: readonly CompiledRule[],
    private readonly next: Handler | null,
    private readonly out: LineOutput,
  ) {}

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    const rule = this.match(req.qname);
    if (rule === undefined) return nextOrFailure('log', this.next, req, w);
    // Shared with prometheus: one clock read starts both (Request.startTime).
    if (rule.format.usesDuration) req.startTime();
    const rec = Recorder.over(w, rule.format.usesSize);
    let result: HandlerResult;
    try {
      result = nextOrFailure('log', this.next, req, rec);
    } catch (error) {
      this.failed(rule, req, rec, error);
      throw error;
    }
    if (typeof result === 'number') {
      this.done(rule, req, rec, result);
      return result;
    }
    return result.then(
      (rcode) => {
        this.done(rule, req, rec, rcode);
        return rcode;
      },
      (error: unknown) => {
        this.failed(rule, req, rec, error);
        throw error;
      },
    );
  }

  /** The first rule in declaration order that covers `qname`: not the most specific one. */
  private match(qname: string): CompiledRule | undefined {
    for (const rule of this.rules) if (isSubdomain(qname, rule.zone)) return rule;
    return undefined;
  }

  /** A returned error is logged with its rcode; anything else is a panic and logs nothing, as in CoreDNS. */
  private failed(rule: CompiledRule, req: Request, rec: Recorder, error: unknown): void {
    if (error instanceof PluginError) this.done(rule, req, rec, error.rcode);
  }

  private done(rule: CompiledRule, req: Request, rec: Recorder, rcode: number): void {
    let msg = rec.msg;
    let reply: ReplySummary | null = null;
    if (msg !== undefined) {
      const flags = msg.flags ?? 0;
      reply = { rcode: flags & 0xf, header: (msg.type === 'response' ? Flags.QR : 0) | (flags & ~Flags.QR), size: rec.size };
    } else if (rec.wire !== undefined) {
      // Bytes, not readUInt16BE: every Buffer kind reaches this site, and the method's load
      // was a megamorphic inline-cache call (19 ns a query in perf).
      const wire = rec.wire;
      const header = (wire[2]! << 8) | wire[3]!;
      reply = { rcode: header & 0xf, header, size: rec.size };
    } else if (!clientWrote(rcode)) {
      // Nothing was written and the server will answer with this rcode: log that reply, as
      // CoreDNS does since #4724, so the line does not claim NOERROR for a SERVFAIL.
      msg = replyTo(req, rcode);
      reply = { rcode, header: Flags.QR | (req.flags & REPLY_COPIED_FLAGS) | (rcode & 0xf), size: synthesizedSize(req, msg) };
    }
    const metadata = req.metadata;
    if (rule.classes !== ClassBit.all || metadata !== undefined) {
      const type = new ReplyType(msg, rec.wire);
      if (metadata !== undefined) type.publish(metadata);
      if (rule.classes !== ClassBit.all && (rule.classes & ClassBit[responseClass(type.get())]) === 0) return;
    }
    const format = rule.format;
    // From the first timing plugin's start to the reply's send (Request.elapsedMs).
    const duration = format.usesDuration ? Math.round(req.elapsedMs() * 1e6) : 0;
    const values = metadata === undefined || format.metadata.length === 0 ? noValues : format.metadata.map((label) => metadata.get(label));
    const out = this.out;
    // reserve may send the batch first, which moves `used`: read it after.
    const buf = out.reserve(format.maxBytes + metadataBytes(values));
    out.commit(format.write(req, reply, duration, buf, out.used, values));
  }
}
