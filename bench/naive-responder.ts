/**
 * The yardstick: the simplest correct whoami responder one can write with `dgram` and
 * `dns-packet` (decode, build the reply object, encode, send). Foghorn's chain is measured
 * against it. Prints `PORT <n>` once listening.
 */
import dgram from 'node:dgram';
import dnsPacket from 'dns-packet';
import type { Packet } from 'dns-packet';

const socket = dgram.createSocket('udp4');
socket.on('message', (msg, rinfo) => {
  let query: Packet;
  try {
    query = dnsPacket.decode(msg);
  } catch {
    return;
  }
  const question = query.questions?.[0];
  if (!question) return;
  const reply = dnsPacket.encode({
    type: 'response',
    id: query.id ?? 0,
    flags: dnsPacket.AUTHORITATIVE_ANSWER | ((query.flags ?? 0) & dnsPacket.RECURSION_DESIRED),
    questions: [question],
    additionals: [
      { type: 'A', name: question.name.toLowerCase(), ttl: 0, data: rinfo.address },
      { type: 'SRV', name: `_udp.${question.name.toLowerCase()}`, ttl: 0, data: { priority: 0, weight: 0, port: rinfo.port, target: '.' } },
    ],
  });
  socket.send(reply, rinfo.port, rinfo.address);
});
socket.bind(0, '127.0.0.1', () => {
  process.stdout.write(`PORT ${socket.address().port}\n`);
});
process.on('SIGTERM', () => socket.close());
