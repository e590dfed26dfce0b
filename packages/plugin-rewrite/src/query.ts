/**
 * The query as rules edit it: the question and the OPT record, read from the wire bytes the
 * listener accepted and written back as new wire bytes only when a rule changed something.
 *
 * Why not dns-packet: the rest of the message (answer/authority records of a NOTIFY, a TSIG
 * record) must reach the next plugin byte for byte, and dns-packet would re-encode it.
 */
import { Request, TYPE_OPT } from '@foghorn/core';
import type { EdnsOption } from '@foghorn/core';
import { encodeName, skipName, skipRecord } from '@foghorn/core/wire';

/** The OPT record of the query (RFC 6891 §6.1.2), options in wire order. */
export interface QueryOpt {
  udpSize: number;
  /** The TTL field: extended rcode, version, DO and Z bits. */
  ttl: number;
  options: EdnsOption[];
}

/** The UDP size of an OPT record a rule adds to a query without one (CoreDNS's `SetEdns0(4096, false)`). */
const addedOptUdpSize = 4096;

/** The question and OPT record of one query, editable, and the Request they make. */
export class QueryEdit {
  /** Question name, presentation form with a trailing dot. */
  name: string;
  qtype: number;
  qclass: number;
  private optRead = false;
  private optValue: QueryOpt | null = null;
  private optChanged = false;

  constructor(readonly original: Request) {
    this.name = original.name;
    this.qtype = original.qtype;
    this.qclass = original.qclass;
  }

  /** The question name lower-cased; the listener's copy while no rule changed the name. */
  lowerName(): string {
    return this.name === this.original.name ? this.original.qname : this.name.toLowerCase();
  }

  /** The query's OPT record, or null when it had none. */
  get opt(): QueryOpt | null {
    if (!this.optRead) this.readOpt();
    return this.optValue;
  }

  /** The OPT record, added (UDP size 4096, no DO) when the query had none; marks it changed. */
  editOpt(): QueryOpt {
    this.optChanged = true;
    return (this.optValue = this.opt ?? { udpSize: addedOptUdpSize, ttl: 0, options: [] });
  }

  private readOpt(): void {
    this.optRead = true;
    const raw = this.original.raw;
    if (!this.original.hasEdns) return;
    const at = this.additionalStart();
    let offset = at.offset;
    for (let i = 0; i < at.count; i++) {
      const nameEnd = skipName(raw, offset);
      const end = nameEnd + 10 + raw.readUInt16BE(nameEnd + 8);
      if (raw.readUInt16BE(nameEnd) === TYPE_OPT) {
        const options: EdnsOption[] = [];
        for (let o = nameEnd + 10; o + 4 <= end; ) {
          const length = raw.readUInt16BE(o + 2);
          options.push({ code: raw.readUInt16BE(o), data: Buffer.from(raw.subarray(o + 4, o + 4 + length)) });
          o += 4 + length;
        }
        this.optValue = { udpSize: raw.readUInt16BE(nameEnd + 2), ttl: raw.readUInt32BE(nameEnd + 4), options };
        return;
      }
      offset = end;
    }
  }

  /** Where the additional section starts and how many records it has. */
  private additionalStart(): { offset: number; count: number } {
    const raw = this.original.raw;
    let offset = this.original.questionEnd;
    const skip = raw.readUInt16BE(6) + raw.readUInt16BE(8);
    for (let i = 0; i < skip; i++) offset = skipRecord(raw, offset);
    return { offset, count: raw.readUInt16BE(10) };
  }

  /** True when the question's name is no domain name (checked after every rule that matched). */
  get nameInvalid(): boolean {
    return encodeName(this.name) === undefined;
  }

  /** True when a rule changed the question or the OPT record. */
  get changed(): boolean {
    const req = this.original;
    return this.name !== req.name || this.qtype !== req.qtype || this.qclass !== req.qclass || this.optChanged;
  }

  /**
   * The query as the next plugin sees it: the original Request when nothing changed, otherwise a
   * new one from new wire bytes, keeping the original's transport, client, zone and server.
   */
  request(): Request {
    const req = this.original;
    if (!this.changed) return req;
    const name = encodeName(this.name);
    if (name === undefined) throw new Error(`invalid name after rewrite: ${this.name}`);
    const raw = req.raw;
    const fixed = Buffer.alloc(4);
    fixed.writeUInt16BE(this.qtype, 0);
    fixed.writeUInt16BE(this.qclass, 2);
    const parts: Buffer[] = [Buffer.from(raw.subarray(0, 12)), name, fixed];
    if (!this.optChanged) {
      parts.push(raw.subarray(req.questionEnd));
    } else {
      const at = this.additionalStart();
      parts.push(raw.subarray(req.questionEnd, at.offset));
      let offset = at.offset;
      let count = 0;
      for (let i = 0; i < at.count; i++) {
        const nameEnd = skipName(raw, offset);
        const end = nameEnd + 10 + raw.readUInt16BE(nameEnd + 8);
        if (raw.readUInt16BE(nameEnd) !== TYPE_OPT) {
          parts.push(raw.subarray(offset, end));
          count++;
        }
        offset = end;
      }
      parts.push(encodeOpt(this.optValue!));
      parts[0]!.writeUInt16BE(count + 1, 10);
    }
    const rewritten = Request.fromWire(Buffer.concat(parts), req.transport, req.remoteAddress, req.remotePort);
    rewritten.zone = req.zone;
    rewritten.server = req.server;
    rewritten.handler = req.handler;
    rewritten.metadata = req.metadata;
    return rewritten;
  }
}

function encodeOpt(opt: QueryOpt): Buffer {
  let length = 0;
  for (const o of opt.options) length += 4 + o.data.length;
  const wire = Buffer.alloc(11 + length);
  // Root owner name (one zero byte), then TYPE, CLASS (the UDP size), TTL and RDLENGTH.
  wire.writeUInt16BE(TYPE_OPT, 1);
  wire.writeUInt16BE(opt.udpSize, 3);
  wire.writeUInt32BE(opt.ttl >>> 0, 5);
  wire.writeUInt16BE(length, 9);
  let offset = 11;
  for (const o of opt.options) {
    wire.writeUInt16BE(o.code, offset);
    wire.writeUInt16BE(o.data.length, offset + 2);
    o.data.copy(wire, offset + 4);
    offset += 4 + o.data.length;
  }
  return wire;
}
