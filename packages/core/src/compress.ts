/**
 * Name compression (RFC 1035 §4.1.4) for an encoded reply, with truncation to a size limit: what
 * miekg/dns's `Msg.Truncate` followed by a packing with `Compress = true` does in CoreDNS's scrub
 * (request/request.go `Scrub`, msg_truncate.go).
 *
 * `dns-packet` writes every name in full. The scrub writer calls {@link compressReply} only for
 * a reply over the client's limit, so a reply that fits pays nothing; one that does not is
 * compressed and, if it still does not fit, cut to whole records with TC set, where CoreDNS cuts
 * it.
 *
 * Which names are compressed follows miekg/dns (types.go, the `cdomain-name` fields): every
 * owner name and question name, and the rdata names of NS, MD, MF, CNAME, SOA, MB, MG, MINFO,
 * MR, PTR and MX. The rdata names of SRV (RFC 2782), DNAME, AFSDB, RT, KX, RP, PX, TALINK, LP,
 * RRSIG, SIG and NSEC are written in full but may be pointed at by later names, as miekg's
 * `packDomainName` records them "for future compression". Other rdata is copied as it is.
 * Names match byte for byte (miekg's compression map is keyed by the name as written), so a
 * reply keeps the case of every name it carries. Only offsets below 0x4000 can be pointed at.
 *
 * Allocation: the output is built in a module scratch buffer and copied out once; suffixes live
 * in a reused open-addressing table of (hash, offset), so no string is built for a name.
 */
// Bindings, not globals: per query (docs/architecture.md, "Per-query code").
import { Buffer } from 'node:buffer';
import { Flags, HEADER_LENGTH, MAX_NAME_LENGTH, TYPE_OPT } from './constants.js';
import { skipName } from './wire.js';

/** Largest offset a 14-bit compression pointer reaches, plus one. */
const MAX_POINTER_OFFSET = 0x4000;

/**
 * Rdata layout of the types with names in their rdata (miekg/dns types.go): bytes before the
 * first name, the number of consecutive names, and whether they may be compressed. The rest of
 * the rdata after the names is copied as it is.
 */
interface NameLayout {
  readonly skip: number;
  readonly names: number;
  readonly compress: boolean;
}
const layouts = new Map<number, NameLayout>([
  // Compressed (`cdomain-name`): the RFC 1035 types.
  [2, { skip: 0, names: 1, compress: true }], // NS
  [3, { skip: 0, names: 1, compress: true }], // MD
  [4, { skip: 0, names: 1, compress: true }], // MF
  [5, { skip: 0, names: 1, compress: true }], // CNAME
  [6, { skip: 0, names: 2, compress: true }], // SOA: MNAME, RNAME, then 20 bytes
  [7, { skip: 0, names: 1, compress: true }], // MB
  [8, { skip: 0, names: 1, compress: true }], // MG
  [9, { skip: 0, names: 1, compress: true }], // MR
  [12, { skip: 0, names: 1, compress: true }], // PTR
  [14, { skip: 0, names: 2, compress: true }], // MINFO
  [15, { skip: 2, names: 1, compress: true }], // MX
  // Written in full, remembered for later names (`domain-name`).
  [17, { skip: 0, names: 2, compress: false }], // RP
  [18, { skip: 2, names: 1, compress: false }], // AFSDB
  [21, { skip: 2, names: 1, compress: false }], // RT
  [24, { skip: 18, names: 1, compress: false }], // SIG: signer
  [26, { skip: 2, names: 2, compress: false }], // PX
  [33, { skip: 6, names: 1, compress: false }], // SRV: target (RFC 2782)
  [36, { skip: 2, names: 1, compress: false }], // KX
  [39, { skip: 0, names: 1, compress: false }], // DNAME
  [46, { skip: 18, names: 1, compress: false }], // RRSIG: signer
  [47, { skip: 0, names: 1, compress: false }], // NSEC: next name
  [58, { skip: 0, names: 2, compress: false }], // TALINK
  [107, { skip: 2, names: 1, compress: false }], // LP
]);

let out = Buffer.allocUnsafe(4096);
/** Label start offsets (in the input) of the name being written. */
const labels = new Int32Array(128);
/** Hash of the suffix starting at each label of the name being written. */
const hashes = new Int32Array(128);
/** Offset in the output of each label written for the name being written. */
const written = new Int32Array(128);

// The suffix table: at most one entry per output offset below 0x4000, so 2^15 slots keep the
// load under one half. A slot is live when its generation is the current one.
const TABLE_BITS = 15;
const TABLE_MASK = (1 << TABLE_BITS) - 1;
const slotHash = new Int32Array(1 << TABLE_BITS);
const slotOffset = new Int32Array(1 << TABLE_BITS);
const slotGeneration = new Uint32Array(1 << TABLE_BITS);
let generation = 0;

let input: Uint8Array = out;
let pos = 0;
/** Labels of the name read by {@link readLabels}, and the input offset just past it. */
let labelCount = 0;
let nameEnd = 0;

function ensure(extra: number): void {
  if (pos + extra <= out.length) return;
  const grown = Buffer.allocUnsafe(Math.max(out.length * 2, pos + extra));
  out.copy(grown, 0, 0, pos);
  out = grown;
}

/**
 * Reads the labels of the name at `start` (following pointers, which must point backwards)
 * into {@link labels}; false when malformed (see core's `readName`).
 */
function readLabels(start: number, limit: number): boolean {
  let offset = start;
  let end = -1;
  let length = 1;
  let jumps = 0;
  labelCount = 0;
  for (;;) {
    if (offset >= limit) return false;
    const byte = input[offset]!;
    if (byte === 0) break;
    const kind = byte & 0xc0;
    if (kind === 0xc0) {
      if (offset + 1 >= limit) return false;
      const target = ((byte & 0x3f) << 8) | input[offset + 1]!;
      if (end < 0) end = offset + 2;
      if (target >= offset || ++jumps > 127) return false;
      offset = target;
      continue;
    }
    if (kind !== 0 || offset + 1 + byte > limit) return false;
    length += byte + 1;
    if (length > MAX_NAME_LENGTH) return false;
    labels[labelCount++] = offset;
    offset += byte + 1;
  }
  nameEnd = end < 0 ? offset + 1 : end;
  // Hashes of the suffixes, from the root up: FNV-1a over the label bytes.
  let hash = 0x811c9dc5 | 0;
  for (let i = labelCount - 1; i >= 0; i--) {
    const at = labels[i]!;
    const stop = at + 1 + input[at]!;
    for (let b = at; b < stop; b++) hash = Math.imul(hash ^ input[b]!, 0x01000193);
    hashes[i] = hash;
  }
  return true;
}

/** True when the name written at output `at` equals the labels `from..` of the name read. */
function sameSuffix(at: number, from: number): boolean {
  let o = at;
  for (let i = from; i < labelCount; i++) {
    while ((out[o]! & 0xc0) === 0xc0) o = ((out[o]! & 0x3f) << 8) | out[o + 1]!;
    const label = labels[i]!;
    const length = input[label]!;
    if (out[o] !== length) return false;
    for (let b = 1; b <= length; b++) if (out[o + b] !== input[label + b]) return false;
    o += length + 1;
  }
  while ((out[o]! & 0xc0) === 0xc0) o = ((out[o]! & 0x3f) << 8) | out[o + 1]!;
  return out[o] === 0;
}

/** Output offset of an earlier name equal to the suffix at label `from`, or -1. */
function find(from: number): number {
  const hash = hashes[from]!;
  for (let slot = hash & TABLE_MASK; slotGeneration[slot] === generation; slot = (slot + 1) & TABLE_MASK) {
    if (slotHash[slot] === hash && sameSuffix(slotOffset[slot]!, from)) return slotOffset[slot]!;
  }
  return -1;
}

function remember(hash: number, offset: number): void {
  let slot = hash & TABLE_MASK;
  while (slotGeneration[slot] === generation) slot = (slot + 1) & TABLE_MASK;
  slotGeneration[slot] = generation;
  slotHash[slot] = hash;
  slotOffset[slot] = offset;
}

/** Writes the name read by {@link readLabels}, ending in a pointer to an earlier equal suffix when `compress`. */
function writeName(compress: boolean): void {
  ensure(MAX_NAME_LENGTH + 1);
  // The longest suffix written before: a pointer to it ends the name when compressing; either
  // way it and its own suffixes are known already and are not remembered again.
  let known = labelCount;
  let pointer = -1;
  for (let i = 0; i < labelCount; i++) {
    const earlier = find(i);
    if (earlier < 0) continue;
    known = i;
    if (compress) pointer = earlier;
    break;
  }
  const stop = pointer >= 0 ? known : labelCount;
  for (let i = 0; i < stop; i++) {
    const label = labels[i]!;
    const stopAt = label + input[label]! + 1;
    written[i] = pos;
    for (let b = label; b < stopAt; b++) out[pos++] = input[b]!;
  }
  if (pointer >= 0) {
    out[pos++] = 0xc0 | (pointer >> 8);
    out[pos++] = pointer & 0xff;
  } else {
    out[pos++] = 0;
  }
  for (let i = 0; i < known; i++) if (written[i]! < MAX_POINTER_OFFSET) remember(hashes[i]!, written[i]!);
}

/** Copies `length` input bytes from `from`. */
function copy(from: number, length: number): void {
  ensure(length);
  // A byte loop beats a subarray view (an allocation) for the few bytes of most copies.
  if (length > 64) out.set(input.subarray(from, from + length), pos);
  else for (let b = 0; b < length; b++) out[pos + b] = input[from + b]!;
  pos += length;
}

/**
 * Writes the record at input `start`; returns the input offset after it, or -1 when malformed.
 */
function writeRecord(start: number): number {
  if (!readLabels(start, input.length)) return -1;
  const fixed = nameEnd;
  if (fixed + 10 > input.length) return -1;
  const type = (input[fixed]! << 8) | input[fixed + 1]!;
  const rdlength = (input[fixed + 8]! << 8) | input[fixed + 9]!;
  const rdata = fixed + 10;
  const end = rdata + rdlength;
  if (end > input.length) return -1;
  writeName(true);
  ensure(10);
  copy(fixed, 8);
  const lengthAt = pos;
  pos += 2;
  const layout = layouts.get(type);
  let offset = rdata;
  if (layout !== undefined && layout.skip <= rdlength) {
    copy(offset, layout.skip);
    offset += layout.skip;
    for (let n = 0; n < layout.names; n++) {
      if (!readLabels(offset, end)) return -1;
      writeName(layout.compress);
      offset = nameEnd;
    }
  }
  copy(offset, end - offset);
  out.writeUInt16BE(pos - lengthAt - 2, lengthAt);
  return end;
}

/**
 * `wire` with its names compressed, cut to `limit` bytes if it still does not fit: records are
 * kept in order (answer, authority, additional) while they fit, the first OPT record always, at
 * the end of the additional section, and TC is set when any was left out (miekg's `Truncate`).
 * A malformed record ends the message there, as if it did not fit; a message whose question
 * cannot be read comes back as its header with no records and TC.
 */
export function compressReply(wire: Uint8Array, limit = 0xffff): Buffer {
  input = wire;
  pos = 0;
  generation = (generation + 1) >>> 0;
  if (generation === 0) {
    slotGeneration.fill(0);
    generation = 1;
  }
  try {
    return compressInto(wire, limit);
  } finally {
    input = out;
  }
}

function compressInto(wire: Uint8Array, limit: number): Buffer {
  if (wire.length < HEADER_LENGTH) return Buffer.from(wire);
  copy(0, HEADER_LENGTH);
  const qdcount = (wire[4]! << 8) | wire[5]!;
  const counts = [(wire[6]! << 8) | wire[7]!, (wire[8]! << 8) | wire[9]!, (wire[10]! << 8) | wire[11]!];
  const kept = [0, 0, 0];
  let truncated = false;
  let offset = HEADER_LENGTH;
  let questions = 0;
  for (; questions < qdcount; questions++) {
    if (!readLabels(offset, wire.length) || nameEnd + 4 > wire.length) break;
    writeName(true);
    copy(nameEnd, 4);
    offset = nameEnd + 4;
  }
  if (questions < qdcount) {
    pos = HEADER_LENGTH;
    truncated = true;
  }
  // The OPT record goes last and its room is kept (miekg's `popEdns0`).
  const opt = truncated ? -1 : findOpt(offset, counts);
  const optLength = opt < 0 ? 0 : 11 + ((wire[opt + 9]! << 8) | wire[opt + 10]!);
  const budget = limit - optLength;
  for (let section = 0; section < 3 && !truncated; section++) {
    for (let i = 0; i < counts[section]!; i++) {
      const start = pos;
      if (offset === opt) {
        offset = opt + optLength;
        continue;
      }
      const next = writeRecord(offset);
      if (next < 0 || pos > budget) {
        pos = start;
        truncated = true;
        break;
      }
      offset = next;
      kept[section]!++;
    }
  }
  if (opt >= 0) {
    ensure(optLength);
    out[pos++] = 0;
    copy(opt + 1, optLength - 1);
    kept[2]!++;
  }
  out.writeUInt16BE(questions < qdcount ? 0 : qdcount, 4);
  out.writeUInt16BE(kept[0]!, 6);
  out.writeUInt16BE(kept[1]!, 8);
  out.writeUInt16BE(kept[2]!, 10);
  if (truncated) out[2] = out[2]! | (Flags.TC >> 8);
  const result = Buffer.allocUnsafe(pos);
  out.copy(result, 0, 0, pos);
  return result;
}

/**
 * Input offset of the first OPT record of the additional section (its owner must be the root,
 * RFC 6891 §6.1.2), or -1; walks the records without following any name.
 */
function findOpt(start: number, counts: readonly number[]): number {
  let offset = start;
  const first = counts[0]! + counts[1]!;
  const total = first + counts[2]!;
  for (let i = 0; i < total; i++) {
    const fixed = skipName(input, offset);
    if (fixed < 0 || fixed + 10 > input.length) return -1;
    const end = fixed + 10 + ((input[fixed + 8]! << 8) | input[fixed + 9]!);
    if (end > input.length) return -1;
    if (i >= first && fixed === offset + 1 && ((input[fixed]! << 8) | input[fixed + 1]!) === TYPE_OPT) return offset;
    offset = end;
  }
  return -1;
}
