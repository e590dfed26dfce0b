/**
 * The UDP burst: `count` queries sent back to back from one socket, as a resolver flushing its
 * queue or a reflection attack does, and how many get an answer. The same burst goes to knotd
 * with one UDP worker in the same run, so the figure is a ratio on this machine, not an
 * absolute that depends on the load of the day.
 *
 *   npm run burst [-- COUNT [ROUNDS]]     prints answered/sent for foghorn and knotd per round
 */
import dgram from 'node:dgram';
import { freeTcpPort, makeQuery } from '@foghorn/testkit';
import { examplePorts, exampleCorefile, scratch, startFoghorn, startKnot } from './harness.js';

export interface BurstResult {
  readonly sent: number;
  readonly answered: number;
}

/**
 * Sends `count` queries for `name` with distinct IDs as fast as the socket takes them, then
 * counts distinct answers until none came for `quietMs`.
 */
export async function burst(port: number, name: string, count: number, quietMs = 500): Promise<BurstResult> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  // The client's own buffer must not be what drops the answers.
  socket.setRecvBufferSize(8 * 1024 * 1024);
  const wires = Array.from({ length: count }, (_, id) => makeQuery(name, 'A', { id }));
  const seen = new Uint8Array(count);
  let answered = 0;
  let timer: NodeJS.Timeout | undefined;
  let quiet = (): void => {};
  const done = new Promise<void>((resolve) => {
    quiet = (): void => {
      clearTimeout(timer);
      timer = setTimeout(resolve, quietMs);
    };
    socket.on('message', (msg) => {
      const id = msg.readUInt16BE(0);
      if (id < count && seen[id] === 0) {
        seen[id] = 1;
        answered++;
      }
      if (answered === count) {
        clearTimeout(timer);
        resolve();
      } else quiet();
    });
  });
  for (const wire of wires) socket.send(wire, port, '127.0.0.1');
  // Armed after the loop: a timer that expired while it ran would fire before the answers are read.
  if (answered < count) quiet();
  await done;
  socket.close();
  return { sent: count, answered };
}

/** One round against both servers, foghorn first then knotd, each on its own port. */
export async function compareBurst(foghornPort: number, knotPort: number, count: number): Promise<{ foghorn: BurstResult; knot: BurstResult }> {
  const foghorn = await burst(foghornPort, 'checkout.shop.svc.clusterset.local', count);
  const knot = await burst(knotPort, 'www.example', count);
  return { foghorn, knot };
}

async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? 1000);
  const rounds = Number(process.argv[3] ?? 5);
  const work = await scratch();
  const ports = await examplePorts();
  const foghorn = await startFoghorn(await exampleCorefile(ports, work.manifests), ports.dns, work.dir);
  const knot = await startKnot(await freeTcpPort(), work.dir).catch(async (error: Error) => {
    await foghorn.stop();
    throw error;
  });
  try {
    let f = 0;
    let k = 0;
    for (let round = 1; round <= rounds; round++) {
      const result = await compareBurst(foghorn.port, knot.port, count);
      f += result.foghorn.answered;
      k += result.knot.answered;
      console.log(`round ${round}: foghorn ${result.foghorn.answered}/${count}, knotd ${result.knot.answered}/${count}`);
    }
    console.log(`burst of ${count} x ${rounds}: foghorn answered ${f}, knotd (1 UDP worker) ${k}, ratio ${(f / k).toFixed(2)}`);
  } finally {
    await foghorn.stop();
    await knot.stop();
    await work.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
