/**
 * The query path of the prometheus plugin: wrap the writer in a Recorder, call the rest of the
 * chain, and report once the reply is known (CoreDNS's plugin/metrics). Synchronous when the chain is; a promise
 * is awaited only when the next handler returns one.
 *
 * Cost per query after warm-up: one Recorder, the query's two clock reads, shared with log
 * (Request.startTime), a cached lookup of the (server, zone) cells and about eight number
 * updates. No label strings are built and no label maps are hashed per query.
 */
import { clientWrote, PluginError, Rcode, rcodeToString, Recorder } from '@foghorn/core';
import type { CounterCell, Handler, HandlerResult, HistogramCell, Request, ResponseWriter } from '@foghorn/core';
import { isIpv6Text } from '@foghorn/core/wire';
import type { DnsMetrics } from './metrics.js';

/**
 * CoreDNS's monitored query types (`monitorType` in plugin/metrics/vars/report.go) and their
 * numbers: the values of the `type` label. Every other type is counted as `other`.
 */
const monitoredTypes: readonly (readonly [string, number])[] = [
  ['A', 1],
  ['NS', 2],
  ['CNAME', 5],
  ['SOA', 6],
  ['PTR', 12],
  ['MX', 15],
  ['TXT', 16],
  ['AAAA', 28],
  ['SRV', 33],
  ['DS', 43],
  ['RRSIG', 46],
  ['NSEC', 47],
  ['DNSKEY', 48],
  ['NSEC3', 50],
  ['SVCB', 64],
  ['HTTPS', 65],
  ['IXFR', 251],
  ['AXFR', 252],
  ['ANY', 255],
];
/** The label of each slot: the monitored types, then `other`. */
const typeLabels: readonly string[] = [...monitoredTypes.map(([name]) => name), 'other'];
const OTHER = monitoredTypes.length;
/** The slot of each type number below 256 (every monitored type is): one array read per query. */
const typeSlots: Uint8Array = new Uint8Array(256).fill(OTHER);
for (const [slot, [, code]] of monitoredTypes.entries()) typeSlots[code] = slot;

function typeSlot(qtype: number): number {
  return qtype < 256 ? typeSlots[qtype]! : OTHER;
}

/** Rcodes are 12 bits with EDNS's extension: an array of every one is a dense array. */
const RCODES = 4096;

/** Cells of one transport at one (server, zone). */
interface ProtoCells {
  readonly requestSize: HistogramCell;
  readonly responseSize: HistogramCell;
  /** `requests_total` cells by {@link typeSlot}, for family 1 (IPv4) and 2 (IPv6). */
  readonly requestsV4: (CounterCell | undefined)[];
  readonly requestsV6: (CounterCell | undefined)[];
}

/** Every cell one (server, zone) pair reports into, resolved on its first query. */
interface Site {
  readonly server: string;
  readonly zone: string;
  readonly duration: HistogramCell;
  readonly doRequests: CounterCell;
  readonly udp: ProtoCells;
  readonly tcp: ProtoCells;
  /** `responses_total` cells by rcode, then by the plugin that wrote ('' for the server). */
  readonly responses: (Map<string, CounterCell> | undefined)[];
  readonly lastResponses: LastResponses;
}

/**
 * The `responses_total` cell of a site's previous query: most replies repeat the last one's rcode
 * and writer, and this spares them a Map lookup (18 ns a query in perf).
 */
interface LastResponses {
  rcode: number;
  writer: string;
  cell: CounterCell | undefined;
}

/** The prometheus handler of one server block. */
export class Prometheus implements Handler {
  /** Sites by server label, then zone. Few entries: one per listener and zone of the block. */
  private readonly sites = new Map<string, Map<string, Site>>();
  /** The site of the previous query: most traffic goes to one zone on one listener. */
  private last: Site | undefined;

  /**
   * @param name the directive (`prometheus`, or its alias `metrics`), for error messages
   * @param next the rest of the chain
   * @param metrics the registry's metric objects, shared by every block and kept across reloads
   * @param view the block's view (the `view` label), '' without one: a block serves one view,
   *   so the label is fixed per handler, where CoreDNS reads it from the query's context
   */
  constructor(
    readonly name: string,
    private readonly next: Handler | null,
    private readonly metrics: DnsMetrics,
    private readonly view = '',
  ) {}

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    req.startTime();
    const next = this.next;
    if (next === null) {
      // CoreDNS's NextOrFailure: the query is still reported, as SERVFAIL.
      this.report(req, 0, Rcode.SERVFAIL);
      throw new PluginError(`plugin/${this.name}: no next plugin found`);
    }
    const recorder = Recorder.over(w);
    let result: HandlerResult;
    try {
      result = next.serveDNS(req, recorder);
    } catch (error) {
      this.reportError(req, recorder, error);
      throw error;
    }
    if (typeof result === 'number') {
      this.report(req, recorder.size, effectiveRcode(recorder, result));
      return result;
    }
    return result.then(
      (status) => {
        this.report(req, recorder.size, effectiveRcode(recorder, status));
        return status;
      },
      (error: unknown) => {
        this.reportError(req, recorder, error);
        throw error;
      },
    );
  }

  /**
   * A PluginError is CoreDNS's `(rcode, err)` and is reported with its rcode. Anything else is
   * a panic, which in CoreDNS unwinds past this plugin unreported (it is counted in
   * `coredns_panics_total` by the server).
   */
  private reportError(req: Request, recorder: Recorder, error: unknown): void {
    if (error instanceof PluginError) this.report(req, recorder.size, effectiveRcode(recorder, error.rcode));
  }

  private report(req: Request, responseSize: number, rcode: number): void {
    const site = this.site(req.server, req.zone);
    const proto = req.transport === 'tcp' ? site.tcp : site.udp;
    if (req.dnssecOk) site.doRequests.value++;
    const byType = isIpv6Text(req.remoteAddress) ? proto.requestsV6 : proto.requestsV4;
    const slot = typeSlot(req.qtype);
    let requests = byType[slot];
    if (requests === undefined) {
      requests = this.metrics.requests.child(site.server, site.zone, this.view, req.transport, byType === proto.requestsV6 ? '2' : '1', typeLabels[slot]!);
      byType[slot] = requests;
    }
    requests.value++;
    site.duration.observe(req.elapsedMs() / 1000);
    proto.responseSize.observe(responseSize);
    proto.requestSize.observe(req.raw.length);
    const writer = req.writtenBy;
    const last = site.lastResponses;
    if (last.rcode === rcode && last.writer === writer) last.cell!.value++;
    else this.responsesCell(site, rcode, writer).value++;
  }

  /** The `responses_total` cell of (rcode, writer), which becomes the site's {@link LastResponses}. */
  private responsesCell(site: Site, rcode: number, writer: string): CounterCell {
    let byWriter = site.responses[rcode];
    if (byWriter === undefined) {
      byWriter = new Map();
      site.responses[rcode] = byWriter;
    }
    let cell = byWriter.get(writer);
    if (cell === undefined) {
      cell = this.metrics.responses.child(site.server, site.zone, this.view, rcodeToString(rcode), writer);
      byWriter.set(writer, cell);
    }
    const last = site.lastResponses;
    last.rcode = rcode;
    last.writer = writer;
    last.cell = cell;
    return cell;
  }

  private site(server: string, zone: string): Site {
    const last = this.last;
    if (last !== undefined && last.server === server && last.zone === zone) return last;
    let zones = this.sites.get(server);
    if (zones === undefined) {
      zones = new Map();
      this.sites.set(server, zones);
    }
    let site = zones.get(zone);
    if (site === undefined) {
      site = this.newSite(server, zone);
      zones.set(zone, site);
    }
    this.last = site;
    return site;
  }

  private newSite(server: string, zone: string): Site {
    const m = this.metrics;
    const proto = (name: 'udp' | 'tcp'): ProtoCells => ({
      requestSize: m.requestSize.child(server, zone, this.view, name),
      responseSize: m.responseSize.child(server, zone, this.view, name),
      requestsV4: new Array<CounterCell | undefined>(typeLabels.length).fill(undefined),
      requestsV6: new Array<CounterCell | undefined>(typeLabels.length).fill(undefined),
    });
    return {
      server,
      zone,
      duration: m.duration.child(server, zone, this.view),
      doRequests: m.doRequests.child(server, zone, this.view),
      udp: proto('udp'),
      tcp: proto('tcp'),
      responses: new Array<Map<string, CounterCell> | undefined>(RCODES).fill(undefined),
      lastResponses: { rcode: -1, writer: '', cell: undefined },
    };
  }
}

/**
 * The rcode label (CoreDNS plugin/metrics/handler.go): the status the chain returned when it is
 * one the server writes (SERVFAIL, REFUSED, FORMERR, NOTIMP), else the rcode of the reply
 * written, NOERROR when nothing was (CoreDNS's recorder starts at 0).
 */
function effectiveRcode(recorder: Recorder, status: number): number {
  if (!clientWrote(status)) return status;
  return recorder.rcode < 0 ? Rcode.NOERROR : recorder.rcode;
}
