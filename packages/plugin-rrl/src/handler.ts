/**
 * The rrl handler: limits the rate of UDP replies per client prefix and response category, as
 * BIND's and Knot's response rate limiting do, and optionally the rate of UDP queries per prefix
 * (coredns/rrl's `requests-per-second`).
 *
 * It wraps the writer the rest of the chain writes to, so it sees each reply in its final form
 * (after cache, rewrite and the answering plugin) and decides there: send it, drop it, or send
 * it truncated (TC=1, every section empty) so that a real client behind the prefix retries over
 * TCP, which is never limited. An error rcode the chain returns without writing, which the server
 * would answer, is judged as an error reply when the chain is done.
 *
 * Cost on a query within its limits: one small writer object, the prefix read from the address
 * text, two 32-bit hashes and a look at 8 slots of typed arrays (`bench/scenario-rrl.ts`).
 */
import { Buffer } from 'node:buffer';
import { clientWrote, Flags, matchZone, nextOrFailure, OPT_LENGTH, Rcode } from '@foghorn/core';
import type { CounterCell, Handler, HandlerResult, Logger, Request, ResponseWriter } from '@foghorn/core';
import { readName, skipName, writeOpt, writeReplyHead } from '@foghorn/core/wire';
import type { Packet } from 'dns-packet';
import { Accounts, Debit } from './accounts.js';
import { Category, categoryNames, classifyMessage, classifyWire, formatPrefix, hashName, keyHash, keyMeta, prefixHash, PrefixReader } from './key.js';
import type { Classified } from './key.js';
import type { RrlMetrics } from './metrics.js';
import type { RrlOptions } from './setup.js';

/** What happens to a reply. */
const Action = { send: 0, drop: 1, slip: 2 } as const;
type Action = (typeof Action)[keyof typeof Action];

/** Log lines about limits start at most this often; the rest are counted into the next line. */
const logIntervalMs = 1000;

/** The counters of one listener (`server` label), resolved once per listener. */
interface Cells {
  readonly server: string;
  readonly exceeded: readonly CounterCell[];
  readonly dropped: readonly CounterCell[];
  readonly slipped: readonly CounterCell[];
  readonly requests: CounterCell;
  readonly recycled: CounterCell;
}

export class Rrl implements Handler {
  readonly name = 'rrl';
  /** ms of credit one reply of each {@link Category} costs; 0: not limited. */
  private readonly intervals: Float64Array;
  /** Some response category is limited (else only requests are, or nothing). */
  private readonly limitsResponses: boolean;
  private readonly accounts: Accounts;
  private readonly prefix: PrefixReader;
  /** Scratch for the classification of the reply being written (used synchronously only). */
  private readonly classified: Classified = { category: Category.response, name: 0 };
  private cells: Cells | undefined;
  private lastLogAt = -Infinity;
  private unlogged = 0;

  constructor(
    private readonly options: RrlOptions,
    private readonly metrics: RrlMetrics,
    private readonly log: Logger,
    private readonly next: Handler | null,
  ) {
    const rates = [options.responsesPerSecond, options.nodataPerSecond, options.nxdomainsPerSecond, options.referralsPerSecond, options.errorsPerSecond, options.requestsPerSecond];
    this.intervals = Float64Array.from(rates, (rate) => (rate > 0 ? 1000 / rate : 0));
    this.limitsResponses = rates.slice(0, Category.request).some((rate) => rate > 0);
    this.accounts = new Accounts(options.maxTableSize, options.windowMs, options.slipRatio);
    this.prefix = new PrefixReader(options.ipv4PrefixLength, options.ipv6PrefixLength);
  }

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    // TCP proves the source address, and an answer over it cannot be reflected: never limited.
    if (req.transport !== 'udp' || matchZone(this.options.zones, req.qname) === undefined) return nextOrFailure(this.name, this.next, req, w);
    const prefix = this.prefix;
    // An address that does not parse (none in practice: the socket gave it) is not limited.
    if (!prefix.read(req.remoteAddress)) return nextOrFailure(this.name, this.next, req, w);
    const accounts = this.accounts;
    // The prefix's share of both key hashes, folded in once for every account this query touches.
    const prefixSet = prefixHash(accounts.seedSet, prefix.w0, prefix.w1, prefix.w2, prefix.w3);
    const prefixPrint = prefixHash(accounts.seedPrint, prefix.w0, prefix.w1, prefix.w2, prefix.w3);
    const family = prefix.family;
    if (this.intervals[Category.request] !== 0) {
      const meta = keyMeta(Category.request, family, 0, 0);
      const action = this.judge(req, prefixSet, prefixPrint, meta, 0, Category.request, null);
      // A request over its limit gets no reply at all (there is nothing to slip).
      if (action !== Action.send) return Rcode.NOERROR;
    }
    if (!this.limitsResponses) return nextOrFailure(this.name, this.next, req, w);
    const limited = new LimitedWriter(this, req, w, prefixSet, prefixPrint, family);
    const result = nextOrFailure(this.name, this.next, req, limited);
    if (typeof result === 'number') return limited.settle(result);
    return result.then((rcode) => limited.settle(rcode));
  }

  /** The action for `msg` about to be written to `req`'s client. */
  judgeMessage(req: Request, prefixSet: number, prefixPrint: number, family: 4 | 6, msg: Packet): Action {
    return this.judgeReply(req, prefixSet, prefixPrint, family, classifyMessage(msg, this.classified), msg);
  }

  /** The action for the encoded reply `wire` about to be written to `req`'s client. */
  judgeWire(req: Request, prefixSet: number, prefixPrint: number, family: 4 | 6, wire: Uint8Array): Action {
    return this.judgeReply(req, prefixSet, prefixPrint, family, classifyWire(wire, this.classified), wire);
  }

  /** The action for the error `rcode` the server is about to write (the chain wrote nothing). */
  judgeError(req: Request, prefixSet: number, prefixPrint: number, family: 4 | 6): Action {
    if (this.intervals[Category.error] === 0) return Action.send;
    return this.judge(req, prefixSet, prefixPrint, keyMeta(Category.error, family, 0, 0), 0, Category.error, null);
  }

  private judgeReply(req: Request, prefixSet: number, prefixPrint: number, family: 4 | 6, classified: Classified, reply: Packet | Uint8Array): Action {
    const category = classified.category;
    if (this.intervals[category] === 0) return Action.send;
    let meta: number;
    let name: number;
    switch (category) {
      case Category.response:
        meta = keyMeta(category, family, req.qclass, req.qtype);
        name = hashName(req.qname);
        break;
      case Category.nodata:
        meta = keyMeta(category, family, req.qclass, 0);
        name = hashName(req.qname);
        break;
      case Category.error:
        meta = keyMeta(category, family, 0, 0);
        name = 0;
        break;
      default:
        // nxdomain and referral: the zone or delegation point from the authority section.
        meta = keyMeta(category, family, req.qclass, 0);
        name = classified.name;
    }
    return this.judge(req, prefixSet, prefixPrint, meta, name, category, reply);
  }

  /** Debits the account of the key and turns the result into an action, counting and logging. */
  private judge(req: Request, prefixSet: number, prefixPrint: number, meta: number, name: number, category: Category, reply: Packet | Uint8Array | null): Action {
    const accounts = this.accounts;
    const debit = accounts.debit(keyHash(prefixSet, meta, name), keyHash(prefixPrint, meta, name), this.intervals[category]!, req.startTime());
    if (debit === 0) return Action.send;
    const cells = this.cellsFor(req.server);
    if ((debit & Debit.exceeded) === 0) {
      cells.recycled.value++;
      return Action.send;
    }
    if (category === Category.request) cells.requests.value++;
    else cells.exceeded[category]!.value++;
    if ((debit & Debit.started) !== 0) this.logLimit(req, category, reply);
    if (this.options.reportOnly) return Action.send;
    if (category !== Category.request && (debit & Debit.slip) !== 0) {
      cells.slipped[category]!.value++;
      return Action.slip;
    }
    if (category !== Category.request) cells.dropped[category]!.value++;
    return Action.drop;
  }

  private cellsFor(server: string): Cells {
    const known = this.cells;
    if (known !== undefined && known.server === server) return known;
    const m = this.metrics;
    const per = (vec: RrlMetrics['responsesExceeded']): CounterCell[] => categoryNames.slice(0, Category.request).map((name) => vec.child(server, name));
    const cells: Cells = {
      server,
      exceeded: per(m.responsesExceeded),
      dropped: per(m.responsesDropped),
      slipped: per(m.responsesSlipped),
      requests: m.requestsExceeded.child(server),
      recycled: m.accountsRecycled.child(server),
    };
    this.cells = cells;
    return cells;
  }

  /**
   * BIND's "limit responses to 192.0.2.0/24 for example.org IN A" when an account goes over its
   * limit, at most one line a second: a flood that starts many episodes (a spoofed source per
   * query) must not become a flood of log lines. The next line says how many were left out.
   */
  private logLimit(req: Request, category: Category, reply: Packet | Uint8Array | null): void {
    const now = req.startTime();
    if (now - this.lastLogAt < logIntervalMs) {
      this.unlogged++;
      return;
    }
    this.lastLogAt = now;
    const o = this.options;
    const p = this.prefix;
    // The reader holds another query's prefix by now when the reply came asynchronously.
    p.read(req.remoteAddress);
    const client = formatPrefix(p.family, p.w0, p.w1, p.w2, p.w3, p.family === 4 ? o.ipv4PrefixLength : o.ipv6PrefixLength);
    const verb = o.reportOnly ? 'would limit' : 'limit';
    let line: string;
    switch (category) {
      case Category.request:
        line = `${verb} requests from ${client}`;
        break;
      case Category.error:
        line = `${verb} error responses to ${client}`;
        break;
      case Category.response:
        line = `${verb} responses to ${client} for ${req.qname} ${req.class} ${req.type}`;
        break;
      case Category.nodata:
        line = `${verb} nodata responses to ${client} for ${req.qname}`;
        break;
      default:
        line = `${verb} ${categoryNames[category]} responses to ${client} for ${authorityName(reply) ?? 'any name'}`;
    }
    if (this.unlogged > 0) line += ` (and ${this.unlogged} more not logged)`;
    this.unlogged = 0;
    this.log.info(line);
  }
}

/** The owner of a reply's first authority record, for a log line (slow path). */
function authorityName(reply: Packet | Uint8Array | null): string | undefined {
  if (reply === null) return undefined;
  if (!(reply instanceof Uint8Array)) {
    const name = reply.authorities?.[0]?.name;
    return name === undefined ? undefined : name.endsWith('.') ? name : `${name}.`;
  }
  const questions = (reply[4]! << 8) | reply[5]!;
  let at = 12;
  for (let q = 0; q < questions && at >= 0; q++) at = skipName(reply, at) + 4;
  const name = at >= 4 ? readName(reply, at) : null;
  return name ?? undefined;
}

/**
 * The writer the chain below *rrl* writes to: judges each reply and sends it on, drops it, or
 * sends its truncated form instead. One per limited query; UDP replies are written once.
 */
class LimitedWriter implements ResponseWriter {
  /** What became of the reply written, -1 before one was. */
  private action: Action | -1 = -1;

  constructor(
    private readonly rrl: Rrl,
    private readonly req: Request,
    private readonly inner: ResponseWriter,
    private readonly prefixSet: number,
    private readonly prefixPrint: number,
    private readonly family: 4 | 6,
  ) {}

  write(msg: Packet): number {
    const action = (this.action = this.rrl.judgeMessage(this.req, this.prefixSet, this.prefixPrint, this.family, msg));
    if (action === Action.send) return this.inner.write(msg);
    return action === Action.slip ? this.inner.writeWire(slipReply(this.req, msg.flags ?? 0)) : 0;
  }

  writeWire(wire: Buffer, size?: number): number {
    const action = (this.action = this.rrl.judgeWire(this.req, this.prefixSet, this.prefixPrint, this.family, wire));
    if (action === Action.send) return this.inner.writeWire(wire, size);
    return action === Action.slip ? this.inner.writeWire(slipReply(this.req, (wire[2]! << 8) | wire[3]!)) : 0;
  }

  /**
   * The chain returned `rcode`. A dropped reply must stay unsent, so its rcode becomes NOERROR
   * (an error rcode would make the server write a reply). An error rcode nobody wrote is the
   * server's reply to come: it is judged like an error reply here.
   */
  settle(rcode: number): number {
    const action = this.action;
    if (action === Action.drop) return Rcode.NOERROR;
    if (action !== -1 || clientWrote(rcode)) return rcode;
    switch (this.rrl.judgeError(this.req, this.prefixSet, this.prefixPrint, this.family)) {
      case Action.send:
        return rcode;
      case Action.slip:
        this.inner.writeWire(slipReply(this.req, rcode));
        return rcode;
      case Action.drop:
        return Rcode.NOERROR;
    }
  }
}

/**
 * A slipped reply: the header of the reply it replaces (its rcode and flags) with TC set and no
 * records, the client's question, and an OPT record when the query had one (RFC 6891 §7), as
 * the scrub writer would echo it. BIND sends the same: "Stop after the question if TC was set".
 */
function slipReply(req: Request, flags: number): Buffer {
  const end = req.questionEnd;
  const out = Buffer.allocUnsafe(end + (req.hasEdns ? OPT_LENGTH : 0));
  writeReplyHead(out, req.raw, end, req.id, Flags.QR | Flags.TC | (flags & ~Flags.QR & 0xffff), 0, 0, req.hasEdns ? 1 : 0);
  if (req.hasEdns) writeOpt(out, end, req.udpSize, req.dnssecOk);
  return out;
}
