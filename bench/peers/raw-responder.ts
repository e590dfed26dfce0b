/**
 * The Node UDP ceiling: a `dgram` server that answers every datagram with the same canned reply
 * (a whoami-shaped answer for bench.example.org) with only the ID patched. No decoding, no
 * building: what a Node process can answer at all. Prints `PORT <n>` once listening.
 */
import dgram from 'node:dgram';
import dnsPacket from 'dns-packet';

const canned = dnsPacket.encode({
  type: 'response',
  id: 0,
  flags: dnsPacket.AUTHORITATIVE_ANSWER | dnsPacket.RECURSION_DESIRED,
  questions: [{ type: 'A', name: 'bench.example.org', class: 'IN' }],
  additionals: [
    { type: 'A', name: 'bench.example.org', ttl: 0, data: '127.0.0.1' },
    { type: 'SRV', name: '_udp.bench.example.org', ttl: 0, data: { priority: 0, weight: 0, port: 40000, target: '.' } },
  ],
});

const socket = dgram.createSocket('udp4');
socket.on('message', (msg, rinfo) => {
  if (msg.length < 12) return;
  // A fresh copy per reply: send() may still hold the previous one.
  const reply = Buffer.from(canned);
  reply[0] = msg[0]!;
  reply[1] = msg[1]!;
  socket.send(reply, rinfo.port, rinfo.address);
});
socket.bind(0, '127.0.0.1', () => process.stdout.write(`PORT ${socket.address().port}\n`));
