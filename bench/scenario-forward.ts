/**
 * forward without cache: every query crosses Foghorn to an upstream and back. The upstream is a
 * tiny dgram responder started here (in the runner's process, idle during the load) that turns
 * each query into an answer by patching bytes, so the figure is Foghorn's proxying cost.
 */
import dgram from 'node:dgram';
import type { BenchScenario } from './scenario.js';

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

function startUpstream(): Promise<{ port: number; close(): Promise<void> }> {
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
  return new Promise((resolve) => {
    socket.bind(0, '127.0.0.1', () =>
      resolve({
        port: socket.address().port,
        close: () => new Promise<void>((done) => socket.close(() => done())),
      }),
    );
  });
}

const scenario: BenchScenario = {
  title: 'foghorn forward (no cache)',
  // Two hops through Foghorn's process against one for the naive responder.
  targetRatio: 0.5,
  async setup() {
    const upstream = await startUpstream();
    return {
      corefile: `.:0 {\n    bind 127.0.0.1\n    forward . 127.0.0.1:${upstream.port}\n}\n`,
      queryName: 'bench.example.org',
      queryType: 'A',
      upstreamPort: upstream.port,
      cleanup: () => upstream.close(),
    };
  },
};
export default scenario;
