/**
 * `node bench/dist/dnssec-sign.js` (after `npm run build`): what *dnssec* costs per
 * query, in process and without sockets, in front of a backend that answers as `file` does (the A
 * record with the apex NS in authority; NXDOMAIN with the SOA for names it does not hold). Each
 * reply is encoded as the listener would (`encodeReply`), so the bigger signed reply's encoding
 * is counted. Figures, in µs per query, best and median round, all in the same run:
 *
 * - the unsigned chain: the backend alone, asked with DO;
 * - dnssec passing a query without DO through;
 * - signed, cache hit: one name asked again and again, and 10,000 names cycled (every entry cold);
 * - signed, cache miss: a new name per query (its A RRset signed, the apex NS from the cache), for
 *   ECDSA P-256, Ed25519 and RSASHA256-2048 keys;
 * - NXDOMAIN black lies: a new name per query (the NSEC signed) and one name again and again.
 *
 * Then memory: what the signature cache holds per cached RRset (one signature), after a full
 * garbage collection, as V8 heap and ArrayBuffers and as resident memory, for 50,000 RRsets
 * (5,000 with RSA), each key in a process of its own. Environment: BENCH_QUERIES per round
 * (default 20,000), BENCH_ROUNDS (default 7). It is a benchmark: nothing here asserts a time.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import dnsPacket from 'dns-packet';
import type { Answer, Packet } from 'dns-packet';
import { Registry } from 'prom-client';
import { replyTo, Request } from '@foghorn/core';
import type { Handler, ResponseWriter } from '@foghorn/core';
import { encodeReply } from '@foghorn/core/wire';
import { createDnssecMetrics, Dnssec, readKeyFiles, SignatureCache, Signer } from '@foghorn/plugin-dnssec';
import type { SigningKey } from '@foghorn/plugin-dnssec';
import { writeDnssecKey } from '@foghorn/testkit';
import type { TestKeyAlgorithm } from '@foghorn/testkit';
import { saveResults } from './results.js';

const env = process.env;
const queriesPerRound = Number(env['BENCH_QUERIES'] ?? 20_000);
const rounds = Number(env['BENCH_ROUNDS'] ?? 7);
const origin = 'example.org';

/** The backend: `file` serving every `h*` name of the zone, NXDOMAIN for the others. */
const soa: Answer = { type: 'SOA', name: origin, ttl: 3600, class: 'IN', data: { mname: `ns.${origin}`, rname: `hostmaster.${origin}`, serial: 1, refresh: 7200, retry: 3600, expire: 1209600, minimum: 3600 } };
const ns: Answer = { type: 'NS', name: origin, ttl: 3600, class: 'IN', data: `ns.${origin}` };
const backend: Handler = {
  name: 'file',
  serveDNS(req, w) {
    const held = req.qname.startsWith('h');
    const msg = replyTo(req, held ? 0 : 3);
    msg.flags |= dnsPacket.AUTHORITATIVE_ANSWER;
    if (held) {
      msg.answers = [{ type: 'A', name: req.name.slice(0, -1), ttl: 3600, class: 'IN', data: '10.0.0.1' }];
      msg.authorities = [ns];
    } else msg.authorities = [soa];
    w.write(msg);
    return 0;
  },
};

const query = (name: string, id: number, dnssecOk: boolean): Buffer =>
  dnsPacket.encode({
    type: 'query',
    id: id & 0xffff,
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ name, type: 'A', class: 'IN' }],
    additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 1232, extendedRcode: 0, ednsVersion: 0, flags: dnssecOk ? dnsPacket.DNSSEC_OK : 0, flag_do: dnssecOk, options: [] }],
  });

/** The listener's writer without a socket: encodes what it is given, as the scrub does. */
let current: Request;
let bytes = 0;
const sink: ResponseWriter = {
  write: (msg: Packet) => (bytes = encodeReply(current, msg).length),
  writeWire: (wire: Buffer) => (bytes = wire.length),
};

function dnssecChain(keys: readonly SigningKey[], capacity: number): Dnssec {
  const signer = new Signer([`${origin}.`], { keys, split: false }, new SignatureCache(capacity));
  return new Dnssec(signer, createDnssecMetrics(new Registry()), backend);
}

/** ns per query of `handler` over `count` queries taken in turn from `raws`, one round. */
function round(handler: Handler, raws: readonly Buffer[], count = queriesPerRound): number {
  const start = process.hrtime.bigint();
  for (let q = 0; q < count; q++) {
    current = Request.fromWire(raws[q % raws.length]!, 'udp', '127.0.0.1', 53000);
    current.server = 'dns://:53';
    void handler.serveDNS(current, sink);
  }
  return Number(process.hrtime.bigint() - start) / count;
}

interface Row {
  readonly label: string;
  readonly times: number[];
  readonly size: number;
  run(r: number): number;
}

const dir = mkdtempSync(join(tmpdir(), 'foghorn-bench-dnssec-'));
const keys = new Map<TestKeyAlgorithm, SigningKey>();
for (const algorithm of [13, 15, 8] as const) keys.set(algorithm, readKeyFiles(writeDnssecKey(dir, origin, { algorithm, ksk: true }).base));
rmSync(dir, { recursive: true, force: true });

/** Bytes of V8 heap and ArrayBuffers in use after a full garbage collection, and the RSS. */
function used(): { heap: number; rss: number } {
  (globalThis as { gc?: () => void }).gc!();
  const usage = process.memoryUsage();
  return { heap: usage.heapUsed + usage.arrayBuffers, rss: usage.rss };
}

/**
 * `--memory ALGORITHM`, in a process of its own with a small young generation so garbage does
 * not grow the RSS: fills a cache with one signed A RRset per name and prints its cost as JSON.
 */
if (process.argv[2] === '--memory') {
  const algorithm = Number(process.argv[3]) as TestKeyAlgorithm;
  const names = algorithm === 8 ? 5_000 : 50_000;
  const cache = new SignatureCache(1_000_000);
  const chain = new Dnssec(new Signer([`${origin}.`], { keys: [keys.get(algorithm)!], split: false }, cache), createDnssecMetrics(new Registry()), backend);
  const serve = (i: number): void => {
    current = Request.fromWire(query(`hmem${i}.example.org`, i, true), 'udp', '127.0.0.1', 53000);
    void chain.serveDNS(current, sink);
  };
  serve(0);
  const before = used();
  for (let i = 1; i <= names; i++) serve(i);
  const after = used();
  console.log(JSON.stringify({ entries: cache.size, heap: (after.heap - before.heap) / names, rss: (after.rss - before.rss) / names }));
  process.exit(0);
}

const one = [query('h4321.example.org', 1, true)];
const cycled = Array.from({ length: 10_000 }, (_, i) => query(`h${i}.example.org`, i, true));
const plain = [query('h4321.example.org', 1, false)];
/** New names for every round and row that needs them, so no miss is ever a hit. */
const fresh = (prefix: string, count: number): Buffer[] => Array.from({ length: count }, (_, i) => query(`${prefix}${i}.example.org`, i, true));

const hitChain = dnssecChain([keys.get(13)!], 10_000);
const cycledChain = dnssecChain([keys.get(13)!], 20_000);
const rows: Row[] = [];
const add = (label: string, run: (r: number) => number, size: () => number): void => {
  rows.push({ label, times: [], get size() { return size(); }, run });
};
const sizeOf = (handler: Handler, raw: Buffer): number => {
  round(handler, [raw]);
  return bytes;
};
add('unsigned chain: file alone, DO query', () => round(backend, one), () => sizeOf(backend, one[0]!));
add('dnssec → file, query without DO', () => round(hitChain, plain), () => sizeOf(hitChain, plain[0]!));
add('signed, cache hit (one name)', () => round(hitChain, one), () => sizeOf(hitChain, one[0]!));
add('signed, cache hit (10,000 names cycled)', () => round(cycledChain, cycled), () => sizeOf(cycledChain, cycled[0]!));
for (const [algorithm, label] of [[13, 'ECDSA P-256'], [15, 'Ed25519'], [8, 'RSASHA256-2048']] as const) {
  const chain = dnssecChain([keys.get(algorithm)!], 1_000_000);
  // RSA signs a hundred times slower: fewer queries keep its rounds short.
  const share = algorithm === 8 ? 20 : 1;
  add(`signed, cache miss (new name), ${label}`, (r) => round(chain, fresh(`h${algorithm}x${r}-`, queriesPerRound / share), queriesPerRound / share), () => sizeOf(chain, fresh(`hsize${algorithm}-`, 1)[0]!));
}
const lies = dnssecChain([keys.get(13)!], 1_000_000);
add('NXDOMAIN black lie, new name (NSEC signed)', (r) => round(lies, fresh(`nx${r}-`, queriesPerRound)), () => sizeOf(lies, fresh('nxsize', 1)[0]!));
add('NXDOMAIN black lie, one name (hit)', () => round(lies, [query('nx.example.org', 1, true)]), () => sizeOf(lies, query('nx.example.org', 1, true)));

// Warm-up: one round of each (and the cycled chain's 10,000 entries filled).
round(cycledChain, cycled);
for (const row of rows) row.run(-1);
for (let r = 0; r < rounds; r++) for (const row of rows) row.times.push(row.run(r));

const memory: string[] = [];
for (const [algorithm, label] of [[13, 'ECDSA P-256'], [15, 'Ed25519'], [8, 'RSASHA256-2048']] as const) {
  const child = spawnSync(process.execPath, ['--expose-gc', '--max-semi-space-size=1', fileURLToPath(import.meta.url), '--memory', String(algorithm)], { encoding: 'utf8' });
  const figures = JSON.parse(child.stdout) as { entries: number; heap: number; rss: number };
  memory.push(`| ${label} | ${figures.entries} | ${figures.heap.toFixed(0)} B | ${figures.rss.toFixed(0)} B |`);
}

const sorted = (times: readonly number[]): number[] => [...times].sort((a, b) => a - b);
const us = (ns: number): string => (ns / 1000).toFixed(2);
const base = sorted(rows[0]!.times)[Math.floor(rows[0]!.times.length / 2)]!;
const lines = [
  `node ${process.versions.node}, ${queriesPerRound} queries x ${rounds} rounds (interleaved); memory after a full GC, in a process of its own (--max-semi-space-size=1)`,
  '',
  '| chain | best µs/query | median µs/query | median ÷ unsigned | reply bytes |',
  '|---|---|---|---|---|',
  ...rows.map((row) => {
    const s = sorted(row.times);
    const median = s[Math.floor(s.length / 2)]!;
    return `| ${row.label} | ${us(s[0]!)} | ${us(median)} | ${(median / base).toFixed(1)} | ${row.size} |`;
  }),
  '',
  '| key | entries | V8 heap and ArrayBuffers per cached RRset | resident memory per cached RRset |',
  '|---|---|---|---|',
  ...memory,
];
console.log(lines.join('\n'));
saveResults('dnssec-sign');
