/**
 * One query from accepted request to reply, the same for every listener (UDP, TCP, DoT, DoH) and
 * for `foghorn -query`: the class and EDNS version checks, the zone's route, the chain, and the
 * rule of who writes the reply (docs/compatibility.md, "Who writes the reply"):
 *
 *   Request ─► class ≠ IN, no anyClass plugin here ─────────────────► REFUSED  ┐ written by
 *     │        EDNS version ≠ 0 ─────────────────────────────────────► BADVERS  │ the server
 *     │        no zone (or a block without handlers), or no view ────► REFUSED  ┘
 *     ▼        of the zone's blocks passes (metadata collected first)
 *   route.chain.serveDNS(req, w) ─► rcode, written ─────────────────► (sent by the plugin)
 *                                   SERVFAIL/REFUSED/FORMERR/NOTIMP,
 *                                   nothing written ────────────────► that rcode, by the server
 *                                   PluginError thrown ─────────────► its rcode, by the server
 *                                   anything else thrown ───────────► SERVFAIL: a recovered panic,
 *                                                                     logged and counted
 *
 * The bytes before it (the accept filter: drop, FORMERR, NOTIMP for what `readQuery` refuses)
 * are each listener's, since each transport answers them its own way ({@link rejectReply}).
 * This is the hot path: no closure or promise unless the chain returns one.
 */
import dnsPacket from 'dns-packet';
import type { OptAnswer, Packet } from 'dns-packet';
import { CLASS_IN, HEADER_LENGTH } from './constants.js';
import { errorMessage, PluginError } from './errors.js';
import type { Logger } from './logger.js';
import { clientWrote, Rcode } from './rcode.js';
import type { Request } from './request.js';
import { encodeReply, errorReply, replyTo } from './response.js';
import type { ResponseWriter } from './response.js';
import type { RouteTable } from './routes.js';
import { headerOnlyReply, Verdict } from './wire.js';
import type { QueryHeader } from './wire.js';

/** What {@link dispatch} needs of the place a query came in: a listener, or `-query`'s stand-in for one. */
export interface DispatchContext {
  /** CoreDNS's metrics `server` label: `dns://:53`, `tls://127.0.0.1:853`. */
  readonly server: string;
  /** The zones served here and their chains; a reload swaps it in one assignment. */
  routes: RouteTable;
  /** Some block here uses a plugin that answers every class (`PluginDefinition.anyClass`). */
  acceptAnyClass: boolean;
  /** Where a recovered panic is logged. */
  readonly logger: Logger;
  /** Log a recovered panic with its stack trace (*debug*, *errors*' `stacktrace`). */
  stacktrace?: boolean;
  /** Told of each recovered panic (`coredns_panics_total`). */
  readonly onPanic?: (server: string, error: unknown) => void;
}

/**
 * The writer a query is dispatched with: a {@link ResponseWriter} that knows whether a reply went
 * out and is told once when the chain is done with the query.
 */
export abstract class ReplyWriter implements ResponseWriter {
  written = false;
  constructor(protected readonly req: Request) {}

  /** Called once when the chain is done with the query, written or not. */
  done(): void {}

  write(msg: Packet): number {
    return this.send(encodeReply(this.req, msg));
  }

  writeWire(wire: Buffer): number {
    // Only an oversized wire reply is decoded again, to get the scrub's OPT and be compressed and
    // truncated like any other.
    if (wire.length > this.req.maxResponseSize) return this.write(dnsPacket.decode(wire));
    return this.send(wire);
  }

  /** What every transport's send records first: the query is answered, by whom, and when. */
  protected answered(): void {
    this.written = true;
    const req = this.req;
    if (req.writtenBy === '') req.writtenBy = req.handler;
    req.replySent();
  }

  /** Sends (or keeps) one encoded reply; returns its length. */
  protected abstract send(wire: Buffer): number;
}

/**
 * Takes an accepted query through the routes to a reply: refuses what no block here serves,
 * answers BADVERS to an unknown EDNS version, runs the zone's chain, and writes the reply the
 * chain left to the server. `w.done()` is called exactly once, when all of that is over (after
 * the chain's promise settles, when it returns one).
 */
export function dispatch(context: DispatchContext, req: Request, w: ReplyWriter): void {
  req.server = context.server;
  if (req.qclass !== CLASS_IN && !context.acceptAnyClass) return finish(context, req, w, Rcode.REFUSED);
  if (req.hasEdns && req.ednsVersion !== 0) {
    badVersion(req, w);
    return w.done();
  }
  // Views and metadata, where a block here has them, run inside the match.
  const route = context.routes.match(req.qname, req.qtype, req);
  if (route === undefined || route.chain === null) return finish(context, req, w, Rcode.REFUSED);
  req.zone = route.zone;
  let result: number | Promise<number>;
  try {
    result = route.chain.serveDNS(req, w);
  } catch (error) {
    return failed(context, req, w, error);
  }
  if (typeof result === 'number') finish(context, req, w, result);
  else
    result.then(
      (rcode) => finish(context, req, w, rcode),
      (error: unknown) => failed(context, req, w, error),
    );
}

/** The chain returned `rcode`: write it if nobody wrote (CoreDNS's `ClientWrite`), then release the query. */
function finish(context: DispatchContext, req: Request, w: ReplyWriter, rcode: number): void {
  if (!clientWrote(rcode) && !w.written) serverReply(context, req, w, rcode);
  w.done();
}

function failed(context: DispatchContext, req: Request, w: ReplyWriter, error: unknown): void {
  if (error instanceof PluginError) return finish(context, req, w, error.rcode);
  // CoreDNS's format, and with `stacktrace` its "\n" and the stack; JavaScript's stack starts
  // with the error's own line, Go's debug.Stack() with the goroutine.
  const stack = context.stacktrace === true && error instanceof Error && error.stack !== undefined ? `\n${error.stack}` : '';
  context.logger.error(`Recovered from panic in server: "${context.server}" ${errorMessage(error)}${stack}`);
  context.onPanic?.(context.server, error);
  finish(context, req, w, Rcode.SERVFAIL);
}

function serverReply(context: DispatchContext, req: Request, w: ReplyWriter, rcode: number): void {
  // The server writes this one, not the plugin that returned the rcode.
  req.handler = '';
  try {
    w.writeWire(errorReply(req, rcode));
  } catch (error) {
    context.logger.error(`${context.server}: writing ${rcode} reply: ${errorMessage(error)}`);
  }
}

/** RFC 6891 §6.1.3: an unknown EDNS version gets BADVERS and an OPT of version 0. */
function badVersion(req: Request, w: ReplyWriter): void {
  const msg = replyTo(req);
  const opt: OptAnswer = {
    type: 'OPT',
    name: '.',
    udpPayloadSize: req.udpSize,
    extendedRcode: Rcode.BADVERS >> 4,
    ednsVersion: 0,
    flags: 0,
    flag_do: false,
    options: [],
  };
  msg.additionals = [opt];
  w.write(msg);
}

/** The reply to a query `readQuery` did not accept: none (drop), FORMERR or NOTIMP with its question. */
export function rejectReply(msg: Buffer, verdict: Verdict, header: QueryHeader): Buffer | undefined {
  if (verdict === Verdict.Drop) return undefined;
  // Both keep the question when it was read, as miekg/dns's SetRcodeFormatError copies the one it
  // unpacked before a bad record; the header checks fail before reading it (questionEnd is 12).
  const reply = headerOnlyReply(msg, verdict === Verdict.FormErr ? Rcode.FORMERR : Rcode.NOTIMP);
  if (header.questionEnd > HEADER_LENGTH && header.questionEnd <= msg.length) {
    const withQuestion = Buffer.concat([reply, msg.subarray(HEADER_LENGTH, header.questionEnd)]);
    withQuestion.writeUInt16BE(1, 4);
    return withQuestion;
  }
  return reply;
}
