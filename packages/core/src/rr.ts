/**
 * One resource record from zone-file text (RFC 1035 §5.1), as miekg/dns's `NewRR` reads it:
 * `OWNER [TTL] [CLASS] TYPE RDATA`, TTL and CLASS in either order, TTL 3600 and class IN when
 * left out, names made absolute against the root, `( ... )` spanning lines, `;` comments.
 *
 * The types are the ones generated records use: A, AAAA, CNAME, DNAME, PTR, NS, MX, SRV, TXT and
 * SOA. The result is a dns-packet record (names without the trailing dot, as dns-packet decodes).
 */
import type { Answer } from 'dns-packet';
import { isIP } from 'node:net';

/** miekg/dns's default TTL for a record written without one. */
const DEFAULT_TTL = 3600;

const classNames: ReadonlyMap<string, string> = new Map([
  ['IN', 'IN'], ['CH', 'CH'], ['HS', 'HS'], ['CS', 'CS'], ['NONE', 'NONE'], ['ANY', 'ANY'],
]);

const supported: ReadonlySet<string> = new Set(['A', 'AAAA', 'CNAME', 'DNAME', 'PTR', 'NS', 'MX', 'SRV', 'TXT', 'SOA']);

interface Field {
  readonly text: string;
  /** 0-based offset of the field in the line, for errors. */
  readonly at: number;
}

/** Blanks and parentheses separate fields; `;` starts a comment; `"` starts a quoted field. */
function isSeparator(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x28 || c === 0x29;
}

/** Splits the text into fields: blanks separate, quotes group, parentheses and comments vanish. */
function fields(text: string): Field[] {
  const out: Field[] = [];
  const end = text.length;
  let i = 0;
  while (i < end) {
    const c = text.charCodeAt(i);
    if (isSeparator(c)) {
      i++;
    } else if (c === 0x3b) {
      while (i < end && text.charCodeAt(i) !== 0x0a) i++;
    } else if (c === 0x22) {
      const at = i++;
      let value = '';
      while (i < end && text.charCodeAt(i) !== 0x22) {
        if (text.charCodeAt(i) === 0x5c && i + 1 < end) {
          const digits = text.slice(i + 1, i + 4);
          if (/^\d{3}$/.test(digits)) {
            value += String.fromCharCode(Number(digits));
            i += 4;
            continue;
          }
          i++;
        }
        value += text[i++];
      }
      if (i >= end) throw new Error(`dns: bad TXT Txt: unterminated string at line: 1:${at + 1}`);
      i++;
      out.push({ text: value, at });
    } else {
      const at = i;
      while (i < end) {
        const d = text.charCodeAt(i);
        if (isSeparator(d) || d === 0x3b || d === 0x22) break;
        i += d === 0x5c ? 2 : 1;
      }
      out.push({ text: text.slice(at, i), at });
    }
  }
  return out;
}

/** A TTL: seconds, or BIND units (`1h30m`, `2d`), up to 2^32-1. */
function ttlOf(text: string): number | undefined {
  if (isDigits(text)) {
    const n = Number(text);
    return n <= 0xffffffff ? n : undefined;
  }
  const units: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };
  if (!/^(\d+[smhdw])+$/i.test(text)) return undefined;
  let total = 0;
  for (const [, n, unit] of text.toLowerCase().matchAll(/(\d+)([smhdw])/g)) total += Number(n) * units[unit!]!;
  return total <= 0xffffffff ? total : undefined;
}

function isDigits(text: string): boolean {
  if (text === '') return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

/** Dotted-quad IPv4 as Go's `net.ParseIP` takes it (no leading zeros); cheaper than `isIP`. */
function isIPv4(text: string): boolean {
  let parts = 0;
  let value = 0;
  let digits = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 0x2e;
    if (c === 0x2e) {
      if (digits === 0 || value > 255 || ++parts > 4) return false;
      value = 0;
      digits = 0;
    } else if (c >= 0x30 && c <= 0x39) {
      if (digits > 0 && value === 0) return false;
      value = value * 10 + (c - 0x30);
      digits++;
    } else {
      return false;
    }
  }
  return parts === 4;
}

/** An absolute name without its trailing dot (`@` is the root); undefined when it is no name. */
function nameOf(text: string): string | undefined {
  if (text === '@' || text === '.') return '.';
  if (text === '' || text.startsWith('.') || text.includes('..')) return undefined;
  const name = text.endsWith('.') && !text.endsWith('\\.') ? text.slice(0, -1) : text;
  if (name.length > 253) return undefined;
  let label = 0;
  for (let i = 0; i < name.length; i++) {
    if (name.charCodeAt(i) === 0x2e) label = 0;
    else if (++label > 63) return undefined;
  }
  return name;
}

function uint(text: string | undefined, max: number): number | undefined {
  if (text === undefined || !isDigits(text)) return undefined;
  const n = Number(text);
  return n <= max ? n : undefined;
}

/**
 * Parses one record. Throws an Error in miekg/dns's words (`dns: bad A A: "x" at line: 1:20`,
 * `dns: not a TTL: "x" at line: 1:13`) when the text is not a record of a supported type.
 */
export function parseRR(text: string): Answer {
  const all = fields(text);
  const first = all[0];
  if (first === undefined) throw new Error('dns: empty record');
  const owner = nameOf(first.text);
  if (owner === undefined) throw new Error(`dns: bad owner name: "${first.text}" at line: 1:${first.at + 1}`);
  let ttl: number | undefined;
  let klass: string | undefined;
  let i = 1;
  for (; i < all.length && i <= 3; i++) {
    const word = all[i]!.text;
    const upper = word.toUpperCase();
    const c = word.charCodeAt(0);
    if (ttl === undefined && c >= 0x30 && c <= 0x39) {
      ttl = ttlOf(word);
      if (ttl === undefined) throw new Error(`dns: not a TTL: "${word}" at line: 1:${all[i]!.at + word.length}`);
    } else if (klass === undefined && (classNames.has(upper) || (upper.startsWith('CLASS') && isDigits(upper.slice(5))))) {
      klass = classNames.get(upper) ?? upper;
    } else {
      break;
    }
  }
  const typeField = all[i];
  if (typeField === undefined) {
    const last = all[all.length - 1]!;
    throw new Error(`dns: not a TTL: "${last.text}" at line: 1:${last.at + last.text.length}`);
  }
  const type = typeField.text.toUpperCase();
  if (!supported.has(type)) throw new Error(`dns: unknown or unsupported RR type: "${typeField.text}" at line: 1:${typeField.at + 1}`);
  const rdata = all.slice(i + 1);
  const bad = (what: string, field: Field | undefined = rdata[0]): Error =>
    new Error(`dns: bad ${type} ${what}: "${field?.text ?? ''}" at line: 1:${(field?.at ?? text.length) + 1}`);
  const base = { name: owner, ttl: ttl ?? DEFAULT_TTL, class: (klass ?? 'IN') as 'IN' };
  const name = (field: Field | undefined, what: string): string => {
    const value = field === undefined ? undefined : nameOf(field.text);
    if (value === undefined) throw bad(what, field);
    return value;
  };
  const count = (n: number): void => {
    if (rdata.length !== n) throw bad(rdata.length < n ? 'missing data' : 'extra data', rdata[n] ?? rdata[rdata.length - 1]);
  };
  switch (type) {
    case 'A':
    case 'AAAA': {
      // The address is checked first, as miekg/dns reads fields in order.
      const address = rdata[0]?.text ?? '';
      if (type === 'A' ? !isIPv4(address) : isIP(address) !== 6) throw bad(type);
      count(1);
      return { ...base, type, data: rdata[0]!.text };
    }
    case 'CNAME':
    case 'DNAME':
    case 'PTR':
    case 'NS':
      count(1);
      return { ...base, type, data: name(rdata[0], type === 'CNAME' ? 'Target' : type === 'NS' ? 'Ns' : type === 'PTR' ? 'Ptr' : 'Target') } as Answer;
    case 'MX': {
      count(2);
      const preference = uint(rdata[0]!.text, 0xffff);
      if (preference === undefined) throw bad('Pref', rdata[0]);
      return { ...base, type, data: { preference, exchange: name(rdata[1], 'Mx') } };
    }
    case 'SRV': {
      count(4);
      const [priority, weight, port] = [0, 1, 2].map((k) => uint(rdata[k]!.text, 0xffff));
      if (priority === undefined) throw bad('Priority', rdata[0]);
      if (weight === undefined) throw bad('Weight', rdata[1]);
      if (port === undefined) throw bad('Port', rdata[2]);
      return { ...base, type, data: { priority, weight, port, target: name(rdata[3], 'Target') } };
    }
    case 'TXT': {
      if (rdata.length === 0) throw bad('Txt');
      const strings = rdata.map((f) => f.text);
      const long = rdata.find((f) => Buffer.byteLength(f.text, 'latin1') > 255);
      if (long) throw bad('Txt', long);
      return { ...base, type, data: strings };
    }
    default: {
      count(7);
      const mname = name(rdata[0], 'Ns');
      const rname = name(rdata[1], 'Mbox');
      const numbers = rdata.slice(2).map((f, k) => (k === 0 ? uint(f.text, 0xffffffff) : ttlOf(f.text)));
      const wrong = numbers.findIndex((n) => n === undefined);
      if (wrong >= 0) throw bad(['Serial', 'Refresh', 'Retry', 'Expire', 'Minttl'][wrong]!, rdata[2 + wrong]);
      const [serial, refresh, retry, expire, minimum] = numbers as number[];
      return { ...base, type: 'SOA', data: { mname, rname, serial, refresh, retry, expire, minimum } };
    }
  }
}

/** A name with exactly one trailing dot (dns-packet decodes names without it). */
function fqdn(name: string): string {
  // Control bytes in a label print as \DDD (RFC 4343 §2.1): the `\000.` of a black lie's NSEC.
  const text = /[\x00-\x1f\x7f]/.test(name) ? name.replace(/[\x00-\x1f\x7f]/g, (c) => `\\${String(c.charCodeAt(0)).padStart(3, '0')}`) : name;
  return text === '' || text === '.' ? '.' : text.endsWith('.') ? text : `${text}.`;
}

/** A dns-packet type name as zone files write it: `UNKNOWN_61` is RFC 3597's `TYPE61`. */
function typeText(type: string): string {
  return type.startsWith('UNKNOWN_') ? `TYPE${type.slice(8)}` : type;
}

/** RFC 4034 §3.2: a signature time as `YYYYMMDDHHmmSS` in UTC. */
function signatureTime(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

function quote(text: string): string {
  return `"${text.replace(/(["\\])/g, '\\$1')}"`;
}

/** The rdata of a decoded record in zone-file form. */
function rdataText(record: Answer): string {
  const data = (record as { data?: unknown }).data;
  switch (record.type) {
    case 'CNAME':
    case 'NS':
    case 'PTR':
    case 'DNAME':
      return fqdn(String(data));
    case 'MX': {
      const mx = data as { preference: number; exchange: string };
      return `${mx.preference} ${fqdn(mx.exchange)}`;
    }
    case 'SRV': {
      const srv = data as { priority: number; weight: number; port: number; target: string };
      return `${srv.priority} ${srv.weight} ${srv.port} ${fqdn(srv.target)}`;
    }
    case 'TXT': {
      const parts = (Array.isArray(data) ? data : [data]) as (string | Buffer)[];
      return parts.map((part) => quote(Buffer.isBuffer(part) ? part.toString('utf8') : String(part))).join(' ');
    }
    case 'SOA': {
      const soa = data as { mname: string; rname: string; serial: number; refresh: number; retry: number; expire: number; minimum: number };
      return `${fqdn(soa.mname)} ${fqdn(soa.rname)} ${soa.serial} ${soa.refresh} ${soa.retry} ${soa.expire} ${soa.minimum}`;
    }
    case 'CAA': {
      const caa = data as { flags?: number; tag: string; value: string; issuerCritical?: boolean };
      return `${caa.flags ?? (caa.issuerCritical ? 128 : 0)} ${caa.tag} ${quote(caa.value)}`;
    }
    case 'DS': {
      const ds = data as { keyTag: number; algorithm: number; digestType: number; digest: Buffer };
      return `${ds.keyTag} ${ds.algorithm} ${ds.digestType} ${ds.digest.toString('hex').toUpperCase()}`;
    }
    case 'DNSKEY': {
      const key = data as { flags: number; algorithm: number; key: Buffer };
      return `${key.flags} 3 ${key.algorithm} ${key.key.toString('base64')}`;
    }
    case 'RRSIG': {
      const sig = data as { typeCovered: string; algorithm: number; labels: number; originalTTL: number; expiration: number; inception: number; keyTag: number; signersName: string; signature: Buffer };
      return `${typeText(sig.typeCovered)} ${sig.algorithm} ${sig.labels} ${sig.originalTTL} ${signatureTime(sig.expiration)} ${signatureTime(sig.inception)} ${sig.keyTag} ${fqdn(sig.signersName)} ${sig.signature.toString('base64')}`;
    }
    case 'NSEC': {
      const nsec = data as { nextDomain: string; rrtypes: string[] };
      return [fqdn(nsec.nextDomain), ...nsec.rrtypes.map(typeText)].join(' ');
    }
    default:
      // A, AAAA, and RFC 3597's `\# LENGTH HEX` for bytes dns-packet does not decode.
      return Buffer.isBuffer(data) ? `\\# ${data.length} ${data.toString('hex')}` : String(data);
  }
}

/**
 * A dns-packet record as a zone-file line, `a.example. 5 IN A 192.0.2.1` (the inverse of
 * {@link parseRR}), fields joined by `separator`: tests compare the single-space form, and
 * `foghorn -query` prints dig's tab-separated one. Types dns-packet does not decode print in
 * RFC 3597's `\# LENGTH HEX` form.
 */
export function formatRR(record: Answer, separator = ' '): string {
  const klass = (record as { class?: string }).class ?? 'IN';
  const ttl = (record as { ttl?: number }).ttl ?? 0;
  return [fqdn(record.name), ttl, klass, record.type, rdataText(record)].join(separator);
}
