/**
 * The log line format: CoreDNS's replacer (plugin/pkg/replacer), compiled once at setup into a
 * function that writes a query's line into the output buffer: no regular expression, no map
 * lookup, no loop over the format's parts.
 *
 * Bytes, not strings: a line built by string concatenation is some twenty string pieces (and
 * the decimal strings of the ID and port), several hundred bytes of garbage per query that the
 * batch then flattens and encodes again. Written as bytes into the batch buffer while the
 * query's values are still in the CPU's caches, a line leaves nothing behind.
 */
import { Flags } from '@foghorn/core';
import type { Request } from '@foghorn/core';
import { isDisabled, isIpv6Text } from '@foghorn/core/wire';

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
  /** A metadata part's index in {@link CompiledFormat.metadata} (and in the values the writer is given). */
  readonly slot?: number;
  /** A literal's UTF-8 bytes (empty for placeholders). */
  readonly bytes: Uint8Array;
}

/** A format compiled by {@link compileFormat}. */
export interface CompiledFormat {
  /** The format text the parts came from (macros already expanded). */
  readonly source: string;
  /** Writes a line of this format; see {@link LineWriter}. */
  readonly write: LineWriter;
  /** The format prints `{rsize}`: only then does the recorder measure replies. */
  readonly usesSize: boolean;
  /** The format prints `{duration}`: only then is the clock read. */
  readonly usesDuration: boolean;
  /**
   * The most bytes a line of this format takes, its frame included (see {@link LineWriter}),
   * metadata values aside: each adds at most three bytes per UTF-16 unit (see {@link metadataBytes}).
   */
  readonly maxBytes: number;
  /** The labels of the format's `{/LABEL}` placeholders, in order: what the writer's `metadata` values are for. */
  readonly metadata: readonly string[];
}

/**
 * The most bytes metadata `values` take in a line: a missing one prints `-`, which
 * {@link CompiledFormat.maxBytes} counts already.
 */
export function metadataBytes(values: readonly (string | undefined)[]): number {
  let bytes = 0;
  for (const value of values) if (value !== undefined) bytes += 3 * value.length;
  return bytes;
}

/**
 * Writes one line at `pos` of `buf`, which must have {@link CompiledFormat.maxBytes} free from
 * `pos` on (plus {@link metadataBytes} of `metadata`), and returns where it ends. The line is
 * framed as {@link compileFormat} was told. `metadata` holds the values of the format's metadata
 * labels, undefined for a label nobody set (printed as `-`, while an empty value prints nothing,
 * as CoreDNS's replacer does).
 */
export type LineWriter = (req: Request, reply: ReplySummary | null, durationNs: number, buf: Buffer, pos: number, metadata: readonly (string | undefined)[]) => number;

/** Text around each line, written with it: the log handler's `[INFO] ` and newline. */
export interface LineFrame {
  readonly prefix?: string;
  readonly suffix?: string;
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
export function compileFormat(format: string, frame: LineFrame = {}): CompiledFormat {
  const parts: Omit<FormatPart, 'bytes'>[] = [];
  const metadata: string[] = [];
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
    else if (token.startsWith('{/')) parts.push({ kind: Part.Metadata, text: token, slot: metadata.push(token.slice(2, -1)) - 1 });
    else literal(token);
    rest = rest.slice(close + 1);
  }
  literal(rest);
  const framed = [{ kind: Part.Literal, text: frame.prefix ?? '' }, ...parts, { kind: Part.Literal, text: frame.suffix ?? '' }];
  const compiled = framed.map((part) => ({ ...part, bytes: Buffer.from(part.kind === Part.Literal ? part.text : '', 'utf8') }));
  return {
    source: format,
    write: compileWriter(compiled),
    maxBytes: maxLineBytes(compiled),
    usesSize: parts.some((p) => p.kind === Part.Rsize),
    usesDuration: parts.some((p) => p.kind === Part.Duration),
    metadata,
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

/** {@link rcodeNames} as bytes. */
const rcodeBytes: readonly Uint8Array[] = rcodeNames.map((name) => Buffer.from(name));

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

/** The eight flag bits of a header word as 0-255: QR, then AA to CD (bits 10 to 4) below it. */
function flagIndex(header: number): number {
  return ((header >>> 8) & 0x80) | ((header >>> 4) & 0x7f);
}

/**
 * `{>rflags}` of every flag combination, built at load: a dense table, where one indexed by the
 * header word (up to 0x87f0) would be a sparse array, which V8 reads through a slow path.
 */
const flagTexts: readonly string[] = Array.from({ length: 256 }, (_, index) =>
  flagBits
    .filter(([bit]) => (flagIndex(bit) & index) !== 0)
    .map(([, name]) => name)
    .join(','),
);
/** The same as bytes. */
const flagsBytes: readonly Uint8Array[] = flagTexts.map((text) => Buffer.from(text));

/** Header flags in miekg/dns order `qr,aa,tc,rd,ra,z,ad,cd`, comma-joined; '' when none is set. */
export function flagsToString(header: number): string {
  return flagTexts[flagIndex(header)]!;
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

/** {@link EMPTY_VALUE} as a byte. */
const DASH = 0x2d;
const TRUE = Buffer.from('true');
const FALSE = Buffer.from('false');

/** Writes one part of a line at `pos`; returns the end. */
type PartWriter = (buf: Buffer, pos: number, req: Request, reply: ReplySummary | null, durationNs: number, metadata: readonly (string | undefined)[]) => number;

/**
 * Statements of the generated writer (see {@link compileWriter}) that write a string, a whole
 * number or a byte array given as a JavaScript expression, at `pos`, advancing it: the loops of
 * {@link putText}, {@link putUint} and {@link putBytes}, written out in place.
 */
const textCode = (value: string): string =>
  `{ const t = ${value}; for (let i = 0; i < t.length; i++) { const c = t.charCodeAt(i); if (c >= 0x80) { pos = putText(buf, pos, t.slice(i)); break; } buf[pos++] = c; } }`;
const uintCode = (value: string): string =>
  `{ let v = ${value}; if (v > 0xffffffff) pos = putText(buf, pos, String(v)); else { const end = pos + (v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : v < 10000 ? 4 : v < 100000 ? 5 : String(v).length); let at = end; do { const q = (v / 10) >>> 0; buf[--at] = 0x30 + v - q * 10; v = q; } while (v > 0); pos = end; } }`;
const bytesCode = (value: string): string => `{ const b = ${value}; for (let i = 0; i < b.length; i++) buf[pos + i] = b[i]; pos += b.length; }`;
const dashOrCode = (code: string): string => `if (reply === null) buf[pos++] = ${DASH}; else ${code}`;

/**
 * What each placeholder writes, and the most bytes it can print: `code` for the generated
 * writer, over the helpers it is given (the names {@link compileWriter} binds), and `write`, the
 * same as a function, for where code generation is turned off. Everything but literals is ASCII
 * by construction (names come from core's `readName`, which escapes every other octet as `\DDD`).
 */
const partWriters: Readonly<Record<Exclude<Part, Part.Literal | Part.Metadata>, { readonly maxBytes: number; readonly write: PartWriter; readonly code: string }>> = {
  // TYPE65535, NSEC3PARAM
  [Part.Type]: { maxBytes: 16, write: (buf, pos, req) => putText(buf, pos, req.type), code: textCode('req.type') },
  // 255 octets, each at most `\DDD`
  [Part.Name]: { maxBytes: 1024, write: (buf, pos, req) => putText(buf, pos, req.qname), code: textCode('req.qname') },
  // CLASS65535
  [Part.Class]: { maxBytes: 16, write: (buf, pos, req) => putText(buf, pos, req.class), code: textCode('req.class') },
  [Part.Proto]: { maxBytes: 3, write: (buf, pos, req) => putText(buf, pos, req.transport), code: textCode('req.transport') },
  // [IPv6%zone]
  [Part.Remote]: { maxBytes: 66, write: (buf, pos, req) => putAddress(buf, pos, req.remoteAddress), code: 'pos = putAddress(buf, pos, req.remoteAddress);' },
  [Part.Local]: { maxBytes: 66, write: (buf, pos, req) => putText(buf, pos, localAddress(req.server)), code: textCode('localAddress(req.server)') },
  [Part.Port]: { maxBytes: 5, write: (buf, pos, req) => putUint(buf, pos, req.remotePort), code: uintCode('req.remotePort') },
  [Part.Size]: { maxBytes: 5, write: (buf, pos, req) => putUint(buf, pos, req.raw.length), code: uintCode('req.raw.length') },
  [Part.Id]: { maxBytes: 5, write: (buf, pos, req) => putUint(buf, pos, req.id), code: uintCode('req.id') },
  [Part.Opcode]: { maxBytes: 2, write: (buf, pos, req) => putUint(buf, pos, (req.flags >> 11) & 0xf), code: uintCode('(req.flags >> 11) & 0xf') },
  [Part.Do]: { maxBytes: 5, write: (buf, pos, req) => putBytes(buf, pos, req.dnssecOk ? TRUE : FALSE), code: bytesCode('req.dnssecOk ? TRUE : FALSE') },
  [Part.Bufsize]: { maxBytes: 5, write: (buf, pos, req) => putUint(buf, pos, req.maxResponseSize), code: uintCode('req.maxResponseSize') },
  // NXDOMAIN, or an extended rcode's number
  [Part.Rcode]: {
    maxBytes: 8,
    write: (buf, pos, _req, reply) => putRcode(buf, pos, reply),
    code: dashOrCode(`{ const rcode = reply.rcode; if (rcode < rcodeBytes.length) ${bytesCode('rcodeBytes[rcode]')} else ${uintCode('rcode')} }`),
  },
  // summed over a transfer's messages
  [Part.Rsize]: { maxBytes: 16, write: (buf, pos, _req, reply) => putUint(buf, pos, reply === null ? 0 : reply.size), code: uintCode('reply === null ? 0 : reply.size') },
  [Part.Rflags]: { maxBytes: 22, write: (buf, pos, _req, reply) => putFlags(buf, pos, reply), code: dashOrCode(bytesCode('flagsBytes[flagIndex(reply.header)]')) },
  [Part.Duration]: { maxBytes: 32, write: (buf, pos, _req, _reply, durationNs) => putSeconds(buf, pos, durationNs), code: 'pos = putSeconds(buf, pos, durationNs);' },
};

/**
 * A metadata part, by its slot in the values the writer is given: the value, or `-` for a label
 * nobody set (CoreDNS's replacer). Its value's bytes are reserved per line ({@link metadataBytes}).
 */
const metadataWriter = (slot: number): { readonly maxBytes: number; readonly write: PartWriter; readonly code: string } => ({
  maxBytes: 1,
  write: (buf, pos, _req, _reply, _durationNs, metadata) => {
    const value = metadata[slot];
    if (value !== undefined) return putText(buf, pos, value);
    buf[pos] = DASH;
    return pos + 1;
  },
  code: `{ const m = metadata[${slot}]; if (m === undefined) buf[pos++] = ${DASH}; else ${textCode('m')} }`,
});

function writerOf(part: FormatPart): { readonly maxBytes: number; readonly write: PartWriter; readonly code: string } {
  if (part.kind === Part.Literal) throw new Error('a literal has no part writer');
  return part.kind === Part.Metadata ? metadataWriter(part.slot!) : partWriters[part.kind];
}

function maxLineBytes(parts: readonly FormatPart[]): number {
  let bytes = 0;
  for (const part of parts) bytes += part.kind === Part.Literal ? part.bytes.length : writerOf(part).maxBytes;
  return bytes;
}

/** Literals up to this long are written as constant stores; longer ones are copied. */
const INLINE_LITERAL_BYTES = 32;

/**
 * A format's writer, generated: the statements of every part in a row, the literals as
 * constant byte stores, the loops that write strings and numbers written out in place. A loop
 * over the parts took 500–650 ns per default-format line (packages/plugin-log/bench/format.bench.ts),
 * a generated row of calls to the part writers about 300 (best of ten runs: 335), and written
 * out 269: V8 inlines at most 920 bytes of bytecode into one function, which the part writers'
 * loops came to more than, so most of those calls stayed calls. Now only the remote address, the
 * reply's flags and the duration call helpers, and text that is not ASCII takes putText. Every
 * format gets code of its own, so what it reads has one shape at each site.
 *
 * The source holds only these statements and numbers: a literal's bytes are written as numbers,
 * or copied from an array passed in, so no text of a format becomes code. Where code generation
 * is turned off (`node --disallow-code-generation-from-strings`, or `FOGHORN_DISABLE=codegen` to
 * measure what it is worth), the part writers run in a loop ({@link loopWriter}).
 */
function compileWriter(parts: readonly FormatPart[]): LineWriter {
  if (isDisabled('codegen')) return loopWriter(parts);
  const statements = parts.map((part, i) => {
    if (part.kind !== Part.Literal) return writerOf(part).code;
    const bytes = part.bytes;
    if (bytes.length > INLINE_LITERAL_BYTES) return bytesCode(`literals[${i}]`);
    return `${Array.from(bytes, (byte, at) => `buf[pos + ${at}] = ${byte};`).join(' ')} pos += ${bytes.length};`;
  });
  // The names the statements use, bound once per format.
  const helpers = { putText, putAddress, putSeconds, localAddress, flagIndex, rcodeBytes, flagsBytes, TRUE, FALSE, literals: parts.map((part) => part.bytes) };
  try {
    const source = `const { ${Object.keys(helpers).join(', ')} } = h;\nreturn function writeLine(req, reply, durationNs, buf, pos, metadata) {\n${statements.join('\n')}\nreturn pos;\n};`;
    return new Function('h', source)(helpers) as LineWriter;
  } catch {
    return loopWriter(parts);
  }
}

/** {@link compileWriter}'s fallback in shared code: the part writers in a loop. */
function loopWriter(parts: readonly FormatPart[]): LineWriter {
  const writers: PartWriter[] = parts.map((part) => {
    if (part.kind !== Part.Literal) return writerOf(part).write;
    const bytes = part.bytes;
    return (buf, pos) => putBytes(buf, pos, bytes);
  });
  return (req, reply, durationNs, buf, pos, metadata) => {
    for (const write of writers) pos = write(buf, pos, req, reply, durationNs, metadata);
    return pos;
  };
}

/** Writes a string at `pos`; returns the end. ASCII byte by byte (short strings: cheaper than a native call), anything else as UTF-8. */
function putText(buf: Buffer, pos: number, text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return pos + buf.write(text.slice(i), pos, 'utf8');
    buf[pos++] = c;
  }
  return pos;
}

/** Copies `bytes` to `pos`; returns the end. A loop, for the same reason as {@link putText}. */
function putBytes(buf: Buffer, pos: number, bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; i++) buf[pos++] = bytes[i]!;
  return pos;
}

/** Writes a whole number below 2^32 in decimal at `pos`; returns the end. */
function putUint(buf: Buffer, pos: number, value: number): number {
  if (value > 0xffffffff) return putText(buf, pos, String(value));
  const digits = value < 10 ? 1 : value < 100 ? 2 : value < 1000 ? 3 : value < 10000 ? 4 : value < 100000 ? 5 : String(value).length;
  let at = pos + digits;
  let v = value;
  do {
    const q = (v / 10) >>> 0;
    buf[--at] = 0x30 + v - q * 10;
    v = q;
  } while (v > 0);
  return pos + digits;
}

/** {@link formatSeconds} as bytes: below a second, `0.` and the nine digits of ns without trailing zeros. */
function putSeconds(buf: Buffer, pos: number, ns: number): number {
  if (ns <= 0 || ns >= 1e9) return putText(buf, pos, formatSeconds(ns));
  let digits = ns;
  let count = 9;
  for (let q = (digits / 10) >>> 0; digits - q * 10 === 0; q = (digits / 10) >>> 0) {
    digits = q;
    count--;
  }
  buf[pos] = 0x30;
  buf[pos + 1] = 0x2e;
  pos += 2;
  for (let at = pos + count - 1; at >= pos; at--) {
    const q = (digits / 10) >>> 0;
    buf[at] = 0x30 + digits - q * 10;
    digits = q;
  }
  pos += count;
  buf[pos] = 0x73; // s
  return pos + 1;
}

/** `{remote}`: `[::1]` for IPv6, as CoreDNS's `addrToRFC3986`. */
function putAddress(buf: Buffer, pos: number, address: string): number {
  if (!isIpv6Text(address)) return putText(buf, pos, address);
  buf[pos] = 0x5b; // [
  pos = putText(buf, pos + 1, address);
  buf[pos] = 0x5d; // ]
  return pos + 1;
}

function putRcode(buf: Buffer, pos: number, reply: ReplySummary | null): number {
  if (reply === null) {
    buf[pos] = DASH;
    return pos + 1;
  }
  const name = rcodeBytes[reply.rcode];
  return name === undefined ? putUint(buf, pos, reply.rcode) : putBytes(buf, pos, name);
}

function putFlags(buf: Buffer, pos: number, reply: ReplySummary | null): number {
  if (reply === null) {
    buf[pos] = DASH;
    return pos + 1;
  }
  return putBytes(buf, pos, flagsBytes[flagIndex(reply.header)]!);
}

let scratch = Buffer.allocUnsafe(4096);

/** Formats one line as text: the format's {@link CompiledFormat.write}, decoded. */
export function formatLine(format: CompiledFormat, req: Request, reply: ReplySummary | null, durationNs: number, metadata: readonly (string | undefined)[] = []): string {
  const bytes = format.maxBytes + metadataBytes(metadata);
  if (scratch.length < bytes) scratch = Buffer.allocUnsafe(bytes);
  return scratch.toString('utf8', 0, format.write(req, reply, durationNs, scratch, 0, metadata));
}
