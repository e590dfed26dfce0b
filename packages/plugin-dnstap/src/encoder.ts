/**
 * The bytes dnstap collectors read: Frame Streams (fstrm) frames carrying `dnstap.Dnstap`
 * protobuf messages, written by hand for this small fixed schema straight into the output
 * buffer. A protobuf library would build an object per message and copy it out again; here a
 * message is one pass of byte writes, the field sizes summed first so the lengths come before
 * the fields.
 *
 * dnstap.proto (dnstap.info), the fields Foghorn writes, in field order as Go's `proto.Marshal`
 * writes them (golang-dnstap, which CoreDNS uses):
 *
 *   Dnstap  { 1 identity bytes, 2 version bytes, 3 extra bytes, 14 message Message, 15 type = MESSAGE(1) }
 *   Message { 1 type, 2 socket_family (INET 1, INET6 2), 3 socket_protocol (UDP 1, TCP 2),
 *             4 query_address bytes, 5 response_address bytes, 6 query_port, 7 response_port,
 *             8 query_time_sec uint64, 9 query_time_nsec fixed32, 10 query_message bytes,
 *             12 response_time_sec uint64, 13 response_time_nsec fixed32, 14 response_message bytes }
 *
 * Frame Streams (farsightsec/fstrm, `control.h`): a data frame is a 32-bit big-endian length
 * and the payload; a control frame is a zero length (the escape), its own length, its type and,
 * for READY, ACCEPT and START, the content type field `protobuf:dnstap.Dnstap`.
 */
import { Buffer } from 'node:buffer';
import type { TapMessage } from '@foghorn/core';
import { writeIpv4, writeIpv6 } from '@foghorn/core/wire';

/** The content type CoreDNS's encoder announces (golang-dnstap's `ContentType`). */
export const CONTENT_TYPE = 'protobuf:dnstap.Dnstap';

/** fstrm control frame types (`fstrm_control_type`). */
export const enum Control {
  ACCEPT = 0x01,
  START = 0x02,
  STOP = 0x03,
  READY = 0x04,
  FINISH = 0x05,
}
/** fstrm control field `FSTRM_CONTROL_FIELD_CONTENT_TYPE`. */
const FIELD_CONTENT_TYPE = 0x01;

/** A control frame, escape included; READY, ACCEPT and START carry the content type. */
export function controlFrame(type: Control): Buffer {
  const withType = type === Control.READY || type === Control.ACCEPT || type === Control.START;
  const contentType = Buffer.from(CONTENT_TYPE);
  const length = 4 + (withType ? 8 + contentType.length : 0);
  const frame = Buffer.alloc(8 + length);
  frame.writeUInt32BE(0, 0);
  frame.writeUInt32BE(length, 4);
  frame.writeUInt32BE(type, 8);
  if (withType) {
    frame.writeUInt32BE(FIELD_CONTENT_TYPE, 12);
    frame.writeUInt32BE(contentType.length, 16);
    contentType.copy(frame, 20);
  }
  return frame;
}

/** A control frame read from a collector: its type and whether it names our content type (or none). */
export interface ControlFrame {
  readonly type: number;
  readonly contentTypes: readonly string[];
}

/**
 * Reads the control frames at the start of `data` (a collector sends nothing else to a writer).
 * Returns the frames and how many bytes they took; a partial frame is left for the next read.
 * Throws on a data frame or a control frame over 512 bytes (fstrm's own limit).
 */
export function readControlFrames(data: Buffer): { frames: ControlFrame[]; used: number } {
  const frames: ControlFrame[] = [];
  let at = 0;
  while (data.length - at >= 8) {
    if (data.readUInt32BE(at) !== 0) throw new Error('unexpected data frame from the collector');
    const length = data.readUInt32BE(at + 4);
    if (length < 4 || length > 512) throw new Error(`bad control frame length ${length}`);
    if (data.length - at - 8 < length) break;
    const type = data.readUInt32BE(at + 8);
    const contentTypes: string[] = [];
    for (let field = at + 12; field + 8 <= at + 8 + length; ) {
      const kind = data.readUInt32BE(field);
      const size = data.readUInt32BE(field + 4);
      if (field + 8 + size > at + 8 + length) throw new Error('control field past the end of its frame');
      if (kind === FIELD_CONTENT_TYPE) contentTypes.push(data.toString('latin1', field + 8, field + 8 + size));
      field += 8 + size;
    }
    frames.push({ type, contentTypes });
    at += 8 + length;
  }
  return { frames, used: at };
}

/** What a sink writes around each message: its identity, version and extra text, encoded once. */
export interface TapHeader {
  /** Fields 1, 2 and 3 of `Dnstap`, ready to copy. */
  readonly prefix: Buffer;
}

/** Encodes the fields a sink writes in every `Dnstap` message (the empty ones are left out, as Go leaves out nil bytes). */
export function tapHeader(identity: string, version: string, extra: string): TapHeader {
  const parts: Buffer[] = [];
  for (const [field, text] of [
    [1, identity],
    [2, version],
    [3, extra],
  ] as const) {
    if (text === '') continue;
    const bytes = Buffer.from(text);
    const head = Buffer.alloc(1 + varintSize(bytes.length));
    head[0] = (field << 3) | 2;
    writeVarint(head, 1, bytes.length);
    parts.push(head, bytes);
  }
  return { prefix: Buffer.concat(parts) };
}

/** The largest frame {@link writeFrame} writes for `message` with `header`: reserve this much. */
export function maxFrameSize(message: TapMessage, header: TapHeader): number {
  // Message without its two DNS messages: at most 2+2+2+18+18+6+6+11+5+11+5 = 86 bytes.
  const dns = (message.queryMessage?.length ?? 0) + (message.responseMessage?.length ?? 0);
  return 4 + header.prefix.length + 2 + 3 + 86 + 8 + dns + 2;
}

/** Wall-clock time in ms of a `performance.now()` time: `epochOffsetMs` is `Date.now() - performance.now()`. */
const NS_PER_MS = 1e6;

/**
 * Writes `message` as one data frame at `offset` in `out`, which has {@link maxFrameSize} bytes
 * free there; returns the end. Times are `performance.now()` values, made wall-clock times
 * with `epochOffsetMs`.
 */
export function writeFrame(out: Buffer, offset: number, message: TapMessage, header: TapHeader, epochOffsetMs: number): number {
  const queryFamily = addressFamily(message.queryAddress);
  const responseFamily = addressFamily(message.responseAddress);
  // The socket's family: from the address we have (CoreDNS sets it from the last one set).
  const family = responseFamily !== 0 ? responseFamily : queryFamily;
  const queryTimeMs = message.queryTime + epochOffsetMs;
  const querySec = Math.floor(queryTimeMs / 1000);
  const responseTimeMs = message.responseTime === undefined ? 0 : message.responseTime + epochOffsetMs;
  const responseSec = Math.floor(responseTimeMs / 1000);
  const queryMessage = message.queryMessage;
  const responseMessage = message.responseMessage;

  let size = 2 + 2; // type, socket_protocol
  if (family !== 0) size += 2;
  if (queryFamily !== 0) size += 2 + addressLength(queryFamily);
  if (responseFamily !== 0) size += 2 + addressLength(responseFamily);
  if (message.queryPort !== undefined) size += 1 + varintSize(message.queryPort);
  if (message.responsePort !== undefined) size += 1 + varintSize(message.responsePort);
  size += 1 + varintSize(querySec) + 5;
  if (queryMessage !== undefined) size += 1 + varintSize(queryMessage.length) + queryMessage.length;
  if (message.responseTime !== undefined) size += 1 + varintSize(responseSec) + 5;
  if (responseMessage !== undefined) size += 1 + varintSize(responseMessage.length) + responseMessage.length;

  const prefix = header.prefix;
  const payload = prefix.length + 1 + varintSize(size) + size + 2;
  let at = offset;
  out.writeUInt32BE(payload, at);
  at += 4;
  at += prefix.copy(out, at);
  out[at++] = (14 << 3) | 2;
  at = writeVarint(out, at, size);

  out[at++] = (1 << 3) | 0;
  out[at++] = message.type;
  if (family !== 0) {
    out[at++] = (2 << 3) | 0;
    out[at++] = family;
  }
  out[at++] = (3 << 3) | 0;
  out[at++] = message.transport === 'tcp' ? 2 : 1;
  if (queryFamily !== 0) at = writeAddress(out, at, 4, message.queryAddress as string, queryFamily);
  if (responseFamily !== 0) at = writeAddress(out, at, 5, message.responseAddress as string, responseFamily);
  if (message.queryPort !== undefined) {
    out[at++] = (6 << 3) | 0;
    at = writeVarint(out, at, message.queryPort);
  }
  if (message.responsePort !== undefined) {
    out[at++] = (7 << 3) | 0;
    at = writeVarint(out, at, message.responsePort);
  }
  out[at++] = (8 << 3) | 0;
  at = writeVarint(out, at, querySec);
  out[at++] = (9 << 3) | 5;
  out.writeUInt32LE(nanos(queryTimeMs, querySec), at);
  at += 4;
  if (queryMessage !== undefined) at = writeBytes(out, at, 10, queryMessage);
  if (message.responseTime !== undefined) {
    out[at++] = (12 << 3) | 0;
    at = writeVarint(out, at, responseSec);
    out[at++] = (13 << 3) | 5;
    out.writeUInt32LE(nanos(responseTimeMs, responseSec), at);
    at += 4;
  }
  if (responseMessage !== undefined) at = writeBytes(out, at, 14, responseMessage);

  out[at++] = (15 << 3) | 0;
  out[at++] = 1; // Dnstap.Type MESSAGE
  return at;
}

/** The nanoseconds past `sec` of a time in ms, clamped to a valid fixed32 nanosecond field. */
function nanos(timeMs: number, sec: number): number {
  const ns = Math.round((timeMs - sec * 1000) * NS_PER_MS);
  return ns < 0 ? 0 : ns > 999_999_999 ? 999_999_999 : ns;
}

/** Address families as dnstap numbers: 0 none, 1 INET, 2 INET6; an IPv4-mapped IPv6 address is INET (CoreDNS v1.14). */
const INET = 1;
const INET6 = 2;
const MAPPED = '::ffff:';

function addressFamily(address: string | undefined): number {
  if (address === undefined || address === '') return 0;
  if (!address.includes(':')) return INET;
  return address.startsWith(MAPPED) && address.includes('.') ? INET : INET6;
}

function addressLength(family: number): number {
  return family === INET ? 4 : 16;
}

function writeAddress(out: Buffer, at: number, field: number, address: string, family: number): number {
  out[at++] = (field << 3) | 2;
  if (family === INET) {
    out[at++] = 4;
    const text = address.startsWith(MAPPED) ? address.slice(MAPPED.length) : address;
    if (!writeIpv4(text, out, at)) out.fill(0, at, at + 4);
    return at + 4;
  }
  out[at++] = 16;
  // A zone (`fe80::1%eth0`) is not part of the address bytes.
  const percent = address.indexOf('%');
  if (!writeIpv6(percent < 0 ? address : address.slice(0, percent), out, at)) out.fill(0, at, at + 16);
  return at + 16;
}

function writeBytes(out: Buffer, at: number, field: number, bytes: Uint8Array): number {
  out[at++] = (field << 3) | 2;
  at = writeVarint(out, at, bytes.length);
  out.set(bytes, at);
  return at + bytes.length;
}

/** Bytes of `value` (a non-negative integer below 2^53) as a protobuf varint. */
function varintSize(value: number): number {
  let size = 1;
  while (value >= 0x80) {
    value = Math.floor(value / 128);
    size++;
  }
  return size;
}

function writeVarint(out: Buffer, at: number, value: number): number {
  while (value >= 0x80) {
    out[at++] = (value & 0x7f) | 0x80;
    value = Math.floor(value / 128);
  }
  out[at++] = value;
  return at;
}
