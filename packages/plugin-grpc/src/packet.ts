/**
 * CoreDNS's `DnsPacket` message (pb/dns.proto: `message DnsPacket { bytes msg = 1; }`) in
 * protobuf's wire format, by hand: one length-delimited field is a tag byte, a varint and the
 * bytes, so a protobuf library (protobufjs and its 3 MB) would be all cost and no help.
 */
import { Buffer } from 'node:buffer';

/** Field 1, wire type 2 (length-delimited): `(1 << 3) | 2`. */
const MSG_TAG = 0x0a;

/** The protobuf encoding of a DnsPacket carrying `msg`. */
export function encodePacket(msg: Uint8Array): Buffer {
  const length = msg.length;
  // proto3 leaves an empty bytes field out.
  if (length === 0) return Buffer.alloc(0);
  const head = length < 0x80 ? 2 : length < 0x4000 ? 3 : 4;
  const out = Buffer.allocUnsafe(head + length);
  out[0] = MSG_TAG;
  let at = 1;
  let rest = length;
  while (rest >= 0x80) {
    out[at++] = (rest & 0x7f) | 0x80;
    rest >>>= 7;
  }
  out[at++] = rest;
  out.set(msg, at);
  return out;
}

/** A DnsPacket that is not protobuf, or whose `msg` field is not bytes. */
export class PacketError extends Error {}

/** Reads a varint at `at`; returns [value, next offset]. Lengths here fit 32 bits, others are refused. */
function varint(buf: Uint8Array, at: number): [number, number] {
  let value = 0;
  for (let shift = 0; shift < 35; shift += 7) {
    if (at >= buf.length) throw new PacketError('truncated varint');
    const byte = buf[at++]!;
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return [value, at];
  }
  throw new PacketError('varint too long');
}

/**
 * The `msg` bytes of a DnsPacket (a view into `buf`): the last `msg` field wins and unknown
 * fields are skipped, as protobuf wants; an absent field is empty.
 */
export function decodePacket(buf: Buffer): Buffer {
  let msg = buf.subarray(0, 0);
  let at = 0;
  while (at < buf.length) {
    let key: number;
    [key, at] = varint(buf, at);
    const field = Math.floor(key / 8);
    switch (key & 7) {
      case 0:
        [, at] = varint(buf, at);
        break;
      case 1:
        at += 8;
        break;
      case 2: {
        let length: number;
        [length, at] = varint(buf, at);
        if (at + length > buf.length) throw new PacketError('truncated field');
        if (field === 1) msg = buf.subarray(at, at + length);
        at += length;
        break;
      }
      case 5:
        at += 4;
        break;
      default:
        throw new PacketError(`unsupported wire type ${key & 7}`);
    }
    if (field === 1 && (key & 7) !== 2) throw new PacketError('msg is not a bytes field');
  }
  if (at > buf.length) throw new PacketError('truncated field');
  return msg;
}
