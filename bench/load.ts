/**
 * The load generator, run in its own process: sends COUNT queries over UDP to 127.0.0.1:PORT
 * keeping WINDOW in flight, and prints one JSON line with QPS and latency percentiles.
 * Usage: node load.js PORT COUNT WINDOW [NAME] [TYPE]
 */
import dgram from 'node:dgram';
import dnsPacket from 'dns-packet';

const [portText = '53', countText = '50000', windowText = '64', name = 'bench.example.org', type = 'A'] = process.argv.slice(2);
const port = Number(portText);
const count = Number(countText);
const window = Number(windowText);
const LOST_AFTER_MS = 1000;

const template = dnsPacket.encode({
  type: 'query',
  id: 0,
  flags: dnsPacket.RECURSION_DESIRED,
  questions: [{ type: type as dnsPacket.RecordType, name, class: 'IN' }],
});
const sentAt = new Float64Array(65536).fill(-1);
const latencies = new Float64Array(count);
const socket = dgram.createSocket('udp4');
let nextId = 0;
let sent = 0;
let received = 0;
let lost = 0;
let started = 0;

function sendOne(): void {
  if (sent >= count) return;
  const id = nextId;
  nextId = (nextId + 1) & 0xffff;
  const wire = Buffer.from(template);
  wire.writeUInt16BE(id, 0);
  sentAt[id] = performance.now();
  sent++;
  socket.send(wire, port, '127.0.0.1');
}

function finish(): void {
  const elapsed = (performance.now() - started) / 1000;
  const sorted = latencies.subarray(0, received).sort();
  const at = (p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
  process.stdout.write(
    JSON.stringify({ cpuUsPerQuery: NaN, queries: count, answered: received, lost, seconds: elapsed, qps: received / elapsed, p50ms: at(0.5), p99ms: at(0.99) }) + '\n',
  );
  socket.close();
  clearInterval(sweeper);
}

socket.on('message', (msg) => {
  const id = msg.readUInt16BE(0);
  const at = sentAt[id]!;
  if (at < 0) return;
  sentAt[id] = -1;
  latencies[received++] = performance.now() - at;
  if (received + lost >= count) return finish();
  sendOne();
});

// A datagram lost on loopback must not stall its slot of the window forever.
const sweeper = setInterval(() => {
  const now = performance.now();
  for (let id = 0; id < 65536; id++) {
    const at = sentAt[id]!;
    if (at >= 0 && now - at > LOST_AFTER_MS) {
      sentAt[id] = -1;
      lost++;
      sendOne();
    }
  }
  if (received + lost >= count) finish();
}, 250);

socket.bind(0, '127.0.0.1', () => {
  started = performance.now();
  for (let i = 0; i < window; i++) sendOne();
});
