/**
 * The upstream of the grpc scenario: a gRPC `DnsService` server (CoreDNS's pb/dns.proto) that
 * turns each query into an answer by patching bytes, as peers/answer-upstream.ts does over UDP,
 * so the figure is the proxying cost. The DnsPacket is read and written by hand: one bytes field.
 * A process of its own; prints `PORT <n>` once listening.
 */
import * as grpc from '@grpc/grpc-js';

/** The `msg` field of a DnsPacket (tag 0x0a, varint length, bytes); an empty buffer otherwise. */
function unwrap(packet: Buffer): Buffer {
  if (packet[0] !== 0x0a) return Buffer.alloc(0);
  let length = 0;
  let at = 1;
  for (let shift = 0; at < packet.length; shift += 7) {
    const byte = packet[at++]!;
    length |= (byte & 0x7f) << shift;
    if (byte < 0x80) break;
  }
  return packet.subarray(at, at + length);
}

function wrap(msg: Buffer): Buffer {
  const head = msg.length < 0x80 ? Buffer.from([0x0a, msg.length]) : Buffer.from([0x0a, (msg.length & 0x7f) | 0x80, msg.length >> 7]);
  return Buffer.concat([head, msg]);
}

/** Offset just past the first question, or -1. */
function questionEnd(msg: Buffer): number {
  let o = 12;
  while (o < msg.length) {
    const length = msg[o] ?? 0;
    if (length === 0) return o + 5 <= msg.length ? o + 5 : -1;
    o += length + 1;
  }
  return -1;
}

/** The answer appended to every reply: owner = pointer to the question, A 192.0.2.1, TTL 60. */
const answer = Buffer.from([0xc0, 0x0c, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x3c, 0x00, 0x04, 192, 0, 2, 1]);

const identity = (b: Buffer): Buffer => b;
const service: grpc.ServiceDefinition = {
  Query: { path: '/coredns.dns.DnsService/Query', requestStream: false, responseStream: false, requestSerialize: identity, requestDeserialize: identity, responseSerialize: identity, responseDeserialize: identity },
};

const server = new grpc.Server();
server.addService(service, {
  Query(call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>): void {
    const msg = unwrap(call.request);
    const end = questionEnd(msg);
    if (end < 0) return callback({ code: grpc.status.INVALID_ARGUMENT, details: 'not a query' });
    const reply = Buffer.concat([msg.subarray(0, end), answer]);
    reply[2] = (reply[2] ?? 0) | 0x80; // QR
    reply[3] = 0x80; // RA, NOERROR
    reply.writeUInt16BE(1, 6); // ANCOUNT
    reply.writeUInt32BE(0, 8); // NSCOUNT, ARCOUNT
    callback(null, wrap(reply));
  },
});
server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, port) => {
  if (error) throw error;
  process.stdout.write(`PORT ${port}\n`);
});
