/**
 * `foghorn -conf FILE -query NAME [TYPE] [CLASS] [+edns=N]`: what would this Corefile answer, and
 * why? One query goes through the configured chain in-process: the plugins are set up and
 * started (sources synced, readiness awaited) but no DNS listener is opened. The query takes the
 * listeners' own path, core's `dispatch` (class and EDNS checks, the zone's chain, who writes the
 * reply). The reply is printed as dig prints it, followed by the path the query took: the server
 * block, each plugin it passed (core's tracing hook, `BuildContext.onEnter`), the plugins that
 * fell through and the one that wrote the reply. CoreDNS has no such command.
 */
import { randomInt } from 'node:crypto';
import dnsPacket from 'dns-packet';
import type { Answer } from 'dns-packet';
import { Registry } from 'prom-client';
import { CLASS_IN, errorMessage, Flags, rcodeToString, ReadinessProbes, Request, TYPE_DS } from '@foghorn/core';
import type { CorefileSource } from '@foghorn/core';
import { buildInstance, dispatch, ReplyWriter, RouteTable, serverLabel } from '@foghorn/core/server';
import type { AddressPlan, BuildContext, DispatchContext, Instance, Route } from '@foghorn/core/server';
import { classNumber, formatRR, fqdn, typeNumber } from '@foghorn/core/wire';

/** How long `-query` waits for every plugin's readiness probe (a Kubernetes sync, a manifests scan). */
export const readinessTimeoutMs = 10_000;
/** dig's default EDNS buffer size. */
const DIG_UDP_SIZE = 1232;
/** The client the query comes from, as plugins (acl, view, log) see it. */
const CLIENT = { address: '127.0.0.1', port: 53000 };

/** What `-query` needs from the CLI. */
export interface QueryOptions {
  readonly context: Omit<BuildContext, 'registry' | 'validating' | 'shared' | 'requestReload' | 'fatal' | 'onEnter'>;
  readonly name: string;
  /** The words after NAME, in dig's syntax: a TYPE (A), a CLASS (IN), `+edns=VERSION` or `+noedns`. */
  readonly args: readonly string[];
}

/** The outcome: what to print on stdout and stderr, and the exit status. */
export interface QueryOutcome {
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number;
}

/** The question and EDNS of the query, from `-query`'s words. */
interface QuerySpec {
  readonly qtype: number;
  readonly qclass: number;
  /** The OPT record's version, or -1 for a query without OPT (`+noedns`). */
  readonly ednsVersion: number;
}

/** Keeps every reply instead of sending it, with the scrub a UDP listener applies. */
class KeepingWriter extends ReplyWriter {
  readonly replies: Buffer[] = [];
  /** Settles when dispatch is done with the query. */
  readonly finished: Promise<void>;
  private settle: () => void = () => {};

  constructor(req: Request) {
    super(req);
    this.finished = new Promise((resolve) => (this.settle = resolve));
  }

  protected send(wire: Buffer): number {
    this.answered();
    this.replies.push(wire);
    return wire.length;
  }

  override done(): void {
    this.settle();
  }
}

/** Runs `-query`. Never throws for a Corefile's failures: they come back as the outcome. */
export async function runQuery(source: CorefileSource, options: QueryOptions): Promise<QueryOutcome> {
  const logger = options.context.logger;
  const spec = querySpec(options.args);
  if (typeof spec === 'string') return { stdout: '', stderr: `-query: ${spec}\n`, code: 2 };
  let raw: Buffer;
  try {
    raw = queryWire(options.name, spec);
  } catch (error) {
    return { stdout: '', stderr: `-query: '${options.name}' is not a domain name: ${errorMessage(error)}\n`, code: 2 };
  }

  let fatal: string | undefined;
  const path: string[] = [];
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
    // One query runs through this configuration: every plugin entered is on its path.
    onEnter: (_req, plugin) => void path.push(plugin),
  };
  let instance: Instance;
  try {
    instance = await buildInstance(source, context);
  } catch (error) {
    return { stdout: '', stderr: `${errorMessage(error)}\n`, code: 1 };
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

  const req = Request.fromWire(raw, 'udp', CLIENT.address, CLIENT.port);
  const found = route(instance, req);
  let panic: string | undefined;
  // The listener this query would reach, as dispatch sees one.
  const listener: DispatchContext = {
    server: found?.server ?? '',
    routes: new RouteTable(found?.plan.routes ?? []),
    acceptAnyClass: found?.plan.acceptAnyClass ?? false,
    logger,
    onPanic: (_server, error) => void (panic = errorMessage(error)),
  };
  const w = new KeepingWriter(req);
  let silence = 'the chain answered nothing';
  dispatch(listener, req, w);
  try {
    await settled(w.finished, chainTimeoutMs);
  } catch (error) {
    if (!(error instanceof ChainTimeout)) throw error;
    // A listener would still be waiting: nothing is written, the client times out.
    silence = error.message;
  }
  let out = '';
  for (const wire of w.replies) out += dig(wire);
  out += trace(req, path, found, listener, panic, w.written);
  // NOERROR or NXDOMAIN returned without a write: a listener sends nothing and the client times out.
  if (!w.written) return { stdout: `${out};; NO REPLY: ${silence} (a client would time out)\n`, stderr, code: 1 };
  return { stdout: out, stderr, code: 0 };
}

/** How long the chain may take: longer than forward's own deadline (5 s), short of hanging. */
export const chainTimeoutMs = 15_000;

class ChainTimeout extends Error {}

/** Resolves when `done` does, or rejects with a {@link ChainTimeout} when it has not within `ms`. */
async function settled(done: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ChainTimeout(`the chain did not finish within ${ms / 1000}s`)), ms);
  });
  try {
    await Promise.race([done, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Class names dig knows besides `CLASSn`; `ANY` is a class only after a type (dig reads it as the type first). */
const classNames = new Set(['IN', 'CH', 'CHAOS', 'HS', 'HESIOD', 'NONE']);

/** `-query`'s words after NAME: TYPE and CLASS in either order, and dig's `+edns=N` / `+noedns`; or what is wrong. */
function querySpec(args: readonly string[]): QuerySpec | string {
  let qtype: number | undefined;
  let qclass: number | undefined;
  let ednsVersion = 0;
  for (const arg of args) {
    const word = arg.toUpperCase();
    const edns = /^\+EDNS=(\d+)$/.exec(word);
    if (edns) {
      ednsVersion = Number(edns[1]);
      if (ednsVersion > 255) return `EDNS version must be 0 to 255, got '${edns[1]}'`;
    } else if (word === '+NOEDNS') {
      ednsVersion = -1;
    } else if (qclass === undefined && (classNames.has(word) || /^CLASS\d+$/.test(word) || (word === 'ANY' && qtype !== undefined))) {
      qclass = classNumber(word === 'CHAOS' ? 'CH' : word === 'HESIOD' ? 'HS' : word);
      if (!Number.isInteger(qclass) || qclass <= 0 || qclass > 0xffff) return `unknown class '${arg}'`;
    } else if (qtype === undefined) {
      qtype = typeNumber(word);
      if (!Number.isInteger(qtype) || qtype <= 0 || qtype > 0xffff) return `unknown type '${arg}'`;
    } else {
      return `unexpected '${arg}' after the type and class`;
    }
  }
  return { qtype: qtype ?? 1, qclass: qclass ?? CLASS_IN, ednsVersion };
}

/**
 * The query dig sends: a random ID, RD, and EDNS with a 1232-byte buffer unless `+noedns`. Written
 * by hand, so any type, class and EDNS version go out as given (RFC 1035 §4.1, RFC 6891 §6.1.2).
 */
function queryWire(name: string, spec: QuerySpec): Buffer {
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
  const question = Buffer.alloc(4);
  question.writeUInt16BE(spec.qtype, 0);
  question.writeUInt16BE(spec.qclass, 2);
  if (spec.ednsVersion < 0) return Buffer.concat([header, qname, question]);
  header.writeUInt16BE(1, 10); // ARCOUNT: the OPT record
  // OPT: root owner, type 41, class = UDP size, TTL = extended rcode 0, version, flags 0; no rdata.
  const opt = Buffer.from([0, 0, 41, DIG_UDP_SIZE >> 8, DIG_UDP_SIZE & 0xff, 0, spec.ednsVersion, 0, 0, 0, 0]);
  return Buffer.concat([header, qname, question, opt]);
}

/**
 * The route a listener of this Corefile would take. Each listener routes as a server does (most
 * specific zone; DS to the most general, the parent side); across listeners the same rule picks
 * one, the first in Corefile order on a tie.
 */
function route(instance: Instance, req: Request): Found | undefined {
  let best: Found | undefined;
  const better = (a: string, b: string): boolean => (req.qtype === TYPE_DS ? labels(a) < labels(b) : labels(a) > labels(b));
  for (const plan of instance.addresses) {
    // With the query: the block its views choose, as the listener would.
    const match = new RouteTable(plan.routes).match(req.qname, req.qtype, req);
    if (match !== undefined && (best === undefined || better(match.zone, best.route.zone))) {
      best = { plan, route: match, server: serverLabel(plan.host, plan.port, plan.transport) };
    }
  }
  return best;
}

/** The listener a query would reach and its route there. */
interface Found {
  readonly plan: AddressPlan;
  readonly route: Route;
  readonly server: string;
}

function labels(zone: string): number {
  return zone === '.' ? 0 : zone.split('.').length;
}

/** Waits for every readiness probe; returns the names of the plugins still not ready. */
async function readiness(instance: Instance, timeoutMs: number): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const unready = instance.use(ReadinessProbes).filter((probe) => !safeReady(probe.ready)).map((probe) => probe.name);
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
function trace(req: Request, path: readonly string[], found: Found | undefined, listener: DispatchContext, panic: string | undefined, written: boolean): string {
  if (found === undefined) return `\n;; ZONE: none (no server block serves ${req.qname})\n;; WRITTEN BY: the server (REFUSED)\n`;
  const { route, server } = found;
  const key = route.key;
  let out = `\n;; ZONE: ${route.zone} on ${server}${key ? `, server block '${key.text}' at ${key.file}:${key.line}:${key.column}` : ''}\n`;
  // dispatch's checks, in its order, before any plugin runs.
  if (req.qclass !== CLASS_IN && !listener.acceptAnyClass) return `${out};; WRITTEN BY: the server (REFUSED: class ${req.class}, and no plugin here answers classes other than IN)\n`;
  if (req.hasEdns && req.ednsVersion !== 0) return `${out};; WRITTEN BY: the server (BADVERS: EDNS version ${req.ednsVersion}, only 0 is known)\n`;
  if (route.chain === null) return `${out};; WRITTEN BY: the server (REFUSED: the block has no plugin that answers)\n`;
  const fellThrough = path.filter((name, i) => i < path.length - 1 && name !== req.writtenBy && hasFallthrough(route, name));
  out += `;; PATH: ${path.join(' -> ')}\n`;
  for (const name of fellThrough) out += `;; FALLTHROUGH: ${name} passed the query on\n`;
  if (panic !== undefined) out += `;; PANIC: ${panic} (a listener logs it and answers SERVFAIL)\n`;
  if (written) out += `;; WRITTEN BY: ${req.writtenBy === '' ? 'the server (the chain returned an error rcode without writing)' : req.writtenBy}\n`;
  return out;
}

/** Whether the block configures `fallthrough` for the directive (hosts, file, lighthouse, ...). */
function hasFallthrough(route: Route, directive: string): boolean {
  return route.block?.directives.some((d) => d.name === directive && d.tokens.some((token) => token.text === 'fallthrough')) ?? false;
}

