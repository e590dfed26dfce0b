/**
 * The log line format: CoreDNS's replacer (plugin/pkg/replacer), compiled once at setup into a
 * list of parts so that formatting a query is one loop of string concatenation, with no regular
 * expression and no map lookup per query.
 */
import { Flags } from '@foghorn/core';
import type { Request } from '@foghorn/core';

/** What the formatter needs to know about the reply, or null when there was none. */
export interface ReplySummary {
  /** Rcode of the (last) reply. */
  readonly rcode: number;
  /** The 16-bit header word of the reply, QR included. */
  readonly header: number;
  /** Summed uncompressed length of everything written, before the server's scrub (CoreDNS's `rr.Len`). */
  readonly size: number;
}

/** `{common}`: the Common Log Format of CoreDNS's log plugin. */
export const COMMON_LOG_FORMAT =
  '{remote}:{port} - {>id} "{type} {class} {name} {proto} {size} {>do} {>bufsize}" {rcode} {>rflags} {rsize} {duration}';
/** `{combined}`: `{common}` plus the request opcode. */
export const COMBINED_LOG_FORMAT = `${COMMON_LOG_FORMAT} "{>opcode}"`;
/** The format of a rule that names none. */
export const DEFAULT_LOG_FORMAT = COMMON_LOG_FORMAT;
/** What CoreDNS prints for a value it does not have (`CommonLogEmptyValue`). */
export const EMPTY_VALUE = '-';

/** Part kinds; numbers so the per-query switch compares small integers. */
const enum Part {
  Literal,
  Type,
  Name,
  Class,
  Proto,
  Remote,
  Local,
  Port,
  Size,
  Id,
  Opcode,
  Do,
  Bufsize,
  Rcode,
  Rsize,
  Rflags,
  Duration,
  Metadata,
}

const placeholders: ReadonlyMap<string, Part> = new Map([
  ['{type}', Part.Type],
  ['{name}', Part.Name],
  ['{class}', Part.Class],
  ['{proto}', Part.Proto],
  ['{remote}', Part.Remote],
  ['{local}', Part.Local],
  ['{port}', Part.Port],
  ['{size}', Part.Size],
  ['{>id}', Part.Id],
  ['{>opcode}', Part.Opcode],
  ['{>do}', Part.Do],
  ['{>bufsize}', Part.Bufsize],
  ['{rcode}', Part.Rcode],
  ['{rsize}', Part.Rsize],
  ['{>rflags}', Part.Rflags],
  ['{duration}', Part.Duration],
]);

interface FormatPart {
  readonly kind: Part;
  /** The literal text (for Literal), or the placeholder as written. */
  readonly text: string;
}

/** A format compiled by {@link compileFormat}. */
export interface CompiledFormat {
  /** The format text the parts came from (macros already expanded). */
  readonly source: string;
  readonly parts: readonly FormatPart[];
  /** The format prints `{rsize}`: only then does the recorder measure replies. */
  readonly usesSize: boolean;
  /** The format prints `{duration}`: only then is the clock read. */
  readonly usesDuration: boolean;
}

/**
 * Expands the `{common}` and `{combined}` macros as text, the way CoreDNS does since #5223, so
 * `"{combined} {/forward/upstream}"` works.
 */
export function expandMacros(format: string): string {
  return format.replaceAll('{common}', COMMON_LOG_FORMAT).replaceAll('{combined}', COMBINED_LOG_FORMAT);
}

/**
 * Splits a format into literal text and placeholders the way CoreDNS's replacer does: find the
 * next `}`, then the nearest `{` before it. So in `{ {type} }` only `{type}` is a placeholder.
 * Unknown placeholders stay literal text; `{/LABEL}` is metadata.
 */
export function compileFormat(format: string): CompiledFormat {
  const parts: FormatPart[] = [];
  const literal = (text: string): void => {
    if (text === '') return;
    const last = parts[parts.length - 1];
    if (last?.kind === Part.Literal) parts[parts.length - 1] = { kind: Part.Literal, text: last.text + text };
    else parts.push({ kind: Part.Literal, text });
  };
  let rest = format;
  for (;;) {
    const open = rest.indexOf('{');
    if (open === -1) break;
    const close = rest.indexOf('}', open);
    if (close === -1) break;
    const start = rest.lastIndexOf('{', close);
    literal(rest.slice(0, start));
    const token = rest.slice(start, close + 1);
    const kind = placeholders.get(token);
    if (kind !== undefined) parts.push({ kind, text: token });
    else if (token.startsWith('{/') && token.length > 3) parts.push({ kind: Part.Metadata, text: token });
    else literal(token);
    rest = rest.slice(close + 1);
  }
  literal(rest);
  return {
    source: format,
    parts,
    usesSize: parts.some((p) => p.kind === Part.Rsize),
    usesDuration: parts.some((p) => p.kind === Part.Duration),
  };
}

/** miekg/dns's `RcodeToString` for the four-bit header rcode; others print as numbers. */
const rcodeNames: readonly string[] = [
  'NOERROR',
  'FORMERR',
  'SERVFAIL',
  'NXDOMAIN',
  'NOTIMP',
  'REFUSED',
  'YXDOMAIN',
  'YXRRSET',
  'NXRRSET',
  'NOTAUTH',
  'NOTZONE',
];

/** `{>rflags}` for each header word, built on first use: replies repeat a handful of flag sets. */
const flagsCache = new Map<number, string>();
const flagBits: readonly (readonly [number, string])[] = [
  [Flags.QR, 'qr'],
  [Flags.AA, 'aa'],
  [Flags.TC, 'tc'],
  [Flags.RD, 'rd'],
  [Flags.RA, 'ra'],
  [0x0040, 'z'], // the reserved bit, which miekg/dns still prints
  [Flags.AD, 'ad'],
  [Flags.CD, 'cd'],
];

/** Header flags in miekg/dns order `qr,aa,tc,rd,ra,z,ad,cd`, comma-joined; '' when none is set. */
export function flagsToString(header: number): string {
  const key = header & 0x87f0;
  let text = flagsCache.get(key);
  if (text === undefined) {
    text = flagBits
      .filter(([bit]) => (key & bit) !== 0)
      .map(([, name]) => name)
      .join(',');
    flagsCache.set(key, text);
  }
  return text;
}

/**
 * Go's `strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"`: the shortest decimal that reads
 * back as the same float, never in exponent form (`0.000120082s`, 500 ns → `0.0000005s`).
 * `ns` is a whole number of nanoseconds.
 */
export function formatSeconds(ns: number): string {
  if (ns < 1e9) {
    // Below a second Go's float is the nearest double to 0.NNNNNNNNN, and a decimal of at most
    // 15 significant digits is the shortest form of its nearest double: print the digits as they
    // are, which avoids float formatting on the hot path.
    if (ns <= 0) return '0s';
    // 1e9 + ns has ten digits: the nine after its leading 1 are ns zero-padded.
    const digits = String(1e9 + ns);
    let end = digits.length;
    while (digits.charCodeAt(end - 1) === 0x30) end--;
    return `0.${digits.slice(1, end)}s`;
  }
  // The same arithmetic as Go's Duration.Seconds, so the float (and its digits) are the same.
  const seconds = Math.floor(ns / 1e9) + (ns % 1e9) / 1e9;
  return `${toFixedShortest(seconds)}s`;
}

function toFixedShortest(value: number): string {
  const text = String(value);
  const e = text.indexOf('e');
  if (e === -1) return text;
  const negative = text.startsWith('-');
  const mantissa = text.slice(negative ? 1 : 0, e);
  const exponent = Number(text.slice(e + 1));
  const dot = mantissa.indexOf('.');
  const digits = mantissa.replace('.', '');
  const point = (dot === -1 ? mantissa.length : dot) + exponent;
  let fixed: string;
  if (point <= 0) fixed = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) fixed = digits + '0'.repeat(point - digits.length);
  else fixed = `${digits.slice(0, point)}.${digits.slice(point)}`;
  return negative ? `-${fixed}` : fixed;
}

/** `[::1]` for IPv6, as CoreDNS's `addrToRFC3986`. */
function bracketed(address: string): string {
  return address.includes(':') ? `[${address}]` : address;
}

/**
 * The server's own address for `{local}`. Requests do not carry it, so it is taken from the
 * listener (`dns://127.0.0.1:53`); a wildcard listener gives the empty value.
 */
const localCache = new Map<string, string>();
function localAddress(server: string): string {
  let local = localCache.get(server);
  if (local === undefined) {
    const hostPort = server.replace(/^[a-z]+:\/\//, '');
    const host = hostPort.slice(0, hostPort.lastIndexOf(':'));
    local = host === '' || host === '[::]' || host === '0.0.0.0' ? EMPTY_VALUE : host.startsWith('[') ? host : bracketed(host);
    localCache.set(server, local);
  }
  return local;
}

/** Formats one log line (without the `[INFO] ` prefix). */
export function formatLine(format: CompiledFormat, req: Request, reply: ReplySummary | null, durationNs: number): string {
  let line = '';
  for (const part of format.parts) {
    switch (part.kind) {
      case Part.Literal:
        line += part.text;
        break;
      case Part.Type:
        line += req.type;
        break;
      case Part.Name:
        line += req.qname;
        break;
      case Part.Class:
        line += req.class;
        break;
      case Part.Proto:
        line += req.transport;
        break;
      case Part.Remote:
        line += bracketed(req.remoteAddress);
        break;
      case Part.Local:
        line += localAddress(req.server);
        break;
      case Part.Port:
        line += req.remotePort;
        break;
      case Part.Size:
        line += req.raw.length;
        break;
      case Part.Id:
        line += req.id;
        break;
      case Part.Opcode:
        line += (req.flags >> 11) & 0xf;
        break;
      case Part.Do:
        line += req.dnssecOk ? 'true' : 'false';
        break;
      case Part.Bufsize:
        line += req.maxResponseSize;
        break;
      case Part.Rcode:
        line += reply === null ? EMPTY_VALUE : (rcodeNames[reply.rcode] ?? String(reply.rcode));
        break;
      case Part.Rsize:
        line += reply === null ? 0 : reply.size;
        break;
      case Part.Rflags:
        line += reply === null ? EMPTY_VALUE : flagsToString(reply.header);
        break;
      case Part.Duration:
        line += formatSeconds(durationNs);
        break;
      case Part.Metadata:
        // No metadata plugin in Foghorn yet: CoreDNS prints the empty value for unset labels.
        line += EMPTY_VALUE;
        break;
    }
  }
  return line;
}
