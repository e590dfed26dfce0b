/**
 * The upstream of the forwarding scenarios: a `dgram` responder that turns each query into an
 * answer by patching bytes (A 192.0.2.1 for whatever was asked), so a forwarder's figure is its
 * proxying cost. A process of its own, so that bench:dnsperf can also measure it directly: the
 * upstream's own latency is what a forwarder's is compared with. Prints `PORT <n>` once listening.
 */
import dgram from 'node:dgram';

/** Offset just past the first question, or -1. */
function questionEnd(msg: Buffer): number {
  let o = 12;
  while (o < msg.length) {
    const length = msg[o] ?? 0;
    if (length === 0) return o + 5 <= msg.length ? o + 5 : -1;
    if ((length & 0xc0) === 0xc0) return o + 6 <= msg.length ? o + 6 : -1;
    o += length + 1;
  }
  return -1;
}

/** The answer appended to every reply: owner = pointer to the question, A 192.0.2.1, TTL 60. */
const answer = Buffer.from([0xc0, 0x0c, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x3c, 0x00, 0x04, 192, 0, 2, 1]);

const socket = dgram.createSocket('udp4');
socket.on('message', (msg, rinfo) => {
  const end = questionEnd(msg);
  if (end < 0) return;
  const reply = Buffer.concat([msg.subarray(0, end), answer]);
  reply[2] = (reply[2] ?? 0) | 0x80; // QR
  reply[3] = 0x80; // RA, NOERROR
  reply.writeUInt16BE(1, 6); // ANCOUNT
  reply.writeUInt32BE(0, 8); // NSCOUNT, ARCOUNT
  socket.send(reply, rinfo.port, rinfo.address);
});
socket.bind(0, '127.0.0.1', () => process.stdout.write(`PORT ${socket.address().port}\n`));
