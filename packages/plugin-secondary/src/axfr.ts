/**
 * The client side of a zone transfer (RFC 5936) and of the SOA check before one, over TCP as
 * CoreDNS does both (`plugin/file/secondary.go` with miekg/dns's `Transfer.In`): connect, send
 * the query, read length-framed messages.
 *
 * A primary is trusted with the zone, not with the process: every message is checked (ID,
 * rcode, the SOA that opens and the one that closes the transfer), each must arrive within the
 * message timeout, and a transfer that grows past its record or byte limit or outlasts its
 * deadline is abandoned. Records outside the zone are dropped (they could only be served as
 * someone else's data). The records are decoded as they arrive and the raw bytes let go, so
 * what a transfer holds is what the zone will hold.
 */
import net from 'node:net';
import dnsPacket from 'dns-packet';
import type { Answer, Packet } from 'dns-packet';
import { isSubdomain, OFFSET_ANCOUNT, OFFSET_FLAGS, OFFSET_ID } from '@foghorn/core';

/** What one transfer may cost. */
export interface TransferLimits {
  /** Records (the SOA included) a zone may have; a longer transfer is abandoned. */
  readonly maxRecords: number;
  /** Bytes of messages a transfer may read, framing included. */
  readonly maxBytes: number;
  /** To connect, and to receive each whole message (miekg/dns's 2 s read timeout). */
  readonly timeoutMs: number;
  /** The whole transfer, however steadily messages arrive. */
  readonly deadlineMs: number;
}

/** A complete transfer. */
export interface TransferredZone {
  /** The zone's records, the opening SOA first; the closing SOA is not repeated. */
  readonly records: Answer[];
  readonly serial: number;
  /** Records outside the zone the primary sent, dropped. */
  readonly outOfZone: number;
  readonly bytes: number;
  readonly messages: number;
}

/** Absolute, lower-case form of a dns-packet name. */
function fqdn(name: string): string {
  return name === '.' || name === '' ? '.' : name.toLowerCase() + '.';
}

/** Splits `host:port` / `[v6]:port` as *secondary*'s addresses are written. */
function endpoint(address: string): { host: string; port: number } {
  const colon = address.lastIndexOf(':');
  const host = address.slice(0, colon);
  return { host: host.startsWith('[') ? host.slice(1, -1) : host, port: Number(address.slice(colon + 1)) };
}

function queryFor(zone: string, type: 'AXFR' | 'SOA', id: number): Buffer {
  const packet: Packet = {
    type: 'query',
    id,
    // miekg/dns's SetQuestion sets RD, on AXFR queries as well.
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ name: zone, type, class: 'IN' }],
  };
  const wire = dnsPacket.encode(packet);
  const frame = Buffer.allocUnsafe(wire.length + 2);
  frame.writeUInt16BE(wire.length, 0);
  wire.copy(frame, 2);
  return frame;
}

/**
 * Reads framed messages from `address` after sending `query`, handing each to `take` until it
 * returns true (done) or throws (abandon). Rejects on connection errors, on a message that does
 * not arrive within `timeoutMs`, on the connection closing early, after `deadlineMs`, and when
 * `signal` aborts (the configuration stopped).
 */
function exchangeStream(
  address: string,
  query: Buffer,
  limits: Pick<TransferLimits, 'timeoutMs' | 'deadlineMs' | 'maxBytes'>,
  signal: AbortSignal | undefined,
  take: (message: Buffer) => boolean,
): Promise<{ bytes: number }> {
  const { host, port } = endpoint(address);
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error('stopped'));
    const socket = net.connect({ host, port });
    let pending: Buffer | undefined;
    let bytes = 0;
    let settled = false;
    let waiting: NodeJS.Timeout;
    const finish = (error?: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(waiting);
      clearTimeout(deadline);
      signal?.removeEventListener('abort', stopped);
      socket.destroy();
      if (error) reject(error);
      else resolve({ bytes });
    };
    // The next whole message is due within timeoutMs of the last one (or of connecting).
    const expect = (what: string): void => {
      clearTimeout(waiting);
      waiting = setTimeout(() => finish(new Error(`${what} ${address}: i/o timeout after ${limits.timeoutMs / 1000}s`)), limits.timeoutMs);
    };
    const deadline = setTimeout(() => finish(new Error(`read tcp ${address}: transfer still running after ${limits.deadlineMs / 1000}s`)), limits.deadlineMs);
    const stopped = (): void => finish(new Error('stopped'));
    signal?.addEventListener('abort', stopped);
    expect('dial tcp');
    socket.on('connect', () => {
      expect('read tcp');
      socket.write(query);
    });
    socket.on('error', (error) => finish(error));
    socket.on('close', () => finish(new Error(`read tcp ${address}: connection closed before the transfer ended (${bytes} bytes read)`)));
    socket.on('data', (chunk: Buffer) => {
      if (settled) return;
      bytes += chunk.length;
      if (bytes > limits.maxBytes) return finish(new Error(`read tcp ${address}: more than ${limits.maxBytes} bytes`));
      let data = pending === undefined ? chunk : Buffer.concat([pending, chunk]);
      pending = undefined;
      while (data.length >= 2) {
        const length = data.readUInt16BE(0);
        if (data.length < length + 2) break;
        let done: boolean;
        try {
          done = take(data.subarray(2, length + 2));
        } catch (error) {
          return finish(error as Error);
        }
        if (done) return finish();
        data = data.subarray(length + 2);
        expect('read tcp');
      }
      // Keep only the start of the next message, copied so the chunk it came in can go.
      if (data.length > 0) pending = Buffer.from(data);
    });
  });
}

/** Checks a reply's header against the query: its ID and rcode (miekg/dns's errors). */
function checkHeader(message: Buffer, id: number, what: string): void {
  if (message.length < 12) throw new Error(`${what}: short message of ${message.length} bytes`);
  if (message.readUInt16BE(OFFSET_ID) !== id) throw new Error(`${what}: id mismatch`);
  const rcode = message.readUInt16BE(OFFSET_FLAGS) & 0xf;
  if (rcode !== 0) throw new Error(`bad xfr rcode: ${rcode}`);
}

function decode(message: Buffer, what: string): Packet {
  try {
    return dnsPacket.decode(message);
  } catch (error) {
    throw new Error(`${what}: malformed message: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Transfers `zone` (lower-case, fully qualified) from `primary` (`host:port`) by AXFR. Rejects
 * with the reason when the transfer fails or breaks a limit; nothing of a failed transfer stays.
 */
export async function transferIn(zone: string, primary: string, limits: TransferLimits, signal?: AbortSignal): Promise<TransferredZone> {
  const id = Math.floor(Math.random() * 65536);
  const records: Answer[] = [];
  let serial = -1;
  let count = 0;
  let outOfZone = 0;
  let messages = 0;
  const { bytes } = await exchangeStream(primary, queryFor(zone, 'AXFR', id), limits, signal, (message) => {
    checkHeader(message, id, 'axfr');
    messages++;
    // Counted from the header before decoding, so an oversized message costs nothing.
    count += message.readUInt16BE(OFFSET_ANCOUNT);
    if (count > limits.maxRecords + 1) throw new Error(`zone has more than ${limits.maxRecords} records`);
    const answers = decode(message, 'axfr').answers ?? [];
    let first = 0;
    if (serial < 0) {
      const soa = answers[0];
      if (soa?.type !== 'SOA' || fqdn(soa.name) !== zone) throw new Error('no SOA');
      serial = soa.data.serial ?? 0;
      records.push(soa);
      first = 1;
    }
    const last = answers.length - 1;
    // The zone ends at an SOA closing a message (RFC 5936 §2.2), other than the opening one.
    const closed = last >= first && answers[last]!.type === 'SOA';
    const end = closed ? last : answers.length;
    for (let i = first; i < end; i++) {
      const rr = answers[i]!;
      if (!isSubdomain(fqdn(rr.name), zone)) {
        outOfZone++;
        continue;
      }
      // An SOA inside the transfer would replace the zone's own.
      if (rr.type === 'SOA') continue;
      records.push(rr);
    }
    return closed;
  });
  return { records, serial, outOfZone, bytes, messages };
}

/**
 * The zone's SOA serial at `primary`, asked over TCP "to minimize spoofing" as CoreDNS does.
 * Rejects when the primary does not answer with NOERROR and an SOA.
 */
export async function primarySerial(zone: string, primary: string, timeoutMs: number, signal?: AbortSignal): Promise<number> {
  const id = Math.floor(Math.random() * 65536);
  let serial = -1;
  await exchangeStream(primary, queryFor(zone, 'SOA', id), { timeoutMs, deadlineMs: timeoutMs * 2, maxBytes: 65_537 }, signal, (message) => {
    if (message.length < 12 || message.readUInt16BE(OFFSET_ID) !== id) throw new Error('soa: id mismatch');
    const rcode = message.readUInt16BE(OFFSET_FLAGS) & 0xf;
    if (rcode !== 0) throw new Error(`soa: rcode ${rcode}`);
    for (const rr of decode(message, 'soa').answers ?? []) {
      if (rr.type === 'SOA') {
        serial = rr.data.serial ?? 0;
        break;
      }
    }
    if (serial < 0) throw new Error(`soa: no SOA in the answer from ${primary}`);
    return true;
  });
  return serial;
}
