/**
 * A query as plugins see it: decoded once by the listener, read by every plugin in the chain.
 */
// A binding, not the global: read per query (docs/architecture.md, "Per-query code").
import { performance } from 'node:perf_hooks';
import dnsPacket from 'dns-packet';
import type { Packet } from 'dns-packet';
import * as types from 'dns-packet/types.js';
import * as classes from 'dns-packet/classes.js';
import type { QueryMetadata } from './capability.js';
import { Flags } from './constants.js';
import type { Span } from './observe.js';
import { isIpv6Text } from './ip.js';
import { emptyHeader, readQuery, Verdict } from './wire.js';
import type { EdnsOption, QueryHeader } from './wire.js';

export type Transport = 'udp' | 'tcp';

/** The smallest UDP payload every client accepts (RFC 1035 §4.2.1). */
export const MIN_UDP_SIZE = 512;
/** The largest DNS message a TCP frame carries. */
export const MAX_TCP_SIZE = 65535;

/** A type number's name, `TYPE65534` for those dns-packet does not know (RFC 3597). */
function nameOfType(qtype: number): string {
  const name = types.toString(qtype);
  return name.startsWith('UNKNOWN_') ? `TYPE${qtype}` : name;
}
/** Names of the types below 256, which queries carry, built at load: one array read per query. */
const lowTypeNames: readonly string[] = Array.from({ length: 256 }, (_, qtype) => nameOfType(qtype));
/** Names of higher type numbers, built on first use. */
const highTypeNames = new Map<number, string>();
function typeName(qtype: number): string {
  if (qtype < 256) return lowTypeNames[qtype]!;
  let name = highTypeNames.get(qtype);
  if (name === undefined) {
    name = nameOfType(qtype);
    highTypeNames.set(qtype, name);
  }
  return name;
}

/**
 * One DNS query. The header fields are read straight from the wire; {@link Request.message}
 * decodes the whole message with dns-packet only when a plugin asks for it.
 */
export class Request {
  /** Message ID. */
  readonly id: number;
  /** Header flag bits as received (opcode, RD, CD, AD, ...); only {@link setFlags} changes them. */
  readonly flags: number;
  /** Question name as the client sent it (case preserved), with a trailing dot. */
  readonly name: string;
  /** Question name lower-cased: what zone matching and plugins compare against. */
  readonly qname: string;
  /** Question type number (1 = A, 28 = AAAA, ...). */
  readonly qtype: number;
  /** Question class number (1 = IN). */
  readonly qclass: number;
  /** True when the query carried an OPT record. */
  readonly hasEdns: boolean;
  /** Advertised EDNS UDP payload size, 0 without OPT; only {@link limitUdpSize} changes it. */
  readonly udpSize: number;
  /** EDNS version of the OPT record. */
  readonly ednsVersion: number;
  /** The DNSSEC OK bit. */
  readonly dnssecOk: boolean;
  /** OPT options the scrub writer echoes back (COOKIE, NSID, ...), or null. */
  readonly ednsOptions: readonly EdnsOption[] | null;
  /** `udp` or `tcp`. */
  readonly transport: Transport;
  /** Client address (IPv4 dotted or IPv6 text). */
  readonly remoteAddress: string;
  readonly remotePort: number;
  /** The wire bytes of the query, for plugins that can work on them directly. */
  readonly raw: Buffer;
  /** Offset in `raw` just past the question (header and question are `raw[0, questionEnd)`). */
  readonly questionEnd: number;
  /** Zone of the server block that received the query, lower-case with a trailing dot. */
  zone = '.';
  /** The listener, as CoreDNS's metrics `server` label: `dns://127.0.0.1:53`. */
  server = '';
  /** The plugin now handling the query; the chain sets it as the query goes down. */
  handler = '';
  /** The plugin that wrote the reply, '' until one did (or when the server wrote it). */
  writtenBy = '';
  /**
   * When the query should be given up, in `performance.now()` milliseconds; `Infinity` when no
   * plugin set one. CoreDNS's context deadline: *cancel* sets it ({@link cancelAfter}), and a
   * plugin that waits on I/O (*forward*) stops waiting when it passes and returns SERVFAIL. Only
   * a plugin that waits reads it, so a query answered synchronously never looks at the clock for
   * it. A plugin that needs an `AbortSignal` makes one:
   * `AbortSignal.timeout(Math.max(0, req.deadline - performance.now()))`.
   */
  deadline = Infinity;

  /**
   * The query's metadata, when its server block has the *metadata* plugin (undefined otherwise):
   * read labels with `get`, publish with `set`. A plugin that copies the query for the rest of
   * the chain hands the copy this same object, as CoreDNS's context goes along.
   */
  metadata: QueryMetadata | undefined = undefined;

  /**
   * The tracing span the query is in now, or undefined when it is not traced: *trace* opens one
   * for a sampled query and core a child per plugin it enters (`PluginSpans`).
   */
  span: Span | undefined = undefined;
  private decoded: Packet | undefined;
  private readonly udpSizeOffset: number;
  /** See {@link startTime}: -1 until a plugin times the query. */
  private timingStart = -1;
  /** When the listener sent the reply to a timed query (see {@link elapsedMs}), -1 before. */
  private replyTime = -1;

  constructor(raw: Buffer, header: QueryHeader, transport: Transport, remoteAddress: string, remotePort: number) {
    this.raw = raw;
    this.questionEnd = header.questionEnd;
    this.id = header.id;
    this.flags = header.flags;
    this.name = header.name;
    this.qname = header.lowerName;
    this.qtype = header.qtype;
    this.qclass = header.qclass;
    this.hasEdns = header.hasEdns;
    this.udpSize = header.udpSize;
    this.udpSizeOffset = header.udpSizeOffset;
    this.ednsVersion = header.ednsVersion;
    this.dnssecOk = header.dnssecOk;
    this.ednsOptions = header.ednsOptions;
    this.transport = transport;
    this.remoteAddress = remoteAddress;
    this.remotePort = remotePort;
  }

  /**
   * A Request from query bytes, for queries a plugin makes on its own behalf (prefetch, a
   * refresh over TCP), tests and benchmarks. Throws on bytes the listener would not accept.
   */
  static fromWire(raw: Buffer, transport: Transport, remoteAddress: string, remotePort: number): Request {
    const header = emptyHeader();
    const verdict = readQuery(raw, header);
    if (verdict !== Verdict.Accept) throw new Error(`not an acceptable query (verdict ${Verdict[verdict]})`);
    return new Request(raw, header, transport, remoteAddress, remotePort);
  }

  /** Question type as text (`A`, `AAAA`, `TYPE65534`). */
  get type(): string {
    return typeName(this.qtype);
  }

  /** Question class as text (`IN`, `CH`). */
  get class(): string {
    return classes.toString(this.qclass);
  }

  /** `IPv4` or `IPv6`, from the client address. */
  get family(): 'IPv4' | 'IPv6' {
    return isIpv6Text(this.remoteAddress) ? 'IPv6' : 'IPv4';
  }

  /** RD bit. */
  get recursionDesired(): boolean {
    return (this.flags & Flags.RD) !== 0;
  }

  /** CD bit. */
  get checkingDisabled(): boolean {
    return (this.flags & Flags.CD) !== 0;
  }

  /**
   * The largest reply the client accepts: 65535 over TCP, otherwise max(512, advertised size)
   * (docs/compatibility.md, "Scrub"; no 1232 cap unless a plugin lowers it).
   */
  get maxResponseSize(): number {
    if (this.transport === 'tcp') return MAX_TCP_SIZE;
    return this.udpSize > MIN_UDP_SIZE ? this.udpSize : MIN_UDP_SIZE;
  }

  /**
   * Lowers the advertised EDNS UDP size to `max` when it is larger, as CoreDNS's *bufsize* does
   * with `SetUDPSize` on the request: in {@link udpSize}, so the reply is cut to it and its OPT
   * echoes it, and in {@link raw}, so a plugin that passes the query on (*forward*) sends it.
   * A query without OPT is left alone: no OPT is added.
   */
  limitUdpSize(max: number): void {
    if (!this.hasEdns || this.udpSize <= max) return;
    this.raw.writeUInt16BE(max, this.udpSizeOffset);
    (this as { udpSize: number }).udpSize = max;
    this.decoded = undefined;
  }

  /**
   * Replaces the header's flag bits (the second 16-bit word: QR, opcode, AA, TC, RD, RA, Z, AD,
   * CD, rcode) in {@link flags} and in {@link raw}, as CoreDNS's *header* plugin does to the
   * request with `query set|clear`: every plugin after it sees the new bits, a reply built with
   * `replyTo` copies them, and a plugin that passes the query on (*forward*) sends them.
   */
  setFlags(flags: number): void {
    this.raw.writeUInt16BE(flags & 0xffff, 2);
    (this as { flags: number }).flags = flags & 0xffff;
    this.decoded = undefined;
  }

  /**
   * When the query's timing began, in `performance.now()` milliseconds. The first plugin to ask
   * reads the clock and every later one gets the same value, so log and prometheus, which both
   * time every query, share one read: a read costs about 50 ns on our 2-core VM, and four per
   * query were 0.2 µs (docs/architecture.md, "One clock per query").
   */
  startTime(): number {
    if (this.timingStart < 0) this.timingStart = performance.now();
    return this.timingStart;
  }

  /**
   * Milliseconds from {@link startTime} to the moment the listener sent the reply, or to now
   * when it has sent none yet (a plugin's error rcode the server answers after the chain).
   * Over TCP, a handler that streams several messages (a transfer) is timed to the last one
   * sent so far.
   */
  elapsedMs(): number {
    const start = this.startTime();
    return (this.replyTime >= 0 ? this.replyTime : performance.now()) - start;
  }

  /**
   * Sets {@link deadline} to `ms` after {@link startTime}, unless an earlier deadline is set
   * (CoreDNS's `context.WithTimeout`, which never extends its parent's deadline). The start is
   * the clock read log and prometheus take anyway, so with either of them this reads no clock.
   */
  cancelAfter(ms: number): void {
    const deadline = this.startTime() + ms;
    if (deadline < this.deadline) this.deadline = deadline;
  }

  /** The listener's writer calls this as it sends a reply; only a timed query reads the clock. */
  replySent(): void {
    if (this.timingStart >= 0) this.replyTime = performance.now();
  }

  /** The whole query decoded by dns-packet, on first use. The listener validated it already. */
  get message(): Packet {
    this.decoded ??= dnsPacket.decode(this.raw);
    return this.decoded;
  }
}
