/**
 * The hosts handler (CoreDNS `plugin/hosts/hosts.go`). Per query: one zone match, at most four
 * map lookups, and the records of the answer; nothing is decoded beyond the question.
 *
 * | query                                   | reply                                              |
 * |-----------------------------------------|----------------------------------------------------|
 * | outside the zones, not PTR              | next                                               |
 * | PTR with names for the address          | the PTRs (even outside the zones)                  |
 * | PTR without                             | next, whatever `fallthrough` says                  |
 * | A / AAAA with addresses                 | the records, AA                                    |
 * | name has addresses, none of this type   | NODATA: NOERROR, AA, no records, no SOA            |
 * | other type, name known, `fallthrough_unsupported` covers it | next                           |
 * | name unknown                            | next when `fallthrough` covers it, else SERVFAIL   |
 *
 * SERVFAIL rather than NXDOMAIN because the plugin has no SOA to prove a negative with.
 */
import type { Answer } from 'dns-packet';
import { Flags, matchZone, nextOrFailure, Rcode, replyTo, TYPE_A, TYPE_AAAA, TYPE_PTR } from '@foghorn/core';
import type { Handler, HandlerResult, Request, ResponseWriter } from '@foghorn/core';
import { addressFromReverse, HostsMap, lookup } from './hostsfile.js';


/** The data a handler serves: the file's (replaced on reload) and the Corefile's inline entries. */
export class HostsData {
  file: HostsMap = new HostsMap();
  constructor(readonly inline: HostsMap) {}

  /** File addresses then inline ones, each exact-or-wildcard (CoreDNS's `lookupStaticHostFamily`). */
  addresses(name: string, v4: boolean): readonly string[] {
    const fromFile = v4 ? lookup(this.file.name4, this.file.wild4, name) : lookup(this.file.name6, this.file.wild6, name);
    const fromInline = v4 ? lookup(this.inline.name4, this.inline.wild4, name) : lookup(this.inline.name6, this.inline.wild6, name);
    if (fromInline === undefined) return fromFile ?? [];
    return fromFile === undefined ? fromInline : fromFile.concat(fromInline);
  }

  /** Names of `address` (file, then inline). */
  names(address: string): readonly string[] {
    const fromFile = this.file.addr.get(address);
    const fromInline = this.inline.addr.get(address);
    if (fromInline === undefined) return fromFile ?? [];
    return fromFile === undefined ? fromInline : fromFile.concat(fromInline);
  }
}

/** Options the handler reads per query. */
export interface HandlerOptions {
  /** Zones names must fall under (PTR queries excepted). */
  readonly zones: readonly string[];
  /** TTL of every record. */
  readonly ttl: number;
  /** `fallthrough` zones: null when off. */
  readonly fallthrough: readonly string[] | null;
  /** `fallthrough_unsupported`: other query types for known names go to next too. */
  readonly fallthroughUnsupported: boolean;
}

export class Hosts implements Handler {
  readonly name = 'hosts';

  constructor(
    private readonly data: HostsData,
    private readonly options: HandlerOptions,
    private readonly next: Handler | null,
  ) {}

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    const qname = req.qname;
    const qtype = req.qtype;
    if (qtype !== TYPE_PTR && matchZone(this.options.zones, qname) === undefined) return nextOrFailure(this.name, this.next, req, w);
    const ttl = this.options.ttl;
    let answers: Answer[] = [];
    switch (qtype) {
      case TYPE_PTR: {
        const names = this.data.names(addressFromReverse(qname));
        if (names.length === 0) return nextOrFailure(this.name, this.next, req, w);
        answers = names.map((data) => ({ type: 'PTR', name: qname, class: 'IN', ttl, data }));
        break;
      }
      case TYPE_A:
        answers = this.data.addresses(qname, true).map((data) => ({ type: 'A', name: qname, class: 'IN', ttl, data }));
        break;
      case TYPE_AAAA:
        answers = this.data.addresses(qname, false).map((data) => ({ type: 'AAAA', name: qname, class: 'IN', ttl, data }));
        break;
      default:
        if (this.options.fallthroughUnsupported && this.fallsThrough(qname)) return nextOrFailure(this.name, this.next, req, w);
    }
    if (answers.length === 0 && !this.known(qname)) {
      if (this.fallsThrough(qname)) return nextOrFailure(this.name, this.next, req, w);
      return Rcode.SERVFAIL;
    }
    const reply = replyTo(req);
    reply.flags |= Flags.AA;
    reply.answers = answers;
    w.write(reply);
    return Rcode.NOERROR;
  }

  /** The name has an address of either family (CoreDNS's `otherRecordsExist`). */
  private known(qname: string): boolean {
    return this.data.addresses(qname, true).length > 0 || this.data.addresses(qname, false).length > 0;
  }

  private fallsThrough(qname: string): boolean {
    const zones = this.options.fallthrough;
    return zones !== null && matchZone(zones, qname) !== undefined;
  }
}
