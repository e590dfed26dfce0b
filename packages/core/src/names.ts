/**
 * Writing domain names and records as wire bytes, for plugins that build replies themselves
 * (*kubernetes*, *lighthouse*, *rewrite*). Names are presentation text: labels separated by dots,
 * a trailing dot optional, `\.` and `\DDD` escapes as zone files and {@link readName} write them;
 * other characters are UTF-8, as Go strings are.
 *
 * A reply that copies the client's question can name the question with a two-byte pointer
 * ({@link QUESTION_POINTER}): records owned by it are encoded once and serve every spelling of the
 * question, whose case comes back as the client wrote it (RFC 1035 §4.1.4).
 */
import dnsPacket from 'dns-packet';
import type { Answer } from 'dns-packet';
import { CLASS_IN, HEADER_LENGTH, MAX_NAME_LENGTH } from './constants.js';

/** Compression pointer to the question name, which starts right after the 12-byte header. */
export const QUESTION_POINTER = 0xc000 | HEADER_LENGTH;

/** The longest label (RFC 1035 §2.3.4). */
const MAX_LABEL_LENGTH = 63;

/**
 * Bytes `name` takes on the wire uncompressed, root label included, or -1 when it is empty or
 * has an empty label or one over 63 octets. `.` is the root, one byte. A name over 255 octets
 * is measured as it is: {@link writeName} writes it, {@link encodeName} refuses it.
 */
export function nameLength(name: string): number {
  if (name === '.') return 1;
  if (name === '' || name.includes('\\')) {
    const labels = nameLabels(name);
    if (labels === undefined) return -1;
    let length = 1;
    for (const label of labels) length += label.length + 1;
    return length;
  }
  const end = name.charCodeAt(name.length - 1) === 0x2e ? name.length - 1 : name.length;
  let total = 1;
  for (let start = 0; start <= end; ) {
    let dot = name.indexOf('.', start);
    if (dot < 0 || dot > end) dot = end;
    const length = isAscii(name, start, dot) ? dot - start : Buffer.byteLength(name.slice(start, dot));
    if (length === 0 || length > MAX_LABEL_LENGTH) return -1;
    total += length + 1;
    start = dot + 1;
  }
  return total;
}

/**
 * Writes `name` uncompressed at `offset` of `out` and returns the offset after it. Throws a
 * RangeError for an empty label or one over 63 octets; `out` must have room
 * ({@link nameLength}). Names without escapes, the common case, are written without building
 * any intermediate string or array.
 *
 * @example
 * const at = writeName(reply, offset, 'web.shop.svc.cluster.local.');
 */
export function writeName(out: Buffer, offset: number, name: string): number {
  if (name === '.') {
    out[offset] = 0;
    return offset + 1;
  }
  if (name.includes('\\')) {
    const labels = nameLabels(name);
    if (labels === undefined) throw new RangeError(`invalid label in '${name}'`);
    let at = offset;
    for (const label of labels) {
      out[at] = label.length;
      out.set(label, at + 1);
      at += label.length + 1;
    }
    out[at] = 0;
    return at + 1;
  }
  const end = name.charCodeAt(name.length - 1) === 0x2e ? name.length - 1 : name.length;
  let at = offset;
  for (let start = 0; start <= end; ) {
    let dot = name.indexOf('.', start);
    if (dot < 0 || dot > end) dot = end;
    let length = dot - start;
    if (length > 0 && length <= MAX_LABEL_LENGTH && isAscii(name, start, dot)) {
      for (let i = start; i < dot; i++) out[at + 1 + i - start] = name.charCodeAt(i);
    } else {
      length = length === 0 ? 0 : out.write(name.slice(start, dot), at + 1, 'utf8');
    }
    if (length === 0 || length > MAX_LABEL_LENGTH) throw new RangeError(`invalid label in '${name}'`);
    out[at] = length;
    at += length + 1;
    start = dot + 1;
  }
  out[at] = 0;
  return at + 1;
}

/**
 * `name` as wire bytes, or undefined when it is no domain name: {@link nameLength}'s rules and at
 * most 255 octets in all (miekg/dns's `IsDomainName`, which CoreDNS checks after a rewrite).
 */
export function encodeName(name: string): Buffer | undefined {
  const length = nameLength(name);
  if (length < 0 || length > MAX_NAME_LENGTH) return undefined;
  const out = Buffer.allocUnsafe(length);
  writeName(out, 0, name);
  return out;
}

/**
 * Writes the fixed part of an answer owned by the question: the pointer to it, `type`, class IN,
 * `ttl` and `rdataLength` (12 bytes). Returns the offset of the RDATA.
 */
export function writeAnswerHead(out: Buffer, offset: number, type: number, ttl: number, rdataLength: number): number {
  out.writeUInt16BE(QUESTION_POINTER, offset);
  out.writeUInt16BE(type, offset + 2);
  out.writeUInt16BE(CLASS_IN, offset + 4);
  out.writeUInt32BE(ttl >>> 0, offset + 6);
  out.writeUInt16BE(rdataLength, offset + 10);
  return offset + 12;
}

/** dns-packet's per-record codec, which its type declarations leave out. */
const recordCodec = (dnsPacket as unknown as { answer: { encode(rr: Answer): Buffer } }).answer;

/**
 * A record built as a dns-packet object, owned by the question: encoded once with the root as
 * owner, whose one byte becomes the {@link QUESTION_POINTER}. Its own name is ignored.
 */
export function questionOwned(record: Answer): Buffer {
  const encoded = recordCodec.encode({ ...record, name: '.' });
  const out = Buffer.allocUnsafe(encoded.length + 1);
  out.writeUInt16BE(QUESTION_POINTER, 0);
  encoded.copy(out, 2, 1);
  return out;
}

function isAscii(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** The labels of a presentation name as octets, escapes resolved; undefined when one is empty or too long. */
function nameLabels(name: string): Uint8Array[] | undefined {
  if (name === '.') return [];
  if (name === '') return undefined;
  const labels: Uint8Array[] = [];
  let label: number[] = [];
  const text = Buffer.from(name, 'utf8');
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === 0x5c) {
      if (i + 3 < text.length && isDigit(text[i + 1]) && isDigit(text[i + 2]) && isDigit(text[i + 3])) {
        const value = (text[i + 1]! - 0x30) * 100 + (text[i + 2]! - 0x30) * 10 + (text[i + 3]! - 0x30);
        if (value > 255) return undefined;
        label.push(value);
        i += 3;
      } else if (i + 1 < text.length) {
        label.push(text[++i]!);
      } else {
        return undefined;
      }
    } else if (c === 0x2e) {
      if (label.length === 0 || label.length > MAX_LABEL_LENGTH) return undefined;
      labels.push(Uint8Array.from(label));
      label = [];
    } else {
      label.push(c);
    }
  }
  // The last label, unless the name ended with an unescaped dot.
  if (label.length > 0) {
    if (label.length > MAX_LABEL_LENGTH) return undefined;
    labels.push(Uint8Array.from(label));
  } else if (text[text.length - 1] !== 0x2e) {
    return undefined;
  }
  return labels;
}

function isDigit(c: number | undefined): boolean {
  return c !== undefined && c >= 0x30 && c <= 0x39;
}

/** miekg/dns's `Fqdn`: the name with its final dot, case kept (`''` is the root). */
export function fqdn(name: string): string {
  return name.endsWith('.') ? name : `${name}.`;
}
