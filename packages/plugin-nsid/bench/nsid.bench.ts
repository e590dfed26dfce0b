/**
 * Per-query cost of *nsid* (and of *cancel*, the other small plugin in front of every query):
 * `serveDNS` of whoami alone against the same whoami behind the plugin, for queries without the
 * NSID option (the zero-cost path) and with it (a writer and the option added to the reply). A
 * new Request per call, as the listener makes one per query; a no-op writer keeps sockets out;
 * the variants alternate round by round and each keeps its best round of CPU time.
 *
 *   npx tsc -b packages/plugin-nsid && node packages/plugin-nsid/dist/bench/nsid.bench.js
 */
import { Request } from '@foghorn/core';
import type { Handler, ResponseWriter } from '@foghorn/core';
import { encodeReply, emptyHeader, readQuery } from '@foghorn/core/wire';
import { Cancel } from '@foghorn/plugin-cancel';
import { Whoami } from '@foghorn/plugin-whoami';
import { makeQuery } from '@foghorn/testkit';
import { Nsid } from '../src/handler.js';

const iterations = Number(process.env['ITERATIONS'] ?? 200_000);
const rounds = Number(process.env['ROUNDS'] ?? 7);

function source(raw: Buffer): () => Request {
  const header = emptyHeader();
  readQuery(raw, header);
  return () => {
    const req = new Request(raw, header, 'udp', '192.0.2.1', 5353);
    req.zone = '.';
    return req;
  };
}
const plain = source(makeQuery('www.example.org', 'A', { udpSize: 1232 }));
const asking = source(makeQuery('www.example.org', 'A', { udpSize: 1232, ednsOptions: [{ code: 3, data: Buffer.alloc(0) }] }));

/** Encodes what is written, as the listener's writer does: the option's cost is in the bytes too. */
function writer(req: Request): ResponseWriter {
  return { write: (msg) => encodeReply(req, msg).length, writeWire: (wire) => wire.length };
}
/** Stands for log or prometheus: a plugin that times every query, so cancel's clock read is shared. */
function timing(next: Handler): Handler {
  return {
    name: 'timing',
    serveDNS(req, w) {
      req.startTime();
      const rcode = next.serveDNS(req, w) as number;
      req.elapsedMs();
      return rcode;
    },
  };
}

const variants: [string, Handler, () => Request][] = [
  ['whoami, no NSID option', new Whoami(), plain],
  ['nsid -> whoami, no NSID option', new Nsid('ns1.example.org', new Whoami()), plain],
  ['whoami, NSID option (message path)', new Whoami(), asking],
  ['nsid -> whoami, NSID option', new Nsid('ns1.example.org', new Whoami()), asking],
  ['cancel -> whoami', new Cancel(5001, new Whoami()), plain],
  ['timing -> whoami', timing(new Whoami()), plain],
  ['cancel -> timing -> whoami', new Cancel(5001, timing(new Whoami())), plain],
];

const best = variants.map(() => Infinity);
for (let r = 0; r < rounds; r++) {
  variants.forEach(([, handler, next], v) => {
    // CPU time, not wall time: on a shared machine the process waits for a core, and that wait
    // is not the plugin's cost.
    const start = process.cpuUsage();
    for (let i = 0; i < iterations; i++) {
      const req = next();
      handler.serveDNS(req, writer(req));
    }
    const used = process.cpuUsage(start);
    best[v] = Math.min(best[v]!, ((used.user + used.system) * 1000) / iterations);
  });
}

const fmt = (ns: number): string => `${ns.toFixed(0).padStart(6)} ns`;
const lines = [`node ${process.versions.node}, ${iterations} queries x ${rounds} rounds (best round), load ${(await import('node:os')).loadavg()[0]!.toFixed(2)}`];
variants.forEach(([label], v) => lines.push(`${label.padEnd(38)}${fmt(best[v]!)}`));
lines.push(
  '',
  `nsid, query without the option      ${fmt(best[1]! - best[0]!)}`,
  `nsid, query with the option         ${fmt(best[3]! - best[2]!)}`,
  `cancel alone (reads the clock)      ${fmt(best[4]! - best[0]!)}`,
  `cancel behind a timing plugin       ${fmt(best[6]! - best[5]!)}`,
  '',
);
process.stdout.write(lines.join('\n'));
