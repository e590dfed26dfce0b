/**
 * The kubernetes handler (CoreDNS plugin/kubernetes/handler.go). Answers are encoded once per
 * (qtype, lower-case name) and kept until the index changes; a cached query costs two map
 * lookups, one allocation for the reply and a copy of the client's header and question (which
 * brings back the client's case, see wire.ts). Only ExternalName targets outside the zone are
 * looked up per query, down the rest of the chain.
 *
 * Per query: zone match over the plugin's zones (a few string compares), the cache lookup, and
 * on a miss one resolution (index lookups, no list scans but the service's own slices).
 */
// Bindings, not globals: per query (docs/architecture.md, "Per-query code").
import { Buffer } from 'node:buffer';
import dnsPacket from 'dns-packet';
import type { Answer, Packet } from 'dns-packet';
import { Flags, isSubdomain, nextOrFailure, OPT_LENGTH, Rcode, REPLY_COPIED_FLAGS, Request, TYPE_A, TYPE_AAAA, TYPE_CNAME, TYPE_NS } from '@foghorn/core';
import type { Handler, HandlerResult, ResponseWriter } from '@foghorn/core';
import { writeOpt, writeReplyHead } from '@foghorn/core/wire';
import type { Name, Record, Resolver, Result, ZoneInfo } from './resolve.js';
import type { ClusterStore } from './store.js';
import { encode, wireLength } from './wire.js';
import type { Encoded } from './wire.js';

/** What the handler needs from the running plugin; filled in at startup. */
export interface HandlerState {
  store: ClusterStore | null;
  resolver: Resolver | null;
  /** Every started watch delivered its first complete list. */
  synced(): boolean;
}

const enum Kind {
  Answer,
  NameError,
  Upstream,
  Refused,
}

/** A cached outcome: the encoded sections (SOA authority for negative answers). */
interface Prepared {
  readonly kind: Kind;
  readonly encoded: Encoded;
  /** For Upstream: the records so far and the lookup to make (`encoded` is then the NODATA reply). */
  readonly result: (Result & { kind: 'records' }) | null;
}

/** Cached answers per handler; past it the cache starts over (a miss costs microseconds). */
export const cacheCapacity = 20_000;
/** ExternalName lookups that come back into this plugin, at most this deep. */
const maxUpstreamDepth = 8;

export class Kubernetes implements Handler {
  readonly name = 'kubernetes';
  private readonly cache = new Map<number, Map<string, Prepared>>();
  private cached = 0;
  private generation = -1;
  private readonly depth = new WeakMap<Request, number>();
  /** Wire lengths of {@link zones}, in their order. */
  private readonly zoneLengths: readonly number[];

  constructor(
    private readonly state: HandlerState,
    /** Longest first. */
    private readonly zones: readonly ZoneInfo[],
    private readonly fallthrough: readonly string[],
    private readonly ttl: number,
    private readonly next: Handler | null,
  ) {
    this.zoneLengths = zones.map((zone) => wireLength(zone.name));
  }

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    const qname = req.qname;
    let zone: ZoneInfo | undefined;
    let zoneLength = 0;
    for (let i = 0; i < this.zones.length; i++) {
      if (isSubdomain(qname, this.zones[i]!.name)) {
        zone = this.zones[i]!;
        zoneLength = this.zoneLengths[i]!;
        break;
      }
    }
    if (zone === undefined) return nextOrFailure(this.name, this.next, req, w);
    const { store, resolver } = this.state;
    if (store === null || resolver === null) return Rcode.SERVFAIL;
    const nameEnd = req.questionEnd - 4;
    const mixedZone = hasUpper(req.raw, nameEnd - zoneLength, nameEnd);
    const prepared = this.prepare(store, resolver, qname, req.qtype, zone, mixedZone, nameEnd - 12);
    switch (prepared.kind) {
      case Kind.Answer:
        return writeEncoded(req, w, prepared.encoded, Rcode.NOERROR);
      case Kind.Refused:
        return Rcode.REFUSED;
      case Kind.NameError:
        if (this.fallsThrough(qname)) return nextOrFailure(this.name, this.next, req, w);
        return writeEncoded(req, w, prepared.encoded, this.state.synced() ? Rcode.NXDOMAIN : Rcode.SERVFAIL);
      case Kind.Upstream:
        return this.upstream(req, w, prepared, zone);
    }
  }

  private prepare(store: ClusterStore, resolver: Resolver, qname: string, qtype: number, zone: ZoneInfo, mixedZone: boolean, qnameLength: number): Prepared {
    if (store.generation !== this.generation) {
      this.cache.clear();
      this.cached = 0;
      this.generation = store.generation;
    }
    // The names whose answer depends on the zone's case (resolve.ts) are cached under a marked key.
    const special = mixedZone && (qtype === TYPE_NS || qname.startsWith('ns.dns.'));
    const key = special ? `${qname}!` : qname;
    let byName = this.cache.get(qtype);
    const hit = byName?.get(key);
    if (hit !== undefined) return hit;
    const prepared = this.build(store, resolver, qname, qtype, zone, special, qnameLength);
    if (this.cached >= cacheCapacity) {
      this.cache.clear();
      this.cached = 0;
      byName = undefined;
    }
    if (byName === undefined) this.cache.set(qtype, (byName = new Map()));
    byName.set(key, prepared);
    this.cached++;
    return prepared;
  }

  private build(store: ClusterStore, resolver: Resolver, qname: string, qtype: number, zone: ZoneInfo, mixedZone: boolean, qnameLength: number): Prepared {
    const result = resolver.resolve(qname, qtype, zone, mixedZone);
    const soa = { serial: store.serial(zone.multicluster ? 'multicluster' : 'internal'), ttl: resolver.soaTtl(), minimum: this.ttl };
    switch (result.kind) {
      case 'refused':
        return { kind: Kind.Refused, encoded: encode([], [], false, soa, qnameLength, zone.name), result: null };
      case 'nameError':
        return { kind: Kind.NameError, encoded: encode([], [], true, soa, qnameLength, zone.name), result: null };
      case 'records':
        if (result.upstream !== null) return { kind: Kind.Upstream, encoded: encode([], [], true, soa, qnameLength, zone.name), result };
        return { kind: Kind.Answer, encoded: encode(result.answer, result.extra, result.answer.length === 0, soa, qnameLength, zone.name), result: null };
    }
  }

  private fallsThrough(qname: string): boolean {
    for (const zone of this.fallthrough) if (isSubdomain(qname, zone)) return true;
    return false;
  }

  /**
   * An ExternalName outside the zone (backend_lookup.go `A`): CoreDNS resolves the target through
   * the server again. Targets in this plugin's zones come back here; others go down the chain
   * (forward, in the stock Corefiles). Any reply keeps the CNAME, whatever its rcode, and its TC
   * bit is copied; no reply drops it (NODATA).
   */
  private async upstream(req: Request, w: ResponseWriter, prepared: Prepared, zone: ZoneInfo): Promise<number> {
    const result = prepared.result!;
    const upstream = result.upstream!;
    const depth = (this.depth.get(req) ?? 0) + 1;
    let reply: Packet | undefined;
    if (depth <= maxUpstreamDepth) {
      const wire = dnsPacket.encode({ type: 'query', id: req.id, flags: Flags.RD, questions: [{ name: upstream.target, type: upstream.qtype === TYPE_AAAA ? 'AAAA' : 'A', class: 'IN' }] } as Packet);
      const sub = Request.fromWire(wire, req.transport, req.remoteAddress, req.remotePort);
      sub.zone = req.zone;
      sub.server = req.server;
      sub.metadata = req.metadata;
      this.depth.set(sub, depth);
      const capture = new Capture();
      try {
        const ours = this.zones.some((z) => isSubdomain(sub.qname, z.name));
        const rcode = await (ours ? this.serveDNS(sub, capture) : nextOrFailure(this.name, this.next, sub, capture));
        // A plugin that returned an rcode without writing leaves the server to write it: a reply too.
        reply = capture.msg ?? (rcode !== Rcode.NOERROR ? { type: 'response', answers: [] } : undefined);
      } catch {
        reply = undefined;
      }
    }
    const zoneText = req.name.slice(req.name.length - (zone.name === '.' ? 1 : zone.name.length));
    const msg = {
      type: 'response' as const,
      id: req.id,
      flags: Flags.AA | (req.flags & REPLY_COPIED_FLAGS) | (reply?.flags !== undefined && reply.flags & Flags.TC ? Flags.TC : 0),
      questions: [{ name: req.name, type: req.type as never, class: req.class as never }],
      answers: [] as Answer[],
      authorities: [] as Answer[],
      additionals: [] as Answer[],
    };
    if (reply !== undefined) {
      msg.answers.push(...result.answer.map((rr) => toPacket(rr, req.name, zoneText)), ...(reply.answers ?? []));
    }
    // No reply: the CNAME goes too, and the prepared sections are the NODATA reply.
    if (msg.answers.length === 0) return writeEncoded(req, w, prepared.encoded, Rcode.NOERROR);
    w.write(msg as Packet);
    return Rcode.NOERROR;
  }
}

/** A writer that keeps the reply instead of sending it. */
class Capture implements ResponseWriter {
  msg: Packet | undefined;

  write(msg: Packet): number {
    this.msg = msg;
    return 0;
  }

  writeWire(wire: Buffer): number {
    this.msg = dnsPacket.decode(wire);
    return wire.length;
  }
}

function render(name: Name, qname: string, zone: string): string {
  switch (name.kind) {
    case 'question':
      return qname;
    case 'literal':
      return name.name;
    case 'zone':
      return `${name.prefix}${zone === '.' ? '' : zone}`;
  }
}

function toPacket(rr: Record, qname: string, zone: string): Answer {
  const name = render(rr.owner, qname, zone);
  const data = rr.data;
  if (data.type === TYPE_CNAME) return { name, type: 'CNAME', ttl: rr.ttl, class: 'IN', data: render(data.target, qname, zone) } as Answer;
  if (data.type === TYPE_A || data.type === TYPE_AAAA) return { name, type: data.type === TYPE_A ? 'A' : 'AAAA', ttl: rr.ttl, class: 'IN', data: data.ip } as Answer;
  throw new Error(`unexpected record type ${data.type} before an upstream lookup`);
}

function hasUpper(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = buf[i]!;
    if (c >= 0x41 && c <= 0x5a) return true;
  }
  return false;
}

/**
 * Header (client's ID, opcode, RD, CD; QR and AA set), the client's question as sent, the cached
 * sections, and an OPT for EDNS clients. When the client sent EDNS options (cookie, NSID) the
 * reply goes through the server's scrub writer decoded, which echoes them.
 */
export function writeEncoded(req: Request, w: ResponseWriter, encoded: Encoded, rcode: number): number {
  const raw = req.raw;
  const questionEnd = req.questionEnd;
  const echoOptions = req.hasEdns && req.ednsOptions !== null && req.ednsOptions.length > 0;
  const hasOpt = req.hasEdns && !echoOptions;
  const body = encoded.body;
  const out = Buffer.allocUnsafe(questionEnd + body.length + (hasOpt ? OPT_LENGTH : 0));
  const flags = Flags.QR | Flags.AA | (req.flags & REPLY_COPIED_FLAGS) | rcode;
  const arcount = encoded.arcount + (hasOpt ? 1 : 0);
  writeReplyHead(out, raw, questionEnd, req.id, flags, encoded.ancount, encoded.nscount, arcount);
  out.set(body, questionEnd);
  const patches = encoded.zonePatches;
  if (patches !== null) {
    // SRV targets end in the zone written in lower case; give them the question's spelling.
    const nameEnd = questionEnd - 4;
    const first = questionEnd + patches[0]!;
    const zoneLength = nameLength(out, first);
    const zoneStart = nameEnd - zoneLength;
    if (hasUpper(raw, zoneStart, nameEnd)) for (const patch of patches) raw.copy(out, questionEnd + patch, zoneStart, nameEnd);
  }
  // OPT with the client's UDP size and DO bit, version 0, no options.
  if (hasOpt) writeOpt(out, questionEnd + body.length, req.udpSize, req.dnssecOk);
  if (echoOptions) return (w.write(dnsPacket.decode(out)), rcode);
  // The recorders count the reply without the OPT, as CoreDNS's do before its scrub adds it.
  w.writeWire(out, hasOpt ? out.length - OPT_LENGTH : out.length);
  return rcode;
}

/** Length of the uncompressed name at `offset`, through its root label. */
function nameLength(buf: Buffer, offset: number): number {
  let end = offset;
  for (let length = buf[end]!; length !== 0; length = buf[end]!) end += length + 1;
  return end + 1 - offset;
}
