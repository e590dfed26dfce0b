/**
 * The lighthouse handler: zone match, one map lookup, and a reply assembled from cached
 * bytes (header with the client's ID, the client's question copied as sent, the answer body, the
 * SOA on negative answers, an OPT echo). No per-query list scans and no dns-packet encoding.
 */
// Bindings, not globals: per query (docs/architecture.md, "Per-query code").
import { Buffer } from 'node:buffer';
import dnsPacket from 'dns-packet';
import { Flags, isSubdomain, matchZone, nextOrFailure, OPT_LENGTH, Rcode, REPLY_COPIED_FLAGS, TYPE_A, TYPE_AAAA, TYPE_ANY, TYPE_PTR, TYPE_SRV, TYPE_TXT } from '@foghorn/core';
import type { Handler, HandlerResult, Request, ResponseWriter } from '@foghorn/core';
import { writeOpt, writeReplyHead } from '@foghorn/core/wire';
import { notImplemented, notZone } from './answer.js';
import type { Answer, ZoneInfo } from './answer.js';
import type { AnswerTable } from './answers.js';
import { countServed, Outcome } from './counters.js';

/** What the handler needs from the running plugin; swapped in at startup. */
export interface HandlerState {
  /** Null until startup built it (a validating run never does). */
  table: AnswerTable | null;
  /** The source delivered a complete list of every watched resource. */
  synced: () => boolean;
  /** The zones the plugin answers for (lower case, fully qualified). */
  readonly zones: readonly string[];
}

/** Counts per outcome, indexed by {@link Outcome}. */
export type OutcomeCounts = Float64Array;

export class Lighthouse implements Handler {
  readonly name = 'lighthouse';

  constructor(
    private readonly state: HandlerState,
    private readonly fallthrough: readonly string[],
    private readonly outcomes: OutcomeCounts,
    private readonly next: Handler | null,
  ) {}

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    const table = this.state.table;
    const qname = req.qname;
    let answer: Answer;
    if (table === null || !this.state.synced()) {
      // Like CoreDNS's kubernetes plugin: until the first complete list, an answer in our zones
      // could be a wrong NXDOMAIN that resolvers cache, so those get SERVFAIL. Names outside
      // them are not ours to hold back: NOTZONE or fallthrough, as when synced.
      if (matchZone(this.state.zones, qname) !== undefined) {
        this.outcomes[Outcome.unsynced]!++;
        return Rcode.SERVFAIL;
      }
      answer = notZone;
    } else {
      const zone = table.matchZone(qname);
      answer = zone === undefined ? notZone : this.lookup(table, req, qname, zone);
    }
    // NODATA never falls through (docs/compatibility.md, "Answers"); NXDOMAIN, NOTIMP and NOTZONE may.
    if (answer.rcode !== Rcode.NOERROR && this.fallsThrough(qname)) {
      this.outcomes[Outcome.fallthrough]!++;
      return nextOrFailure(this.name, this.next, req, w);
    }
    this.outcomes[answer.outcome]!++;
    countServed(answer.served);
    writeAnswer(req, w, answer);
    // NOTIMP was written here, so report success: returning it would make the server write again.
    return answer.rcode === Rcode.NOTIMP ? Rcode.NOERROR : answer.rcode;
  }

  private lookup(table: AnswerTable, req: Request, qname: string, zone: ZoneInfo): Answer {
    let answer: Answer;
    {
      switch (req.qtype) {
        case TYPE_A:
        case TYPE_AAAA:
          answer = table.lookup(qname, req.qtype, zone);
          break;
        case TYPE_SRV:
          // docs/compatibility.md, "Names": `_http._tcp` and `http.tcp` are the same query; the table holds the bare form.
          answer = table.lookup(qname.includes('_') ? stripUnderscores(qname) : qname, TYPE_SRV, zone);
          break;
        case TYPE_PTR:
          answer = table.lookupPtr(qname, zone);
          break;
        case TYPE_TXT:
          answer = table.lookupTxt(qname, zone);
          break;
        case TYPE_ANY:
          answer = table.lookupAny(qname, zone);
          break;
        default:
          answer = notImplemented;
      }
    }
    return answer;
  }

  private fallsThrough(qname: string): boolean {
    for (const zone of this.fallthrough) if (isSubdomain(qname, zone)) return true;
    return false;
  }
}

/**
 * `_http._tcp.svc...` → `http.tcp.svc...` (docs/compatibility.md, "Names"): a leading `_` is stripped from the first
 * two labels only, where the port and protocol sit; other labels keep theirs.
 */
function stripUnderscores(qname: string): string {
  return qname.replace(/^_?([^.]*)\._?/, '$1.');
}

/**
 * Assembles the reply. The answer body's owners point at the question, which is copied from the
 * query, so the owner names come back in the client's case; zone names inside SRV targets are
 * patched to the client's spelling when it differs from lower case.
 */
export function writeAnswer(req: Request, w: ResponseWriter, answer: Answer): number {
  const raw = req.raw;
  // The question name ends 4 bytes (type, class) before the question does.
  const questionEnd = req.questionEnd;
  const nameEnd = questionEnd - 4;
  const zone = answer.soaZone;
  const soa = zone === null ? null : zone.soaTail;
  // EDNS options the client sent (cookies, NSID) are echoed by the server's scrub writer, so
  // that rare case leaves the OPT to it and pays for a decode.
  const echoOptions = req.hasEdns && req.ednsOptions !== null && req.ednsOptions.length > 0;
  const hasOpt = req.hasEdns && !echoOptions;
  const body = answer.body;
  const size = questionEnd + body.length + (soa === null ? 0 : soa.length + 2) + (hasOpt ? OPT_LENGTH : 0);
  const out = Buffer.allocUnsafe(size);
  const flags = Flags.QR | Flags.AA | (req.flags & REPLY_COPIED_FLAGS) | answer.rcode;
  writeReplyHead(out, raw, questionEnd, req.id, flags, answer.ancount, soa === null ? 0 : 1, hasOpt ? 1 : 0);
  let offset = questionEnd;
  if (body.length > 0) {
    out.set(body, offset);
    const patches = answer.zoneOffsets;
    if (patches !== null) patchZoneCase(raw, nameEnd, out, offset, patches);
    offset += body.length;
  }
  if (soa !== null) {
    // The SOA owner is the zone, pointed to inside the question so it keeps the client's case.
    out.writeUInt16BE(0xc000 | (nameEnd - zone!.wire.length), offset);
    soa.copy(out, offset + 2);
    offset += soa.length + 2;
  }
  // OPT with the client's UDP size and DO bit, version 0, no options (docs/compatibility.md, "Scrub").
  if (hasOpt) writeOpt(out, offset, req.udpSize, req.dnssecOk);
  if (echoOptions) return w.write(dnsPacket.decode(out));
  // The recorders count the reply without the OPT, as CoreDNS's do before its scrub adds it.
  return w.writeWire(out, hasOpt ? out.length - OPT_LENGTH : out.length);
}

function patchZoneCase(raw: Buffer, nameEnd: number, out: Buffer, bodyOffset: number, patches: readonly number[]): void {
  // Offsets were recorded for the lower-case zone; the question's zone has the same length.
  const zoneLength = patchLength(out, bodyOffset + patches[0]!);
  const zoneStart = nameEnd - zoneLength;
  let lower = true;
  for (let i = zoneStart; i < nameEnd; i++) {
    const c = raw[i]!;
    if (c >= 0x41 && c <= 0x5a) {
      lower = false;
      break;
    }
  }
  if (lower) return;
  for (const patch of patches) raw.copy(out, bodyOffset + patch, zoneStart, nameEnd);
}

/** Length of the uncompressed name at `offset` (through its root label). */
function patchLength(buf: Buffer, offset: number): number {
  let end = offset;
  for (let length = buf[end]!; length !== 0; length = buf[end]!) end += length + 1;
  return end + 1 - offset;
}
