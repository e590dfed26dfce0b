/**
 * The autopath handler (CoreDNS plugin/autopath autopath.go, cname.go): a query for a name under
 * the first element of the client's search path is tried with each element in turn, on the
 * server, down the rest of the chain; the first reply that is not NXDOMAIN goes back with a CNAME
 * from the asked name to the name found, so an ndots:5 client gets in one round trip what its
 * resolver would otherwise walk in up to six. When every try is NXDOMAIN, the reply to the first
 * (the name as asked) goes back as is and the client walks its path itself.
 *
 * Per query outside its zones: one zone match. Inside them: the search path lookup (kubernetes:
 * one map lookup by client IP), and per try one copy of the query with the new name.
 */
import { Buffer } from 'node:buffer';
import dnsPacket from 'dns-packet';
import type { Answer, Packet } from 'dns-packet';
import { clientWrote, isSubdomain, matchZone, nextOrFailure, Rcode, Request } from '@foghorn/core';
import type { CounterVec, Handler, HandlerResult, ResponseWriter } from '@foghorn/core';
import { encodeName } from '@foghorn/core/wire';

/** Where the search path comes from: a resolv.conf's, or a plugin's per client (`@kubernetes`). */
export interface SearchSource {
  /** The static search path with its '' sentinel; empty when a plugin gives it. */
  readonly search: readonly string[];
  /** The plugin's per-client search path, once startup found it. */
  searchFor: ((req: Request) => readonly string[] | null) | null;
}

/** A writer that keeps the reply instead of sending it (CoreDNS's nonwriter). */
class Capture implements ResponseWriter {
  msg: Packet | undefined;
  wire: Buffer | undefined;

  write(msg: Packet): number {
    this.msg = msg;
    this.wire = undefined;
    return 0;
  }

  writeWire(bytes: Buffer): number {
    this.wire = Buffer.from(bytes);
    this.msg = undefined;
    return bytes.length;
  }

  /** The reply as an object; the wire form is decoded only when it must be changed. */
  packet(): Packet | undefined {
    if (this.msg === undefined && this.wire !== undefined) this.msg = dnsPacket.decode(this.wire);
    return this.msg;
  }

  /** RCODE of the reply (the header's four bits; NXDOMAIN needs no extended rcode). */
  rcode(): number {
    if (this.wire !== undefined) return this.wire[3]! & 0x0f;
    return this.msg === undefined ? -1 : ((this.msg as { flags?: number }).flags ?? 0) & 0x0f;
  }

  send(w: ResponseWriter): void {
    if (this.wire !== undefined) w.writeWire(this.wire);
    else if (this.msg !== undefined) w.write(this.msg);
  }
}

export class AutoPath implements Handler {
  readonly name = 'autopath';

  constructor(
    private readonly zones: readonly string[],
    private readonly source: SearchSource,
    private readonly success: CounterVec,
    private readonly next: Handler | null,
  ) {}

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    if (matchZone(this.zones, req.qname) === undefined) return nextOrFailure(this.name, this.next, req, w);
    const path = this.source.searchFor !== null ? this.source.searchFor(req) : this.source.search;
    if (path === null || path.length === 0 || !firstInSearchPath(req.qname, path[0]!)) return nextOrFailure(this.name, this.next, req, w);
    // dnsutil.TrimZone: the name as asked must be longer than the first search domain.
    if (req.qname === path[0]) return Rcode.SERVFAIL;
    const original = req.name.endsWith('.') ? req.name : `${req.name}.`;
    // The base keeps the client's spelling: the question name minus the first search domain.
    const base = original.slice(0, original.length - path[0]!.length - 1);
    // The first try is usually the query as sent: no copy, its reply needs no CNAME, and when the
    // chain answers at once (the kubernetes plugin does) nothing waits.
    const name = `${base}.${path[0]}`;
    const same = name === original;
    const first = new Capture();
    const result = nextOrFailure(this.name, this.next, same ? req : withName(req, name), first);
    if (same && typeof result === 'number' && found(result, first)) {
      first.send(w);
      this.success.child(req.server).value++;
      return result;
    }
    return this.walk(req, w, path, base, original, first, result, same);
  }

  /** The rest of the walk, once the first try's reply (`first`, rcode `pending`) is in. */
  private async walk(req: Request, w: ResponseWriter, path: readonly string[], base: string, original: string, first: Capture, pending: HandlerResult, same: boolean): Promise<number> {
    const firstRcode = await pending;
    for (let i = 0; i < path.length; i++) {
      let capture = first;
      let rcode = firstRcode;
      if (i > 0) {
        capture = new Capture();
        rcode = await nextOrFailure(this.name, this.next, withName(req, `${base}.${path[i]}`), capture);
      }
      if (!found(rcode, capture)) continue;
      if (i === 0 && same) {
        capture.send(w);
      } else {
        const msg = capture.packet();
        if (msg === undefined) continue;
        cnamer(msg, original);
        w.write(msg);
      }
      this.success.child(req.server).value++;
      return rcode;
    }
    if (clientWrote(firstRcode)) first.send(w);
    return firstRcode;
  }
}

/** A try that ends the walk: a reply the client gets, not NXDOMAIN. */
function found(rcode: number, capture: Capture): boolean {
  return clientWrote(rcode) && capture.rcode() !== Rcode.NXDOMAIN && capture.rcode() >= 0;
}

/** autopath.go `firstInSearchPath`: the name is the first search domain or under it. */
function firstInSearchPath(qname: string, first: string): boolean {
  return first !== '' && (qname === first || isSubdomain(qname, first));
}

/**
 * cname.go `cnamer`: a CNAME from the asked name to the owner of the first answer not already
 * named so (its TTL), before the answers, and the question put back as asked.
 */
function cnamer(msg: Packet, original: string): void {
  const answers = (msg.answers ?? []) as Answer[];
  const name = original.slice(0, -1);
  const lower = name.toLowerCase();
  for (const answer of answers) {
    if (answer.name.toLowerCase().replace(/\.$/, '') === lower) continue;
    answers.unshift({ name, type: 'CNAME', class: 'IN', ttl: (answer as { ttl?: number }).ttl ?? 0, data: answer.name });
    break;
  }
  msg.answers = answers;
  const question = msg.questions?.[0];
  if (question !== undefined) question.name = name;
}

/** The query with another question name: header, new name, the rest (type, class, OPT) as sent. */
function withName(req: Request, name: string): Request {
  const encoded = encodeName(name);
  if (encoded === undefined) return req;
  const raw = req.raw;
  const nameEnd = req.questionEnd - 4;
  const copy = Request.fromWire(Buffer.concat([raw.subarray(0, 12), encoded, raw.subarray(nameEnd)]), req.transport, req.remoteAddress, req.remotePort);
  copy.zone = req.zone;
  copy.server = req.server;
  return copy;
}
