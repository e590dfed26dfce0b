/**
 * `node bench/dist/dispatch-cost.js [PAIR...]`: the CPU cost per query of what runs between a
 * listener's accepted query and its reply (routing, views, metadata, the chain, encoding) for
 * Corefiles that differ in one feature, in one process: no sockets, no load generator, so the
 * difference between two Corefiles is what that feature costs, a few tens of nanoseconds
 * visible where a dnsperf run on a shared machine moves by microseconds.
 *
 * Each pair is a Corefile with the feature and the same chain without it. The Corefiles are set
 * up with the standard directives (log's lines go to a sink that drops them, so no output is
 * written; its line is still formatted), their first listener's routes are taken, and
 * `dispatch` runs a query through them with a writer that encodes the reply and drops it. Runs
 * are interleaved (A, B, A, B ...) and each Corefile's best run is kept.
 * Environment: BENCH_QUERIES (per run, default 200,000), BENCH_ROUNDS (default 7).
 */
import { loadavg } from 'node:os';
import { createLogger, Request } from '@foghorn/core';
import { buildInstance, dispatch, ReplyWriter, RouteTable } from '@foghorn/core/server';
import type { DirectiveEntry, DispatchContext } from '@foghorn/core/server';
import { emptyHeader, readQuery } from '@foghorn/core/wire';
import { createLogPlugin } from '@foghorn/plugin-log';
import { standardDirectives } from 'foghorn';
import { makeQuery } from '@foghorn/testkit';
import { Registry } from 'prom-client';
import { saveResults } from './results.js';

const queries = Number(process.env['BENCH_QUERIES'] ?? 200_000);
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 7);

const block = (body: string): string => `.:0 {\n    bind 127.0.0.1\n${body.replace(/^/gm, '    ')}\n}\n`;
const views = (first: string, second: string): string => block(`view first {\n    expr ${first}\n}\nwhoami`) + block(`view second {\n    expr ${second}\n}\nwhoami`);
const logged = (metadata: boolean, label: string): string => block(`${metadata ? 'metadata\n' : ''}view all {\n    expr true\n}\nlog . "{common} {/${label}}"\nwhoami`);

/** What is compared: a Corefile with the feature, then the same chain without it. */
const pairs: Record<string, { readonly title: string; readonly with: string; readonly without: string }> = {
  view: {
    title: 'two views on one zone (the first fails, the second passes) against one block without a view',
    with: views("proto() == 'tcp'", "incidr(client_ip(), '127.0.0.0/8')"),
    without: block('whoami'),
  },
  'view-one': { title: 'one view passing every query against the same block without it', with: block("view all {\n    expr true\n}\nwhoami"), without: block('whoami') },
  metadata: { title: 'metadata, log reading view/name, against the same block and log line without metadata', with: logged(true, 'view/name'), without: logged(false, 'view/name') },
  'metadata-class': { title: 'metadata, log reading log/class (a reply decoded for it), against the same without metadata', with: logged(true, 'log/class'), without: logged(false, 'log/class') },
  'metadata-idle': { title: 'metadata nobody reads, against the same block without it', with: block('metadata\nlog\nwhoami'), without: block('log\nwhoami') },
};

/** The standard directives, log writing to a sink that drops its lines. */
function directives(): DirectiveEntry[] {
  const quiet = createLogPlugin({ sink: () => {} });
  return standardDirectives().map((entry) => (entry.name === 'log' ? { ...entry, load: () => quiet } : entry));
}

/** Encodes the reply, as a listener does, and drops it. */
class DropWriter extends ReplyWriter {
  protected send(wire: Buffer): number {
    this.answered();
    return wire.length;
  }
}

async function contextFor(corefile: string): Promise<DispatchContext> {
  const instance = await buildInstance({ path: 'Corefile', contents: corefile }, {
    directives: directives(),
    dnsPort: 0,
    registry: new Registry(),
    logger: createLogger(() => {}),
    validating: false,
    shared: new Map(),
    requestReload: () => Promise.resolve(undefined),
    fatal: (_directive, message) => {
      throw new Error(message);
    },
  });
  await instance.runHooks('startup');
  const plan = instance.addresses[0]!;
  return { server: 'dns://127.0.0.1:53', routes: new RouteTable(plan.routes), acceptAnyClass: false, logger: createLogger(() => {}) };
}

const raw = makeQuery('bench.example.org', 'A');
const header = emptyHeader();
readQuery(raw, header);

/** ns per query over one run. */
function run(context: DispatchContext): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < queries; i++) {
    const req = new Request(raw, header, 'udp', '127.0.0.1', 40000 + (i & 0xff));
    dispatch(context, req, new DropWriter(req));
  }
  return Number(process.hrtime.bigint() - start) / queries;
}

const names = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(pairs);
const out: string[] = [
  `node ${process.versions.node}, ${queries} queries per run, ${rounds} interleaved runs each, best run; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`,
  '',
  '| pair | with | without | cost per query |',
  '|---|---|---|---|',
];
for (const name of names) {
  const pair = pairs[name];
  if (pair === undefined) throw new Error(`no pair ${name}: ${Object.keys(pairs).join(', ')}`);
  const withIt = await contextFor(pair.with);
  const without = await contextFor(pair.without);
  // Warm-up: both chains compiled before anything is timed.
  run(withIt);
  run(without);
  let bestWith = Infinity;
  let bestWithout = Infinity;
  for (let r = 0; r < rounds; r++) {
    bestWith = Math.min(bestWith, run(withIt));
    bestWithout = Math.min(bestWithout, run(without));
  }
  out.push(`| ${name}: ${pair.title} | ${bestWith.toFixed(0)} ns | ${bestWithout.toFixed(0)} ns | ${(bestWith - bestWithout).toFixed(0)} ns |`);
}
out.push('', `load average after ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
const text = out.join('\n');
console.log(text);
saveResults('dispatch-cost');
process.exit(0);
