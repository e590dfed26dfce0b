// Bindings, not globals: per query (docs/architecture.md, "Per-query code").
import { Buffer } from 'node:buffer';
import { Flags, HEADER_LENGTH, MAX_NAME_LENGTH, OPT_LENGTH, Rcode, REPLY_COPIED_FLAGS, replyTo, TYPE_A, TYPE_AAAA, TYPE_SRV } from '@foghorn/core';
import type { Handler, Request, ResponseWriter } from '@foghorn/core';
import { parseIp, writeOpt, writeReplyHead } from '@foghorn/core/wire';
import type { Answer, StringAnswer } from 'dns-packet';

/** `_udp` / `_tcp` as the SRV owner's first label (length octet included): 5 octets. */
const SRV_LABEL_LENGTH = 5;
/** Type, class, TTL and RDLENGTH of a record. */
const RR_FIXED = 10;
/** SRV RDATA with the root as target: priority, weight, port, one zero octet. */
const SRV_RDATA = 7;

/**
 * The whoami handler: the last link of a chain, it never calls a next handler.
 *
 * The reply is assembled as wire bytes: the bytes dns-packet would encode for the same message,
 * uncompressed as CoreDNS sends it (miekg/dns compresses only a reply over the client's limit),
 * with the question copied from the query and the owner names lower-cased from it. A reply that
 * cannot be built so (EDNS options to echo, a compression pointer in the question, an address
 * that is not plain IPv4 or IPv6 text, a reply over the client's limit) goes through dns-packet.
 */
export class Whoami implements Handler {
  readonly name = 'whoami';
  /** The last client address and its bytes: a client asks many times in a row. */
  private lastAddress = '';
  private lastBytes: Uint8Array | null = null;

  serveDNS(req: Request, w: ResponseWriter): number {
    if (!this.writeWire(req, w)) this.writeMessage(req, w);
    return Rcode.NOERROR;
  }

  private addressBytes(address: string): Uint8Array | null {
    if (address !== this.lastAddress) {
      this.lastAddress = address;
      this.lastBytes = parseIp(address);
    }
    return this.lastBytes;
  }

  /** The wire reply; false when this query must go through {@link writeMessage}. */
  private writeWire(req: Request, w: ResponseWriter): boolean {
    if (req.ednsOptions !== null) return false;
    const address = this.addressBytes(req.remoteAddress);
    if (address === null) return false;
    const raw = req.raw;
    const questionEnd = req.questionEnd;
    const nameEnd = questionEnd - 4;
    // The question name must be written in full (no pointer) to be copied as the owner names.
    for (let offset = HEADER_LENGTH; offset < nameEnd; offset += raw[offset]! + 1) {
      if (raw[offset]! > 63) return false;
    }
    const nameLength = nameEnd - HEADER_LENGTH;
    // `_udp.` makes a name of 251 octets or more longer than 255 (RFC 1035 §2.3.4): CoreDNS then
    // fails to pack the reply and sends nothing; the SRV record is left out instead.
    const withSrv = nameLength + SRV_LABEL_LENGTH <= MAX_NAME_LENGTH;
    const size = questionEnd + nameLength + RR_FIXED + address.length + (withSrv ? SRV_LABEL_LENGTH + nameLength + RR_FIXED + SRV_RDATA : 0);
    const total = req.hasEdns ? size + OPT_LENGTH : size;
    if (total > req.maxResponseSize) return false;
    const out = Buffer.allocUnsafe(total);
    const flags = Flags.QR | Flags.AA | (req.flags & REPLY_COPIED_FLAGS);
    // The address and SRV records go in the additional section, as CoreDNS's whoami puts them.
    writeReplyHead(out, raw, questionEnd, req.id, flags, 0, 0, (withSrv ? 2 : 1) + (req.hasEdns ? 1 : 0));
    let offset = lowerName(raw, nameEnd, out, questionEnd);
    offset = recordHeader(out, offset, address.length === 4 ? TYPE_A : TYPE_AAAA, req.qclass, address.length);
    for (let i = 0; i < address.length; i++) out[offset++] = address[i]!;
    if (withSrv) {
      const proto = req.transport === 'udp' ? UDP : TCP;
      out[offset++] = 4;
      for (let i = 0; i < 4; i++) out[offset++] = proto[i]!;
      offset = lowerName(raw, nameEnd, out, offset);
      offset = recordHeader(out, offset, TYPE_SRV, req.qclass, SRV_RDATA);
      for (let i = 0; i < 4; i++) out[offset + i] = 0; // priority, weight
      out[offset + 4] = req.remotePort >> 8;
      out[offset + 5] = req.remotePort & 0xff;
      out[offset + 6] = 0; // target: the root
      offset += SRV_RDATA;
    }
    if (req.hasEdns) writeOpt(out, offset, req.udpSize, req.dnssecOk);
    w.writeWire(out, size);
    return true;
  }

  /** The same reply as a message object, encoded and scrubbed by the writer. */
  private writeMessage(req: Request, w: ResponseWriter): void {
    const reply = replyTo(req);
    reply.flags |= Flags.AA;
    const klass = req.class as NonNullable<StringAnswer['class']>;
    const address: Answer =
      req.family === 'IPv6'
        ? { type: 'AAAA', name: req.qname, class: klass, ttl: 0, data: req.remoteAddress }
        : { type: 'A', name: req.qname, class: klass, ttl: 0, data: req.remoteAddress };
    // CoreDNS names the SRV record `_<proto>.<qname>`, and `_<proto>.` for the root.
    const srvName = req.qname === '.' ? `_${req.transport}.` : `_${req.transport}.${req.qname}`;
    const srv: Answer = {
      type: 'SRV',
      name: srvName,
      class: klass,
      ttl: 0,
      data: { priority: 0, weight: 0, port: req.remotePort, target: '.' },
    };
    // The same limit as above; the question is never compressed, so its wire length is what it spans.
    reply.additionals = req.questionEnd - 16 + srvName.length - req.qname.length > MAX_NAME_LENGTH ? [address] : [address, srv];
    w.write(reply);
  }
}

/** `_udp` and `_tcp`, the SRV owner's first label. */
const UDP = Buffer.from('_udp', 'latin1');
const TCP = Buffer.from('_tcp', 'latin1');

/** Writes type, class, TTL 0 and RDLENGTH at `offset`; returns the offset of the RDATA. */
function recordHeader(out: Buffer, offset: number, type: number, klass: number, rdlength: number): number {
  out[offset] = type >> 8;
  out[offset + 1] = type & 0xff;
  out[offset + 2] = klass >> 8;
  out[offset + 3] = klass & 0xff;
  for (let i = 4; i < 8; i++) out[offset + i] = 0; // TTL
  out[offset + 8] = rdlength >> 8;
  out[offset + 9] = rdlength & 0xff;
  return offset + RR_FIXED;
}

/**
 * Copies the uncompressed name at `raw[HEADER_LENGTH, end)` to `out` at `offset`, ASCII letters
 * lower-cased (CoreDNS's `state.QName()`), and returns the offset after it.
 */
function lowerName(raw: Buffer, end: number, out: Buffer, offset: number): number {
  for (let i = HEADER_LENGTH; i < end; i++) {
    const c = raw[i]!;
    out[offset++] = c >= 0x41 && c <= 0x5a ? c | 0x20 : c;
  }
  return offset;
}
