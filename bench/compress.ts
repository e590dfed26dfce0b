/**
 * `npm run bench:compress`: the cost of compressing one ~4 KB reply with core's `compressReply`,
 * the work the scrub writer adds to a reply over the client's limit (a reply that fits pays
 * nothing). Two shapes: 64 A records of one 46-byte owner (a headless service), and SRV records
 * with their A glue (24 endpoints); each is compressed whole (no limit) and cut to 1232 and to
 * 512 bytes. For scale, `dns-packet.encode` of the same message, which every object reply pays.
 *
 * Environment: BENCH_ITERATIONS per round (default 20,000); best of 5 rounds is printed.
 */
import { saveResults } from './results.js';
import dnsPacket from 'dns-packet';
import type { Answer, Packet } from 'dns-packet';
import { compressReply } from '@foghorn/core/wire';

const iterations = Number(process.env['BENCH_ITERATIONS'] ?? 20_000);
const zone = 'headless.default.svc.cluster.local';

function headless(): Packet {
  const name = `endpoints.${zone}`;
  return {
    type: 'response',
    id: 1,
    flags: 0x8400,
    questions: [{ type: 'A', name, class: 'IN' }],
    answers: Array.from({ length: 64 }, (_, i): Answer => ({ type: 'A', name, ttl: 5, data: `10.0.0.${i}` })),
  };
}

function srvWithGlue(): Packet {
  const qname = `_http._tcp.${zone}`;
  const target = (i: number): string => `ep-${String(i).padStart(3, '0')}.${zone}`;
  return {
    type: 'response',
    id: 1,
    flags: 0x8400,
    questions: [{ type: 'SRV', name: qname, class: 'IN' }],
    answers: Array.from({ length: 24 }, (_, i): Answer => ({ type: 'SRV', name: qname, ttl: 5, data: { priority: 0, weight: 100, port: 80, target: target(i) } })),
    additionals: Array.from({ length: 24 }, (_, i): Answer => ({ type: 'A', name: target(i), ttl: 5, data: `10.0.0.${i}` })),
  };
}

/** Best time per call, in µs, over 5 rounds of `iterations` calls. */
function measure(run: () => unknown): number {
  let best = Infinity;
  for (let round = 0; round < 6; round++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) run();
    const perCall = Number(process.hrtime.bigint() - start) / 1000 / iterations;
    // The first round warms the JIT up and is not counted.
    if (round > 0) best = Math.min(best, perCall);
  }
  return best;
}

console.log(`node ${process.version}, ${iterations} calls per round, best of 5`);
console.log('| reply | bytes in | bytes out (no limit / 1232 / 512) | compress | cut to 1232 | cut to 512 | dns-packet encode |');
console.log('|---|---|---|---|---|---|---|');
for (const [label, msg] of [['64 A, one owner', headless()], ['24 SRV + 24 A glue', srvWithGlue()]] as const) {
  const wire = dnsPacket.encode(msg);
  const sizes = [compressReply(wire).length, compressReply(wire, 1232).length, compressReply(wire, 512).length].join(' / ');
  const whole = measure(() => compressReply(wire));
  const edns = measure(() => compressReply(wire, 1232));
  const plain = measure(() => compressReply(wire, 512));
  const encode = measure(() => dnsPacket.encode(msg));
  const us = (n: number): string => `${n.toFixed(2)} µs`;
  console.log(`| ${label} | ${wire.length} | ${sizes} | ${us(whole)} | ${us(edns)} | ${us(plain)} | ${us(encode)} |`);
}
saveResults('compress');
