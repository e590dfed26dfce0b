/**
 * UDP queries per second through a real listener, whoami alone and behind prometheus. One client
 * socket keeps `window` queries in flight for `seconds`, in the same process as the server, so
 * the figure is the server's CPU cost per query plus the client's.
 *
 *   npx tsc -b packages/plugin-prometheus && node packages/plugin-prometheus/dist/bench/udp.bench.js
 */
import dgram from 'node:dgram';
import bind from '@foghorn/plugin-bind';
import whoami from '@foghorn/plugin-whoami';
import { directivesOf, makeQuery, startServer } from '@foghorn/testkit';
import prometheus from '../src/index.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const window = 64;

async function qps(corefile: string): Promise<number> {
  const srv = await startServer(corefile, { directives: directivesOf(bind, prometheus, whoami) });
  const port = srv.port();
  const socket = dgram.createSocket('udp4');
  const wire = makeQuery('www.example.org', 'A', { id: 1 });
  let answered = 0;
  let running = true;
  socket.on('message', () => {
    answered++;
    if (running) socket.send(wire, port, '127.0.0.1');
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const started = performance.now();
  for (let i = 0; i < window; i++) socket.send(wire, port, '127.0.0.1');
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  running = false;
  const elapsed = (performance.now() - started) / 1000;
  const rate = answered / elapsed;
  socket.close();
  await srv.close();
  return rate;
}

const without = 'example.org:0 {\n bind 127.0.0.1\n whoami\n}';
const withMetrics = 'example.org:0 {\n bind 127.0.0.1\n prometheus 127.0.0.1:0\n whoami\n}';
const results: Record<string, number[]> = { without: [], with: [] };
// A discarded warm-up of each, then alternate which goes first: JIT warm-up and machine noise
// otherwise favour whichever runs second.
await qps(without);
await qps(withMetrics);
for (let round = 0; round < 4; round++) {
  const order: Array<[string, string]> = round % 2 === 0 ? [['without', without], ['with', withMetrics]] : [['with', withMetrics], ['without', without]];
  for (const [name, corefile] of order) results[name]!.push(await qps(corefile));
}
const best = (xs: number[]): number => Math.max(...xs);
const a = best(results.without!);
const b = best(results.with!);
process.stdout.write(
  `node ${process.versions.node}, ${seconds}s x 4 rounds, ${window} in flight (best round)\n` +
    `whoami alone          ${a.toFixed(0)} qps\n` +
    `prometheus -> whoami  ${b.toFixed(0)} qps (${(((b - a) / a) * 100).toFixed(1)}% vs whoami alone)\n`,
);
