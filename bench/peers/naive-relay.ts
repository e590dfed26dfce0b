/**
 * The forwarding peer: a `dgram` server that relays each query to 127.0.0.1:UPSTREAM under an ID
 * of its own and maps the reply back to the client, without decoding either. The least a
 * forwarder does: two sends, two receives and a table lookup per query.
 * Usage: node naive-relay.js UPSTREAM_PORT. Prints `PORT <n>` once listening.
 */
import dgram from 'node:dgram';

const upstreamPort = Number(process.argv[2]);
const client = dgram.createSocket('udp4');
const upstream = dgram.createSocket('udp4');
/** Outstanding queries by the ID sent upstream: the client's ID, port and address. */
const pendingId = new Uint16Array(65536);
const pendingPort = new Int32Array(65536).fill(-1);
const pendingAddress: string[] = new Array<string>(65536).fill('');
let nextId = 0;

client.on('message', (msg, rinfo) => {
  if (msg.length < 12) return;
  const id = nextId;
  nextId = (nextId + 1) & 0xffff;
  pendingId[id] = msg.readUInt16BE(0);
  pendingPort[id] = rinfo.port;
  pendingAddress[id] = rinfo.address;
  msg.writeUInt16BE(id, 0);
  upstream.send(msg, upstreamPort, '127.0.0.1');
});

upstream.on('message', (msg) => {
  if (msg.length < 12) return;
  const id = msg.readUInt16BE(0);
  const port = pendingPort[id]!;
  if (port < 0) return;
  pendingPort[id] = -1;
  msg.writeUInt16BE(pendingId[id]!, 0);
  client.send(msg, port, pendingAddress[id]);
});

upstream.bind(0, '127.0.0.1', () => client.bind(0, '127.0.0.1', () => process.stdout.write(`PORT ${client.address().port}\n`)));
