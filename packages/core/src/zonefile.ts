/**
 * RFC 1035 §5 master files ("zone files") read into dns-packet records, the way miekg/dns's
 * `ZoneParser` reads them for CoreDNS's *file* plugin: `$ORIGIN`, `$TTL`, `$INCLUDE` (CoreDNS
 * allows it, `SetIncludeAllowed(true)` in `plugin/file/file.go`), `@`, relative names, blank
 * owners, parentheses across lines, `;` comments, quoted strings with `\X` and `\DDD` escapes,
 * BIND TTL units (`1h30m`, `1W`) and RFC 3597 generic rdata (`TYPE65534 \# 2 abcd`).
 *
 * Every error names `file:line`. Names are returned lower-case with a trailing dot, in the
 * presentation form the listener gives query names (`wire.ts` `readName`), so lookups compare
 * strings; `\X` and `\DDD` in names are accepted for characters that need no escape on output
 * (`a\065b` is `aab`), others are refused. No npm parser fitted (none reports lines or handles `$INCLUDE`; see plugin-file's README).
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { isIPv4, isIPv6 } from 'node:net';
import type { Answer } from 'dns-packet';
import * as types from 'dns-packet/types.js';
import { errorMessage, ZoneFileError } from './errors.js';

export { ZoneFileError };

/** Options for {@link parseZoneFile}. */
export interface ZoneFileOptions {
  /** Origin for relative names and `@`, fully qualified (`example.org.`). */
  readonly origin: string;
  /** File name used in errors, and the base of relative `$INCLUDE` paths. */
  readonly file: string;
  /** Reads an `$INCLUDE`d file; default `readFileSync(path, 'utf8')`. */
  readonly readFile?: (path: string) => string;
}

/** miekg/dns's TTL when neither `$TTL` nor an earlier record gave one. */
const DEFAULT_TTL = 3600;
/** miekg/dns refuses `$INCLUDE` nested deeper than this. */
const MAX_INCLUDE_DEPTH = 7;
/**
 * `$INCLUDE`s one parse follows at most. Without a cap, seven levels of files that each include
 * the next ten times make ten million reads (miekg/dns has none).
 */
const MAX_INCLUDES = 1000;
const MAX_UINT32 = 0xffffffff;

interface Token {
  readonly text: string;
  /** Written between double quotes (escapes already applied to `bytes`). */
  readonly quoted: boolean;
  /** The token's bytes with escapes applied (for strings and labels). */
  readonly bytes: Buffer;
  readonly line: number;
}

/** One logical entry: the tokens of a line, or of several lines joined by parentheses. */
interface Entry {
  readonly tokens: Token[];
  /** The entry began with white space: the owner is the previous record's. */
  readonly blankOwner: boolean;
  readonly line: number;
}

/** Splits `text` into entries. Escapes are kept in `text` and resolved in `bytes`. */
function* entries(text: string, file: string): Generator<Entry> {
  let line = 1;
  let i = 0;
  const n = text.length;
  let depth = 0;
  let parenLine = 0;
  let tokens: Token[] = [];
  let blankOwner = false;
  let entryLine = 1;
  let atLineStart = true;
  const fail = (detail: string): never => {
    throw new ZoneFileError(file, line, detail);
  };
  while (i < n) {
    const c = text[i]!;
    if (atLineStart) {
      atLineStart = false;
      // Only a line that starts an entry decides its owner; continuation lines inside ( ) do not.
      if (depth === 0 && tokens.length === 0) {
        blankOwner = c === ' ' || c === '\t';
        entryLine = line;
      }
    }
    if (c === '\n') {
      line++;
      i++;
      atLineStart = true;
      if (depth === 0 && tokens.length > 0) {
        yield { tokens, blankOwner, line: entryLine };
        tokens = [];
      }
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    if (c === ';') {
      while (i < n && text[i] !== '\n') i++;
      continue;
    }
    if (c === '(') {
      if (depth > 0) fail('nested brace');
      depth++;
      parenLine = line;
      i++;
      continue;
    }
    if (c === ')') {
      if (depth === 0) fail('extra closing brace');
      depth--;
      i++;
      continue;
    }
    const quoted = c === '"';
    if (quoted) i++;
    const start = i;
    const bytes: number[] = [];
    for (;;) {
      if (i >= n) {
        if (quoted) fail('unterminated quoted string');
        break;
      }
      const d = text[i]!;
      if (quoted ? d === '"' : d === ' ' || d === '\t' || d === '\r' || d === '\n' || d === ';' || d === '(' || d === ')' || d === '"') break;
      if (d === '\n') line++;
      if (d === '\\') {
        const digits = text.slice(i + 1, i + 4);
        if (/^\d{3}$/.test(digits)) {
          const value = Number(digits);
          if (value > 255) fail(`bad escape \\${digits}`);
          bytes.push(value);
          i += 4;
          continue;
        }
        if (i + 1 >= n) fail('escape at end of file');
        pushChar(bytes, text[i + 1]!);
        i += 2;
        continue;
      }
      pushChar(bytes, d);
      i++;
    }
    const raw = text.slice(start, i);
    if (quoted) i++;
    tokens.push({ text: raw, quoted, bytes: Buffer.from(bytes), line });
  }
  if (depth > 0) throw new ZoneFileError(file, parenLine, 'unbalanced brace: no closing parenthesis');
  if (tokens.length > 0) yield { tokens, blankOwner, line: entryLine };
}

function pushChar(bytes: number[], ch: string): void {
  const code = ch.charCodeAt(0);
  if (code < 0x80) bytes.push(code);
  else for (const b of Buffer.from(ch, 'utf8')) bytes.push(b);
}

/** Presentation text of one label's bytes, escaped like the listener's query names. */
function labelText(bytes: Buffer): string {
  let text = '';
  for (const c of bytes) {
    if (c === 0x2e || c === 0x5c) text += '\\' + String.fromCharCode(c);
    else if (c <= 0x20 || c >= 0x7f) text += '\\' + String(c).padStart(3, '0');
    else text += String.fromCharCode(c >= 0x41 && c <= 0x5a ? c + 0x20 : c);
  }
  return text;
}

/**
 * A domain name token as a lower-case absolute name with a trailing dot: `@` is the origin and a
 * name without a final dot is relative to it. Returns undefined when the name is malformed.
 */
export function zoneName(token: string, origin: string): string | undefined {
  if (token === '@') return origin;
  if (token === '.') return '.';
  const labels: string[] = [];
  let current: number[] = [];
  let absolute = false;
  for (let i = 0; i < token.length; i++) {
    const c = token[i]!;
    if (c === '\\') {
      const digits = token.slice(i + 1, i + 4);
      if (/^\d{3}$/.test(digits) && Number(digits) <= 255) {
        current.push(Number(digits));
        i += 3;
      } else if (i + 1 < token.length) {
        pushChar(current, token[++i]!);
      } else return undefined;
      continue;
    }
    if (c === '.') {
      if (current.length === 0) return undefined;
      labels.push(labelText(Buffer.from(current)));
      current = [];
      if (i === token.length - 1) absolute = true;
      continue;
    }
    pushChar(current, c);
  }
  if (current.length > 0) labels.push(labelText(Buffer.from(current)));
  // A label needing an escape (a dot, a backslash, a space or a non-ASCII byte) is refused: the
  // message encoder (dns-packet) writes names as plain text and would put the escape on the wire.
  for (const label of labels) if (label.includes('\\') || label.length > 63) return undefined;
  const name = labels.join('.') + '.';
  const full = absolute ? name : origin === '.' ? name : name + origin;
  // RFC 1035 §2.3.4: 255 octets on the wire, which is the text length plus one.
  return full.length + 1 > 255 ? undefined : full;
}

/** A TTL in seconds: digits, or BIND units (`1W2D3h4m5s`). */
function parseTtl(text: string): number | undefined {
  if (/^\d+$/.test(text)) {
    const value = Number(text);
    return value <= MAX_UINT32 ? value : undefined;
  }
  const match = /^(?:\d+[smhdw])+$/i.exec(text);
  if (!match) return undefined;
  let total = 0;
  for (const [, digits, unit] of text.matchAll(/(\d+)([smhdw])/gi)) {
    total += Number(digits) * ({ s: 1, m: 60, h: 3600, d: 86400, w: 604800 } as Record<string, number>)[unit!.toLowerCase()]!;
  }
  return total <= MAX_UINT32 ? total : undefined;
}

const classNames = new Set(['IN', 'CH', 'CS', 'HS', 'NONE', 'ANY']);

function isClass(text: string): boolean {
  const upper = text.toUpperCase();
  return classNames.has(upper) || /^CLASS\d+$/.test(upper);
}

/** The record type a token names (`A`, `txt`, `TYPE65534`), or undefined. */
function typeOf(text: string): string | undefined {
  const upper = text.toUpperCase();
  const generic = /^TYPE(\d+)$/.exec(upper);
  if (generic) {
    const number = Number(generic[1]);
    return number <= 0xffff ? types.toString(number) : undefined;
  }
  const number = types.toType(upper);
  return number === 0 ? undefined : upper;
}

/** Types whose rdata this parser reads from presentation form; others need `\#` (RFC 3597). */
const supportedTypes = new Set(['A', 'AAAA', 'NS', 'CNAME', 'DNAME', 'PTR', 'MX', 'SOA', 'TXT', 'SRV', 'CAA', 'DS', 'DNSKEY', 'RRSIG', 'NSEC', 'HINFO', 'SSHFP', 'TLSA']);

/**
 * Parses a zone file's text. Returns the records in file order (`$INCLUDE`d records where the
 * directive stood). Throws {@link ZoneFileError} naming `file:line` on the first error.
 */
export function parseZoneFile(text: string, options: ZoneFileOptions): Answer[] {
  const records: Answer[] = [];
  const state = { defaultTtl: undefined as number | undefined, lastTtl: undefined as number | undefined, owner: options.origin, includes: 0 };
  readInto(records, text, options.file, options.origin, state, options.readFile ?? ((path) => readFileSync(path, 'utf8')), [resolve(options.file)]);
  return records;
}

interface ParseState {
  /** `$TTL`, once seen. */
  defaultTtl: number | undefined;
  /** The last explicit TTL, used while no `$TTL` was seen (miekg/dns). */
  lastTtl: number | undefined;
  owner: string;
  /** `$INCLUDE`s followed so far. */
  includes: number;
}

/** `chain` is the file being read and the files that included it, outermost first, as absolute paths. */
function readInto(records: Answer[], text: string, file: string, startOrigin: string, state: ParseState, readFile: (path: string) => string, chain: readonly string[]): void {
  let origin = startOrigin;
  for (const entry of entries(text, file)) {
    const fail = (detail: string, token?: Token): never => {
      throw new ZoneFileError(file, token?.line ?? entry.line, detail);
    };
    const tokens = entry.tokens;
    const first = tokens[0]!;
    if (!entry.blankOwner && !first.quoted && first.text.startsWith('$')) {
      const directive = first.text.toUpperCase();
      const args = tokens.slice(1);
      switch (directive) {
        case '$ORIGIN': {
          if (args.length !== 1) fail('$ORIGIN needs one domain name', first);
          const name = zoneName(args[0]!.text, origin);
          if (name === undefined) fail(`bad origin name: "${args[0]!.text}"`, args[0]);
          origin = name!;
          break;
        }
        case '$TTL': {
          if (args.length !== 1) fail('$TTL needs one TTL', first);
          const ttl = parseTtl(args[0]!.text);
          if (ttl === undefined) fail(`not a TTL: "${args[0]!.text}"`, args[0]);
          state.defaultTtl = ttl;
          break;
        }
        case '$INCLUDE': {
          if (args.length < 1 || args.length > 2) fail('$INCLUDE needs a file name and an optional origin', first);
          if (chain.length > MAX_INCLUDE_DEPTH) fail('too deeply nested $INCLUDE', first);
          if (++state.includes > MAX_INCLUDES) fail(`more than ${MAX_INCLUDES} $INCLUDEs`, first);
          const target = args[0]!.text;
          const path = isAbsolute(target) ? target : join(dirname(file), target);
          // A file that includes itself, directly or through others, would be read until the depth limit.
          if (chain.includes(resolve(path))) fail(`$INCLUDE loop: \`${target}' is already being read`, args[0]);
          let includeOrigin = origin;
          if (args[1]) {
            const name = zoneName(args[1].text, origin);
            if (name === undefined) fail(`bad origin name: "${args[1].text}"`, args[1]);
            includeOrigin = name!;
          }
          let included: string;
          try {
            included = readFile(path);
          } catch (error) {
            return fail(`failed to open \`${target}': ${errorMessage(error)}`, args[0]);
          }
          const owner = state.owner;
          readInto(records, included, path, includeOrigin, state, readFile, [...chain, resolve(path)]);
          // RFC 1035 §5.1: the include changes neither the origin nor the current owner here.
          state.owner = owner;
          break;
        }
        default:
          fail(`unsupported directive "${first.text}"`, first);
      }
      continue;
    }

    let at = 0;
    let owner = state.owner;
    if (!entry.blankOwner) {
      const name = zoneName(first.text, origin);
      if (name === undefined) fail(`bad owner name: "${first.text}"`, first);
      owner = name!;
      at = 1;
    }
    let ttl: number | undefined;
    let klass = 'IN';
    // TTL and class in either order, each at most once (RFC 1035 §5.1).
    for (let k = 0; k < 2; k++) {
      const token = tokens[at];
      if (token === undefined) break;
      if (ttl === undefined && /^\d/.test(token.text) && typeOf(token.text) === undefined) {
        ttl = parseTtl(token.text);
        if (ttl === undefined) fail(`not a TTL: "${token.text}"`, token);
        at++;
      } else if (isClass(token.text) && typeOf(token.text) === undefined) {
        klass = token.text.toUpperCase();
        at++;
      }
    }
    const typeToken = tokens[at];
    if (typeToken === undefined) fail('missing record type');
    const type = typeOf(typeToken!.text);
    if (type === undefined) fail(`unknown RR type "${typeToken!.text}"`, typeToken);
    if (ttl !== undefined) {
      if (state.defaultTtl === undefined) state.lastTtl = ttl;
    } else ttl = state.defaultTtl ?? state.lastTtl ?? DEFAULT_TTL;
    state.owner = owner;
    const rdata = tokens.slice(at + 1);
    const data = readRdata(type!, rdata, origin, (detail, token) => fail(`${type} ${detail}`, token ?? typeToken));
    records.push({ name: owner === '.' ? '.' : owner.slice(0, -1), type, class: klass, ttl, data } as Answer);
  }
}

type Fail = (detail: string, token?: Token) => never;

function readRdata(type: string, rdata: Token[], origin: string, fail: Fail): unknown {
  if (rdata[0]?.text === '\\#' && !rdata[0].quoted) return genericRdata(type, rdata, fail);
  if (!supportedTypes.has(type)) fail('is not supported in presentation form: write it as \\# LENGTH HEX (RFC 3597)', rdata[0]);
  const want = (count: number): void => {
    if (rdata.length !== count) fail(`needs ${count} rdata field${count === 1 ? '' : 's'}, got ${rdata.length}`, rdata[count] ?? rdata[rdata.length - 1]);
  };
  const name = (token: Token): string => {
    const value = zoneName(token.text, origin);
    if (value === undefined) fail(`bad domain name: "${token.text}"`, token);
    return value === '.' ? '.' : value!.slice(0, -1);
  };
  const uint = (token: Token, max: number, what: string): number => {
    if (!/^\d+$/.test(token.text) || Number(token.text) > max) fail(`bad ${what}: "${token.text}"`, token);
    return Number(token.text);
  };
  const hex = (tokens: Token[], what: string): Buffer => {
    const text = tokens.map((t) => t.text).join('');
    if (text.length === 0 || text.length % 2 !== 0 || !/^[0-9a-fA-F]+$/.test(text)) fail(`bad ${what}: "${text}"`, tokens[0]);
    return Buffer.from(text, 'hex');
  };
  switch (type) {
    case 'A':
      want(1);
      if (!isIPv4(rdata[0]!.text)) fail(`bad address: "${rdata[0]!.text}"`, rdata[0]);
      return rdata[0]!.text;
    case 'AAAA':
      want(1);
      if (!isIPv6(rdata[0]!.text)) fail(`bad address: "${rdata[0]!.text}"`, rdata[0]);
      return rdata[0]!.text.toLowerCase();
    case 'NS':
    case 'CNAME':
    case 'DNAME':
    case 'PTR':
      want(1);
      return name(rdata[0]!);
    case 'MX':
      want(2);
      return { preference: uint(rdata[0]!, 0xffff, 'preference'), exchange: name(rdata[1]!) };
    case 'SOA': {
      want(7);
      const serial = uint(rdata[2]!, MAX_UINT32, 'serial');
      const time = (token: Token, what: string): number => {
        const value = parseTtl(token.text);
        if (value === undefined) fail(`bad ${what}: "${token.text}"`, token);
        return value!;
      };
      return {
        mname: name(rdata[0]!),
        rname: name(rdata[1]!),
        serial,
        refresh: time(rdata[3]!, 'refresh'),
        retry: time(rdata[4]!, 'retry'),
        expire: time(rdata[5]!, 'expire'),
        minimum: time(rdata[6]!, 'minimum'),
      };
    }
    case 'TXT':
      if (rdata.length === 0) fail('needs at least one string');
      for (const token of rdata) if (token.bytes.length > 255) fail('string longer than 255 bytes', token);
      return rdata.map((token) => token.bytes);
    case 'SRV':
      want(4);
      return {
        priority: uint(rdata[0]!, 0xffff, 'priority'),
        weight: uint(rdata[1]!, 0xffff, 'weight'),
        port: uint(rdata[2]!, 0xffff, 'port'),
        target: name(rdata[3]!),
      };
    case 'CAA': {
      want(3);
      const flags = uint(rdata[0]!, 255, 'flags');
      const tag = rdata[1]!.text;
      if (!/^[a-zA-Z0-9]+$/.test(tag)) fail(`bad tag: "${tag}"`, rdata[1]);
      return { flags, tag, value: rdata[2]!.bytes.toString('latin1'), issuerCritical: (flags & 0x80) !== 0 };
    }
    case 'DS':
      if (rdata.length < 4) fail(`needs 4 rdata fields, got ${rdata.length}`, rdata[rdata.length - 1]);
      return {
        keyTag: uint(rdata[0]!, 0xffff, 'key tag'),
        algorithm: uint(rdata[1]!, 255, 'algorithm'),
        digestType: uint(rdata[2]!, 255, 'digest type'),
        digest: hex(rdata.slice(3), 'digest'),
      };
    case 'DNSKEY': {
      if (rdata.length < 4) fail(`needs 4 rdata fields, got ${rdata.length}`, rdata[rdata.length - 1]);
      if (uint(rdata[1]!, 255, 'protocol') !== 3) fail(`protocol must be 3, got "${rdata[1]!.text}"`, rdata[1]);
      const key = rdata.slice(3).map((t) => t.text).join('');
      if (!/^[A-Za-z0-9+/]+=*$/.test(key)) fail('bad base64 key', rdata[3]);
      return { flags: uint(rdata[0]!, 0xffff, 'flags'), algorithm: uint(rdata[2]!, 255, 'algorithm'), key: Buffer.from(key, 'base64') };
    }
    case 'RRSIG': {
      if (rdata.length < 9) fail(`needs 9 rdata fields, got ${rdata.length}`, rdata[rdata.length - 1]);
      const covered = typeOf(rdata[0]!.text);
      if (covered === undefined) fail(`unknown type covered "${rdata[0]!.text}"`, rdata[0]);
      const signature = rdata.slice(8).map((t) => t.text).join('');
      if (!/^[A-Za-z0-9+/]+=*$/.test(signature)) fail('bad base64 signature', rdata[8]);
      return {
        typeCovered: covered,
        algorithm: uint(rdata[1]!, 255, 'algorithm'),
        labels: uint(rdata[2]!, 255, 'labels'),
        originalTTL: uint(rdata[3]!, MAX_UINT32, 'original TTL'),
        expiration: signatureTime(rdata[4]!, fail),
        inception: signatureTime(rdata[5]!, fail),
        keyTag: uint(rdata[6]!, 0xffff, 'key tag'),
        signersName: name(rdata[7]!),
        signature: Buffer.from(signature, 'base64'),
      };
    }
    case 'NSEC': {
      if (rdata.length < 1) fail('needs a next domain name');
      const rrtypes = rdata.slice(1).map((token) => {
        const covered = typeOf(token.text);
        if (covered === undefined) fail(`unknown type "${token.text}" in the type bitmap`, token);
        return covered!;
      });
      return { nextDomain: name(rdata[0]!), rrtypes };
    }
    case 'HINFO':
      want(2);
      return { cpu: rdata[0]!.bytes.toString('latin1'), os: rdata[1]!.bytes.toString('latin1') };
    case 'SSHFP':
      if (rdata.length < 3) fail(`needs 3 rdata fields, got ${rdata.length}`, rdata[rdata.length - 1]);
      return { algorithm: uint(rdata[0]!, 255, 'algorithm'), hash: uint(rdata[1]!, 255, 'type'), fingerprint: hex(rdata.slice(2), 'fingerprint').toString('hex') };
    case 'TLSA':
      if (rdata.length < 4) fail(`needs 4 rdata fields, got ${rdata.length}`, rdata[rdata.length - 1]);
      return {
        usage: uint(rdata[0]!, 255, 'usage'),
        selector: uint(rdata[1]!, 255, 'selector'),
        matchingType: uint(rdata[2]!, 255, 'matching type'),
        certificate: hex(rdata.slice(3), 'certificate'),
      };
  }
  return fail('is not supported');
}

/** RFC 4034 §3.2: `YYYYMMDDHHmmSS` in UTC, or seconds since the epoch. */
function signatureTime(token: Token, fail: Fail): number {
  const text = token.text;
  const stamp = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(text);
  if (stamp) {
    const [, y, mo, d, h, mi, se] = stamp.map(Number) as number[];
    // Serial number arithmetic (RFC 1982): the time modulo 2^32.
    return (Date.UTC(y!, mo! - 1, d!, h!, mi!, se!) / 1000) % 2 ** 32;
  }
  if (/^\d+$/.test(text) && Number(text) <= MAX_UINT32) return Number(text);
  return fail(`bad signature time: "${text}"`, token);
}

/** RFC 3597 §5: `\# LENGTH HEX...`; kept as raw bytes, for types dns-packet has no codec for. */
function genericRdata(type: string, rdata: Token[], fail: Fail): Buffer {
  const length = rdata[1];
  if (length === undefined || !/^\d+$/.test(length.text)) fail('bad \\# rdata length', length ?? rdata[0]);
  const bytes = Buffer.from(rdata.slice(2).map((t) => t.text).join(''), 'hex');
  if (bytes.length !== Number(length!.text)) fail(`\\# rdata length ${length!.text} does not match ${bytes.length} bytes of data`, length);
  if (!type.startsWith('UNKNOWN_')) fail('\\# rdata is only supported for types Foghorn has no codec for', rdata[0]);
  return bytes;
}
