/**
 * `node bench/dist/plugin-cost.js [CASE...]` (after `npm run build`): what a plugin that wraps or
 * rewrites replies costs per query, measured in process against the same chain without it. Each
 * case is two Corefiles set up with the standard directives; each round sends the same query
 * through each chain (`Request.fromWire`, the chain, and the listener's encoding of a message
 * reply), rounds interleaved, and prints the median CPU time per query of both (user + system,
 * so time spent waiting for a core is left out) and their difference.
 * On a shared machine dnsperf cannot tell a few hundred nanoseconds per query apart (see
 * scenario-header.ts and friends for the same chains under dnsperf); this can.
 *
 * Environment: BENCH_QUERIES per round (default 50,000), BENCH_ROUNDS (default 15).
 * It is a benchmark: nothing here asserts a time.
 */
import { saveResults } from './results.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Buffer } from 'node:buffer';
import dnsPacket from 'dns-packet';
import type { Packet } from 'dns-packet';
import { createLogger, definePlugin, Request } from '@foghorn/core';
import type { Handler, HandlerResult, PluginDefinition, ResponseWriter } from '@foghorn/core';
import { buildInstance } from '@foghorn/core/server';
import type { DirectiveEntry, Instance } from '@foghorn/core/server';
import { encodeReply } from '@foghorn/core/wire';
import { standardDirectives } from 'foghorn';
import { Registry } from 'prom-client';

const env = process.env;
const queriesPerRound = Number(env['BENCH_QUERIES'] ?? 50_000);
const rounds = Number(env['BENCH_ROUNDS'] ?? 15);

/**
 * A stand-in for forward's replies, without the network: the query's bytes turned into a reply
 * with one A record (as peers/answer-upstream.ts does), a fresh buffer written as wire bytes.
 */
const wireAnswer: PluginDefinition = definePlugin({
  name: 'wireanswer',
  setup(c) {
    while (c.next()) c.remainingArgs();
    c.addHandler(() => ({
      name: 'wireanswer',
      serveDNS(req, w) {
        const answer = Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 192, 0, 2, 1]);
        const reply = Buffer.concat([req.raw.subarray(0, req.questionEnd), answer]);
        reply[2] = reply[2]! | 0x80;
        reply[3] = 0x80;
        reply.writeUInt16BE(1, 6);
        reply.writeUInt32BE(0, 8);
        w.writeWire(reply);
        return 0;
      },
    }));
  },
});

const dir = mkdtempSync(join(tmpdir(), 'plugin-cost-'));
const hosts = join(dir, 'hosts');
writeFileSync(hosts, '2001:db8::1 v6.example.org\n192.0.2.1 v4.example.org\n192.0.2.2 v4.example.org\n');

const authoritative = `template IN A example.org {\n  answer "{{ .Name }} 60 IN A 192.0.2.1"\n  authority "example.org. 3600 IN NS ns1.example.org."\n  authority "example.org. 3600 IN NS ns2.example.org."\n  additional "ns1.example.org. 3600 IN A 192.0.2.53"\n  additional "ns2.example.org. 3600 IN A 192.0.2.54"\n }`;

interface Case {
  readonly name: string;
  /** What the case measures. */
  readonly what: string;
  /** The plugin's line(s); the chain after it is `rest`. */
  readonly plugin: string;
  readonly rest: string;
  readonly query: { name: string; type: string };
}

const cases: Case[] = [
  { name: 'header', what: 'response set aa ra, wire reply patched (whoami)', plugin: 'header {\n  response set aa ra\n }', rest: 'whoami', query: { name: 'www.example.org', type: 'A' } },
  { name: 'header-message', what: 'response set aa ra, message reply copied (hosts)', plugin: 'header {\n  response set aa ra\n }', rest: `hosts ${hosts}`, query: { name: 'v4.example.org', type: 'A' } },
  { name: 'header-query', what: 'query clear rd only: no writer (whoami)', plugin: 'header {\n  query clear rd\n }', rest: 'whoami', query: { name: 'www.example.org', type: 'A' } },
  { name: 'local', what: 'a name local passes on (whoami)', plugin: 'local', rest: 'whoami', query: { name: 'www.example.org', type: 'A' } },
  { name: 'local-hit', what: 'localhost A answered by local, against whoami answering it', plugin: 'local', rest: 'whoami', query: { name: 'localhost', type: 'A' } },
  { name: 'minimal', what: 'wire reply with nothing to cut (forward stand-in)', plugin: 'minimal', rest: 'wireanswer', query: { name: 'www.example.org', type: 'A' } },
  { name: 'minimal-message', what: 'message reply with nothing to cut (hosts)', plugin: 'minimal', rest: `hosts ${hosts}`, query: { name: 'v4.example.org', type: 'A' } },
  { name: 'minimal-strip', what: 'authority and additional cut (template), against the whole reply encoded', plugin: 'minimal', rest: authoritative, query: { name: 'www.example.org', type: 'A' } },
  { name: 'dns64', what: 'AAAA that exists, passed on (hosts)', plugin: 'dns64 {\n  allow_ipv4\n }', rest: `hosts ${hosts}`, query: { name: 'v6.example.org', type: 'AAAA' } },
  { name: 'dns64-other', what: 'an A query, not dns64\'s (hosts)', plugin: 'dns64 {\n  allow_ipv4\n }', rest: `hosts ${hosts}`, query: { name: 'v4.example.org', type: 'A' } },
  { name: 'dns64-translate', what: 'AAAA synthesised from 2 A records, against the empty reply (hosts)', plugin: 'dns64 {\n  allow_ipv4\n }', rest: `hosts ${hosts}`, query: { name: 'v4.example.org', type: 'AAAA' } },
];

const directives: DirectiveEntry[] = [...standardDirectives(), { name: 'wireanswer', load: () => wireAnswer }];

async function build(text: string): Promise<{ instance: Instance; chain: Handler; zone: string }> {
  const instance = await buildInstance(
    { path: 'Corefile', contents: text },
    {
      directives,
      dnsPort: 0,
      registry: new Registry(),
      logger: createLogger(() => {}),
      validating: false,
      shared: new Map(),
      requestReload: () => Promise.resolve(undefined),
      fatal: (directive, message) => {
        throw new Error(`${directive}: ${message}`);
      },
    },
  );
  const errors = await instance.runHooks('startup');
  if (errors.length > 0) throw errors[0];
  const route = instance.addresses[0]!.routes[0]!;
  if (route.chain === null) throw new Error('no chain');
  return { instance, chain: route.chain, zone: route.zone };
}

interface Run {
  readonly label: string;
  readonly times: number[];
  round(): Promise<void>;
}

async function prepare(label: string, text: string, raw: Buffer): Promise<Run & { close(): Promise<void> }> {
  const { instance, chain, zone } = await build(text);
  let written = 0;
  let req: Request;
  const writer: ResponseWriter = {
    // What the listener does with a message: the scrub's encoding.
    write(msg: Packet) {
      written++;
      return encodeReply(req, msg).length;
    },
    writeWire(wire: Buffer) {
      written++;
      return wire.length;
    },
  };
  const times: number[] = [];
  return {
    label,
    times,
    async round() {
      written = 0;
      // CPU time, not wall time: on a shared machine the process waits for a core, which is not
      // the plugin's cost.
      const start = process.cpuUsage();
      for (let q = 0; q < queriesPerRound; q++) {
        req = Request.fromWire(raw, 'udp', '127.0.0.1', 53000);
        req.zone = zone;
        req.server = 'dns://127.0.0.1:0';
        const result: HandlerResult = chain.serveDNS(req, writer);
        if (typeof result !== 'number') await result;
      }
      const used = process.cpuUsage(start);
      times.push(((used.user + used.system) * 1000) / queriesPerRound);
      if (written !== queriesPerRound) throw new Error(`${label} wrote ${written} replies to ${queriesPerRound} queries`);
    },
    close: async () => void (await instance.runHooks('shutdown')),
  };
}

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1]!;

const wanted = process.argv.slice(2);
console.log(`Per-query cost in process: ${rounds} interleaved rounds of ${queriesPerRound.toLocaleString('en')} queries, median CPU ns per query (Request.fromWire, the chain, a message reply's encoding)\n`);
console.log('| case | what | with | without | cost ns/q |');
console.log('|---|---|---|---|---|');
for (const c of cases.filter((c) => wanted.length === 0 || wanted.includes(c.name))) {
  const raw = dnsPacket.encode({ type: 'query', id: 1, flags: dnsPacket.RECURSION_DESIRED, questions: [{ name: c.query.name, type: c.query.type as 'A', class: 'IN' }] });
  const block = (lines: string): string => `.:0 {\n bind 127.0.0.1\n ${lines}\n}\n`;
  const runs = [await prepare('with', block(`${c.plugin}\n ${c.rest}`), raw), await prepare('without', block(c.rest), raw)];
  for (let i = 0; i < 3; i++) for (const run of runs) await run.round();
  for (const run of runs) run.times.length = 0;
  for (let i = 0; i < rounds; i++) for (const run of runs) await run.round();
  const [withIt, without] = runs.map((run) => median(run.times)) as [number, number];
  console.log(`| ${c.name} | ${c.what} | ${withIt.toFixed(0)} | ${without.toFixed(0)} | ${(withIt - without).toFixed(0)} |`);
  for (const run of runs) await run.close();
}
rmSync(dir, { recursive: true, force: true });
saveResults('plugin-cost');
