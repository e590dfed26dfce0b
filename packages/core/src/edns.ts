/**
 * The OPT record of a reply (RFC 6891) and the Extended DNS Error option (RFC 8914), shared by the
 * writer's EDNS scrub and by plugins that attach an extended error to their own replies.
 */
import type { OptAnswer } from 'dns-packet';
import { Buffer } from 'node:buffer';
import { EDNS_FLAG_DO, OFFSET_ANCOUNT, OFFSET_ARCOUNT, OFFSET_NSCOUNT, OPT_LENGTH, TYPE_OPT } from './constants.js';
import type { Request } from './request.js';
import { questionEnd, skipName, skipRecord } from './wire.js';
import type { EdnsOption } from './wire.js';

/** RFC 8914 §2: the EDNS option code of an Extended DNS Error. */
export const EDNS_OPTION_EDE = 15;


export interface ReplyOptOptions {
  /** EDNS options the reply carries; none by default. */
  readonly options?: readonly EdnsOption[];
}

/**
 * The OPT record of a reply to `req`: the client's UDP size and DO bit echoed, version 0, no
 * extended rcode. Only for a query that had OPT (RFC 6891 §7 forbids it otherwise).
 */
export function replyOpt(req: Request, { options = [] }: ReplyOptOptions = {}): OptAnswer {
  return {
    type: 'OPT',
    name: '.',
    udpPayloadSize: req.udpSize,
    extendedRcode: 0,
    ednsVersion: 0,
    flags: req.dnssecOk ? EDNS_FLAG_DO : 0,
    flag_do: req.dnssecOk,
    // dns-packet's option types list only the options it decodes; raw {code, data} encodes all.
    options: options as unknown as OptAnswer['options'],
  };
}

/** An Extended DNS Error option (RFC 8914 §2): INFO-CODE, then the optional UTF-8 EXTRA-TEXT. */
export function edeOption(code: number, text = ''): EdnsOption {
  const extra = Buffer.from(text, 'utf8');
  const data = Buffer.alloc(2 + extra.length);
  data.writeUInt16BE(code & 0xffff, 0);
  extra.copy(data, 2);
  return { code: EDNS_OPTION_EDE, data };
}

/**
 * A copy of the encoded `reply` whose OPT record carries `option`: it replaces the data of every
 * option with the same code where it stands, or is appended to the OPT's options, as miekg/dns
 * code that edits `OPT.Option` does (CoreDNS's *nsid*). A reply without OPT gets one, with
 * `udpSize` and the DO bit of `dnssecOk`, last in the additional section. Null when the reply's
 * records cannot be walked (the caller sends it as it is).
 */
export function withReplyOption(reply: Uint8Array, option: EdnsOption, udpSize: number, dnssecOk: boolean): Buffer | null {
  let offset = questionEnd(reply);
  if (offset < 0) return null;
  const count = (at: number): number => (reply[at]! << 8) | reply[at + 1]!;
  const records = count(OFFSET_ANCOUNT) + count(OFFSET_NSCOUNT);
  const additionals = count(OFFSET_ARCOUNT);
  for (let i = 0; i < records + additionals; i++) {
    const start = offset;
    offset = skipRecord(reply, start);
    if (offset < 0) return null;
    if (i < records) continue;
    const nameEnd = skipName(reply, start);
    if (((reply[nameEnd]! << 8) | reply[nameEnd + 1]!) === TYPE_OPT) return replaceOption(reply, nameEnd + 10, offset, option);
  }
  const out = Buffer.allocUnsafe(offset + OPT_LENGTH + 4 + option.data.length);
  out.set(reply.subarray(0, offset));
  out.writeUInt16BE(additionals + 1, OFFSET_ARCOUNT);
  out[offset] = 0;
  out.writeUInt16BE(TYPE_OPT, offset + 1);
  out.writeUInt16BE(udpSize, offset + 3);
  out.writeUInt32BE(dnssecOk ? EDNS_FLAG_DO : 0, offset + 5);
  out.writeUInt16BE(4 + option.data.length, offset + 9);
  writeOption(out, offset + OPT_LENGTH, option);
  // Whatever followed the records (nothing, in a well-formed reply) stays behind them.
  return offset === reply.length ? out : Buffer.concat([out, reply.subarray(offset)]);
}

/** `reply` with the OPT RDATA at `[rdata, end)` rewritten to carry `option`. Null when the RDATA is malformed. */
function replaceOption(reply: Uint8Array, rdata: number, end: number, option: EdnsOption): Buffer | null {
  const parts: Uint8Array[] = [];
  let replaced = false;
  for (let at = rdata; at < end; ) {
    if (at + 4 > end) return null;
    const length = (reply[at + 2]! << 8) | reply[at + 3]!;
    if (at + 4 + length > end) return null;
    if (((reply[at]! << 8) | reply[at + 1]!) === option.code) {
      parts.push(optionBytes(option));
      replaced = true;
    } else parts.push(reply.subarray(at, at + 4 + length));
    at += 4 + length;
  }
  if (!replaced) parts.push(optionBytes(option));
  const body = Buffer.concat(parts);
  if (body.length > 0xffff) return null;
  const out = Buffer.concat([reply.subarray(0, rdata), body, reply.subarray(end)]);
  out.writeUInt16BE(body.length, rdata - 2);
  return out;
}

function optionBytes(option: EdnsOption): Buffer {
  const bytes = Buffer.allocUnsafe(4 + option.data.length);
  writeOption(bytes, 0, option);
  return bytes;
}

function writeOption(out: Buffer, at: number, option: EdnsOption): void {
  out.writeUInt16BE(option.code, at);
  out.writeUInt16BE(option.data.length, at + 2);
  out.set(option.data, at + 4);
}
