/**
 * `foghorn -conf FILE -query NAME [TYPE]`: what would this Corefile answer, and why? One query
 * goes through the configured chain in-process: the plugins are set up and started (sources
 * synced, readiness awaited) but no DNS listener is opened. The reply is printed as dig prints
 * it, followed by the path the query took: the server block, each plugin it passed, the plugins
 * that fell through and the one that wrote the reply. CoreDNS has no such command.
 */
import { randomInt } from 'node:crypto';
import dnsPacket from 'dns-packet';
import type { Answer } from 'dns-packet';
import { Registry } from 'prom-client';
import {
  buildInstance,
  clientWrote,
  emptyHeader,
  encodeReply,
  Flags,
  formatRR,
  PluginError,
  Rcode,
  rcodeToString,
  readQuery,
  replyTo,
  Request,
  RouteTable,
  serverLabel,
  TYPE_DS,
  typeNumber,
  Verdict,
} from '@foghorn/core';
import type { BuildContext, CorefileSource, Instance, ResponseWriter, Route } from '@foghorn/core';

/** How long `-query` waits for every plugin's readiness probe (a Kubernetes sync, a manifests scan). */
export const readinessTimeoutMs = 10_000;
/** dig's default EDNS buffer size. */
const DIG_UDP_SIZE = 1232;
/** The client the query comes from, as plugins (acl, view, log) see it. */
const CLIENT = { address: '127.0.0.1', port: 53000 };

/** What `-query` needs from the CLI. */
export interface QueryOptions {
  readonly context: Omit<BuildContext, 'registry' | 'validating' | 'shared' | 'requestReload' | 'fatal'>;
  readonly name: string;
  /** The TYPE argument; '' for A. */
  readonly type: string;
}

/** The outcome: what to print on stdout and stderr, and the exit status. */
export interface QueryOutcome {
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number;
}

/**
 * A request that remembers every plugin the chain hands it to: each link of a chain sets
 * `req.handler` before calling its plugin (core's `link`), so an accessor sees the path
 * without the chain knowing it is traced.
 */
class TracedRequest extends Request {
  readonly path: string[] = [];

  constructor(raw: Buffer) {
    const header = emptyHeader();
    if (readQuery(raw, header) !== Verdict.Accept) throw new Error('the query is not one a listener would accept');
    super(raw, header, 'udp', CLIENT.address, CLIENT.port);
    let current = '';
    Object.defineProperty(this, 'handler', {
      get: () => current,
      set: (name: string) => {
        current = name;
        if (name !== '') this.path.push(name);
      },
      enumerable: true,
      configurable: true,
    });
  }
}

/** Keeps every reply instead of sending it, with the scrub a UDP listener applies. */
class KeepingWriter implements ResponseWriter {
  readonly replies: Buffer[] = [];

  constructor(private readonly req: Request) {}

  get written(): boolean {
    return this.replies.length > 0;
  }

  write(msg: dnsPacket.Packet): number {
    return this.keep(encodeReply(this.req, msg));
  }

  writeWire(wire: Buffer): number {
    if (wire.length > this.req.maxResponseSize) return this.write(dnsPacket.decode(wire));
    return this.keep(wire);
  }

  private keep(wire: Buffer): number {
    if (this.req.writtenBy === '') this.req.writtenBy = this.req.handler;
    this.replies.push(wire);
    return wire.length;
  }
}

/** Runs `-query`. Never throws for a Corefile's failures: they come back as the outcome. */
export async function runQuery(source: CorefileSource, options: QueryOptions): Promise<QueryOutcome> {
  const logger = options.context.logger;
  const qtype = options.type === '' ? 1 : typeNumber(options.type.toUpperCase());
  if (!Number.isInteger(qtype) || qtype <= 0 || qtype > 0xffff) return { stdout: '', stderr: `-query: unknown type '${options.type}'\n`, code: 2 };
  let raw: Buffer;
  try {
    raw = queryWire(options.name, qtype);
  } catch (error) {
    return { stdout: '', stderr: `-query: '${options.name}' is not a domain name: ${describe(error)}\n`, code: 2 };
  }

  let fatal: string | undefined;
  const context: BuildContext = {
    ...options.context,
    registry: new Registry(),
    validating: false,
    shared: new Map(),
    requestReload: () => Promise.resolve(new Error('-query does not reload')),
    fatal: (directive, message) => {
      logger.forPlugin(directive).fatal(message);
      fatal ??= `plugin/${directive}: ${message}`;
    },
  };
  let instance: Instance;
  try {
    instance = await buildInstance(source, context);
  } catch (error) {
    return { stdout: '', stderr: `${describe(error)}\n`, code: 1 };
  }
  let stderr = '';
  for (const error of await instance.runHooks('startup')) {
    // The server this Corefile describes may be running: its health, ready or metrics port is
    // then taken, which does not change any answer.
    if (!portTaken(error)) return { stdout: '', stderr: `${error.message}\n`, code: 1 };
    stderr += `;; WARNING: ${error.message} (ignored: -query serves no endpoint)\n`;
  }
  const unready = await readiness(instance, readinessTimeoutMs);
  for (const name of unready) stderr += `;; WARNING: plugin/${name} is not ready after ${readinessTimeoutMs / 1000}s; answering anyway\n`;
  if (fatal !== undefined) return { stdout: '', stderr: `${stderr}${fatal}\n`, code: 1 };

  const req = new TracedRequest(raw);
  const w = new KeepingWriter(req);
  const found = route(instance, req);
  let panic: string | undefined;
  let silence = 'the chain answered nothing';
  if (found === undefined || found.route.chain === null) {
    w.write(replyTo(req, Rcode.REFUSED));
  } else {
    req.server = found.server;
    req.zone = found.route.zone;
    let rcode: number;
    try {
      rcode = await settled(found.route.chain.serveDNS(req, w), chainTimeoutMs);
    } catch (error) {
      if (error instanceof PluginError) rcode = error.rcode;
      else if (error instanceof ChainTimeout) {
        // A listener would still be waiting: nothing is written, the client times out.
        silence = error.message;
        rcode = Rcode.NOERROR;
      } else {
        panic = describe(error);
        rcode = Rcode.SERVFAIL;
      }
    }
    // As a listener does (docs/compatibility.md, "Who writes the reply"): the server writes what
    // the chain returned when no plugin did.
    if (!clientWrote(rcode) && !w.written) {
      req.handler = '';
      w.write(replyTo(req, rcode));
    }
  }
  let out = '';
  for (const wire of w.replies) out += dig(wire);
  out += trace(req, found, panic, w.written);
  // NOERROR or NXDOMAIN returned without a write: a listener sends nothing and the client times out.
  if (!w.written) return { stdout: `${out};; NO REPLY: ${silence} (a client would time out)\n`, stderr, code: 1 };
  return { stdout: out, stderr, code: 0 };
}

/** How long the chain may take: longer than forward's own deadline (5 s), short of hanging. */
export const chainTimeoutMs = 15_000;

class ChainTimeout extends Error {}

/** The chain's rcode, or a {@link ChainTimeout} when it has not finished within `ms`. */
async function settled(result: number | Promise<number>, ms: number): Promise<number> {
  if (typeof result === 'number') return result;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ChainTimeout(`the chain did not finish within ${ms / 1000}s`)), ms);
  });
  try {
    return await Promise.race([result, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The query dig sends by default: a random ID, RD, and EDNS with a 1232-byte buffer. Written by
 * hand, so any type number goes out as given (RFC 1035 §4.1, RFC 6891 §6.1.2).
 */
function queryWire(name: string, qtype: number): Buffer {
  const labels = name === '.' ? [] : (name.endsWith('.') ? name.slice(0, -1) : name).split('.');
  const qname = Buffer.concat([
    ...labels.map((label) => {
      const bytes = Buffer.from(label, 'utf8');
      if (bytes.length === 0 || bytes.length > 63) throw new Error(`label '${label}' must be 1 to 63 bytes`);
      return Buffer.concat([Buffer.from([bytes.length]), bytes]);
    }),
    Buffer.from([0]),
  ]);
  if (qname.length > 255) throw new Error('longer than 255 bytes');
  const header = Buffer.alloc(12);
  header.writeUInt16BE(randomInt(0x10000), 0);
  header.writeUInt16BE(Flags.RD, 2);
  header.writeUInt16BE(1, 4); // QDCOUNT
  header.writeUInt16BE(1, 10); // ARCOUNT: the OPT record
  const question = Buffer.alloc(4);
  question.writeUInt16BE(qtype, 0);
  question.writeUInt16BE(1, 2); // IN
  // OPT: root owner, type 41, class = UDP size, TTL = extended rcode/version/flags 0, no rdata.
  const opt = Buffer.from([0, 0, 41, DIG_UDP_SIZE >> 8, DIG_UDP_SIZE & 0xff, 0, 0, 0, 0, 0, 0]);
  return Buffer.concat([header, qname, question, opt]);
}

/**
 * The route a listener of this Corefile would take. Each listener routes as a server does (most
 * specific zone; DS to the most general, the parent side); across listeners the same rule picks
 * one, the first in Corefile order on a tie.
 */
function route(instance: Instance, req: Request): { route: Route; server: string } | undefined {
  let best: { route: Route; server: string } | undefined;
  const better = (a: string, b: string): boolean => (req.qtype === TYPE_DS ? labels(a) < labels(b) : labels(a) > labels(b));
  for (const plan of instance.addresses) {
    const match = new RouteTable(plan.routes).match(req.qname, req.qtype);
    if (match !== undefined && (best === undefined || better(match.zone, best.route.zone))) {
      best = { route: match, server: serverLabel(plan.host, plan.port, plan.transport) };
    }
  }
  return best;
}

function labels(zone: string): number {
  return zone === '.' ? 0 : zone.split('.').length;
}

/** Waits for every readiness probe; returns the names of the plugins still not ready. */
async function readiness(instance: Instance, timeoutMs: number): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const unready = instance.probes.filter((probe) => !safeReady(probe.ready)).map((probe) => probe.name);
    if (unready.length === 0 || Date.now() >= deadline) return [...new Set(unready)];
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function safeReady(ready: () => boolean): boolean {
  try {
    return ready();
  } catch {
    return false;
  }
}

function portTaken(error: unknown): boolean {
  for (let e = error as { code?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.code === 'EADDRINUSE') return true;
  }
  return false;
}

const opcodes = ['QUERY', 'IQUERY', 'STATUS', 'OPCODE3', 'NOTIFY', 'UPDATE'];
const flagNames: [number, string][] = [
  [Flags.QR, 'qr'],
  [Flags.AA, 'aa'],
  [Flags.TC, 'tc'],
  [Flags.RD, 'rd'],
  [Flags.RA, 'ra'],
  [Flags.AD, 'ad'],
  [Flags.CD, 'cd'],
];

/** One reply as dig prints it: header, OPT pseudosection, then the sections in zone-file form. */
export function dig(wire: Buffer): string {
  const flags = wire.readUInt16BE(2);
  const counts = [4, 6, 8, 10].map((offset) => wire.readUInt16BE(offset));
  const msg = dnsPacket.decode(wire);
  const opcode = (flags & Flags.OPCODE) >> 11;
  let out = `;; ->>HEADER<<- opcode: ${opcodes[opcode] ?? `OPCODE${opcode}`}, status: ${rcodeToString(flags & 0xf)}, id: ${wire.readUInt16BE(0)}\n`;
  const set = flagNames.filter(([bit]) => (flags & bit) !== 0).map(([, name]) => name);
  out += `;; flags: ${set.join(' ')}; QUERY: ${counts[0]}, ANSWER: ${counts[1]}, AUTHORITY: ${counts[2]}, ADDITIONAL: ${counts[3]}\n`;
  const additionals = msg.additionals ?? [];
  const opt = additionals.find((rr) => rr.type === 'OPT') as (Answer & { udpPayloadSize?: number; ednsVersion?: number; flags?: number }) | undefined;
  if (opt) {
    out += `\n;; OPT PSEUDOSECTION:\n; EDNS: version: ${opt.ednsVersion ?? 0}, flags:${((opt.flags ?? 0) & 0x8000) !== 0 ? ' do' : ''}; udp: ${opt.udpPayloadSize ?? 0}\n`;
  }
  out += '\n;; QUESTION SECTION:\n';
  for (const q of msg.questions ?? []) out += `;${fqdn(q.name)}\t\t${q.class ?? 'IN'}\t${q.type}\n`;
  const sections: [string, Answer[]][] = [
    ['ANSWER', msg.answers ?? []],
    ['AUTHORITY', msg.authorities ?? []],
    ['ADDITIONAL', additionals.filter((rr) => rr.type !== 'OPT')],
  ];
  for (const [title, records] of sections) {
    if (records.length === 0) continue;
    out += `\n;; ${title} SECTION:\n`;
    for (const record of records) out += `${formatRR(record, '\t')}\n`;
  }
  return `${out}\n;; MSG SIZE  rcvd: ${wire.length}\n`;
}

/** The path: the server block that matched, each plugin passed, fallthroughs and the writer. */
function trace(req: TracedRequest, found: { route: Route; server: string } | undefined, panic: string | undefined, written: boolean): string {
  if (found === undefined) return `\n;; ZONE: none (no server block serves ${req.qname})\n;; WRITTEN BY: the server (REFUSED)\n`;
  const { route, server } = found;
  const key = route.key;
  let out = `\n;; ZONE: ${route.zone} on ${server}${key ? `, server block '${key.text}' at ${key.file}:${key.line}:${key.column}` : ''}\n`;
  if (route.chain === null) return `${out};; WRITTEN BY: the server (REFUSED: the block has no plugin that answers)\n`;
  const fellThrough = req.path.filter((name, i) => i < req.path.length - 1 && name !== req.writtenBy && hasFallthrough(route, name));
  out += `;; PATH: ${req.path.join(' -> ')}\n`;
  for (const name of fellThrough) out += `;; FALLTHROUGH: ${name} passed the query on\n`;
  if (panic !== undefined) out += `;; PANIC: ${panic} (a listener logs it and answers SERVFAIL)\n`;
  if (written) out += `;; WRITTEN BY: ${req.writtenBy === '' ? 'the server (the chain returned an error rcode without writing)' : req.writtenBy}\n`;
  return out;
}

/** Whether the block configures `fallthrough` for the directive (hosts, file, lighthouse, ...). */
function hasFallthrough(route: Route, directive: string): boolean {
  return route.block?.directives.some((d) => d.name === directive && d.tokens.some((token) => token.text === 'fallthrough')) ?? false;
}

function fqdn(name: string): string {
  return name === '' || name === '.' ? '.' : name.endsWith('.') ? name : `${name}.`;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

