/**
 * A reflection attack on loopback, against the real `foghorn` CLI with and without *rrl*.
 *
 * On loopback no address can be forged, so the attack is modelled from the victim's side: the
 * "attacker" sockets are bound to addresses of the victim's network (127.1.0.0/24; any 127/8
 * address binds on Linux) and send, at a high rate, the queries an attacker would send in the
 * victim's name (TXT of a large record set, EDNS size 4096). What those sockets receive is what
 * the victim would receive. The amplification factor is the DNS payload the victim receives over
 * the DNS payload the attacker sent. Meanwhile a legitimate client on another network
 * (127.2.0.1) asks 25 names at a modest rate and counts its answers.
 *
 * A second attack forges networks (256 of them, in turn) and asks a new name under a wildcard
 * with every query, so that every query opens a new account: the table must keep its size
 * (accounts are recycled) and the server's resident memory must not grow more than without *rrl*.
 *
 * Each phase also reports the server's CPU time per attack query (from /proc, which a busy
 * machine leaves alone better than a rate) and its resident memory.
 *
 *   npm run rrl-flood [-- SECONDS [QPS]]     each phase SECONDS long (default 10) at QPS (default 5000)
 */
import dgram from 'node:dgram';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freeTcpPort, httpGet, makeQuery } from '@foghorn/testkit';
import { mib, sampleProcess, scratch, startFoghorn } from './harness.js';

/** The zone the server answers from: one large TXT set (the amplifier), names for the legitimate client, a wildcard. */
export function floodZone(): string {
  const txt = Array.from({ length: 8 }, (_, i) => `big IN TXT "${String(i).repeat(120)}"`);
  const hosts = Array.from({ length: 25 }, (_, i) => `host${i} IN A 192.0.2.${i + 1}`);
  return ['$ORIGIN amp.example.', '$TTL 300', '@ IN SOA ns.amp.example. hostmaster.amp.example. 1 7200 3600 1209600 60', '@ IN NS ns.amp.example.', 'ns IN A 192.0.2.53', ...txt, ...hosts, '*.wild IN TXT "wildcard"', ''].join('\n');
}

/** The *rrl* block of the "with rrl" phases: BIND's suggested figures for an authoritative server. */
export const rrlBlock = 'rrl {\n        responses-per-second 10\n        slip-ratio 2\n    }';

export interface FloodOptions {
  /** How long the attack lasts, in seconds. */
  readonly seconds: number;
  /** Attack queries per second, all sockets together. */
  readonly qps: number;
  /** The legitimate client's queries per second (over 25 names). */
  readonly legitQps: number;
  /** Forge a new network every few queries (the memory attack) instead of the victim's /24. */
  readonly spoofNetworks?: boolean;
  /** How long replies are still counted after the last query, in ms (default 2000). */
  readonly tailMs?: number;
}

export interface FloodResult {
  /** Attack queries sent, and their DNS payload in bytes. */
  readonly queries: number;
  readonly queryBytes: number;
  /** Replies the victim's sockets received, their payload, and how many had TC set. */
  readonly replies: number;
  readonly replyBytes: number;
  readonly truncated: number;
  /** replyBytes / queryBytes. */
  readonly amplification: number;
  readonly legitSent: number;
  readonly legitAnswered: number;
  /** The server's CPU time (user + system) during the attack and its tail, in ms. */
  readonly cpuMs: number;
  /** Resident memory of the server at the start and at the end of the attack, and its peak. */
  readonly rssStart: number;
  readonly rssEnd: number;
  readonly rssPeak: number;
}

/** CPU time (user + system) a process has used, in ms, from /proc (clock ticks of 10 ms). */
export async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Binds a UDP socket on `address` with a large receive buffer (the client must not be what drops). */
async function socketOn(address: string): Promise<dgram.Socket> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, address, () => {
      socket.off('error', reject);
      resolve();
    });
  });
  socket.setRecvBufferSize(4 * 1024 * 1024);
  return socket;
}

/**
 * Runs one attack against the server on `port` (process `pid`) and measures it. Attack queries
 * leave in ticks of 10 ms, the legitimate client's in the same ticks; replies are counted until
 * `tailMs` after the last query.
 */
export async function flood(port: number, pid: number, options: FloodOptions): Promise<FloodResult> {
  const attackerCount = options.spoofNetworks ? 256 : 32;
  // The victim's /24, or one /24 per socket (127.10.0.1 … 127.10.255.1) for the memory attack.
  const addresses = Array.from({ length: attackerCount }, (_, i) => (options.spoofNetworks ? `127.10.${i}.1` : `127.1.0.${10 + i}`));
  const attackers = await Promise.all(addresses.map(socketOn));
  const legit = await socketOn('127.2.0.1');
  let replies = 0;
  let replyBytes = 0;
  let truncated = 0;
  for (const socket of attackers) {
    socket.on('message', (msg) => {
      replies++;
      replyBytes += msg.length;
      if ((msg[2]! & 0x02) !== 0) truncated++;
    });
  }
  // The legitimate client: IDs it is waiting for.
  const waiting = new Uint8Array(65536);
  let legitSent = 0;
  let legitAnswered = 0;
  legit.on('message', (msg) => {
    const id = msg.readUInt16BE(0);
    if (waiting[id] === 1) {
      waiting[id] = 0;
      legitAnswered++;
    }
  });
  const bigQuery = makeQuery('big.amp.example', 'TXT', { udpSize: 4096, id: 1 });
  let queries = 0;
  let queryBytes = 0;
  let legitDue = 0;
  let attackDue = 0;
  const tickMs = 10;
  const ticks = Math.round((options.seconds * 1000) / tickMs);
  const rssStart = (await sampleProcess(pid)).rssBytes;
  const cpuStart = await cpuMs(pid);
  let rssPeak = rssStart;
  const sampler = setInterval(() => {
    void sampleProcess(pid).then((s) => (rssPeak = Math.max(rssPeak, s.rssBytes)), () => {});
  }, 500);
  const started = Date.now();
  for (let tick = 0; tick < ticks; tick++) {
    attackDue += (options.qps * tickMs) / 1000;
    for (; attackDue >= 1; attackDue--) {
      const socket = attackers[queries % attackers.length]!;
      // The memory attack asks a new name every query: every query is a new account.
      const wire = options.spoofNetworks ? makeQuery(`q${queries}.wild.amp.example`, 'TXT', { udpSize: 4096, id: queries & 0xffff }) : bigQuery;
      socket.send(wire, port, '127.0.0.1');
      queries++;
      queryBytes += wire.length;
    }
    legitDue += (options.legitQps * tickMs) / 1000;
    for (; legitDue >= 1; legitDue--) {
      const id = legitSent & 0xffff;
      waiting[id] = 1;
      legit.send(makeQuery(`host${legitSent % 25}.amp.example`, 'A', { id }), port, '127.0.0.1');
      legitSent++;
    }
    // Hold the pace: sleep until this tick's end.
    const ahead = started + (tick + 1) * tickMs - Date.now();
    if (ahead > 0) await new Promise((resolve) => setTimeout(resolve, ahead));
  }
  await new Promise((resolve) => setTimeout(resolve, options.tailMs ?? 2000));
  clearInterval(sampler);
  const rssEnd = (await sampleProcess(pid)).rssBytes;
  const cpuEnd = await cpuMs(pid);
  for (const socket of [...attackers, legit]) socket.close();
  return {
    queries,
    queryBytes,
    replies,
    replyBytes,
    truncated,
    amplification: replyBytes / queryBytes,
    legitSent,
    legitAnswered,
    cpuMs: cpuEnd - cpuStart,
    rssStart,
    rssEnd,
    rssPeak: Math.max(rssPeak, rssEnd),
  };
}

/** A server for one phase: the zone, the `rrl` block when given, prometheus. */
export async function startFloodServer(dir: string, rrl: string | null): Promise<{ port: number; metricsPort: number; pid: number; stop(): Promise<void> }> {
  const port = await freeTcpPort();
  const zoneFile = join(dir, `db.amp.example.${port}`);
  await writeFile(zoneFile, floodZone());
  const metricsPort = await freeTcpPort();
  const corefile = `amp.example:${port} {\n    bind 127.0.0.1\n    prometheus 127.0.0.1:${metricsPort}\n    ${rrl ?? ''}\n    file ${zoneFile}\n}\n`;
  const child = await startFoghorn(corefile, port, dir);
  return { port, metricsPort, pid: child.process.pid!, stop: () => child.stop() };
}

/** The sum of a counter's samples from the server's /metrics. */
export async function counter(metricsPort: number, name: string): Promise<number> {
  const body = (await httpGet(metricsPort, '/metrics')).text;
  let sum = 0;
  for (const match of body.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))) sum += Number(match[1]);
  return sum;
}

const percent = (part: number, whole: number): string => `${((100 * part) / whole).toFixed(2)} %`;

async function main(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 10);
  const qps = Number(process.argv[3] ?? 5000);
  const legitQps = 100;
  const work = await scratch();
  const rows: string[] = [];
  const loadStart = (await readFile('/proc/loadavg', 'utf8')).trim();
  try {
    const phases: { label: string; rrl: string | null; spoof?: boolean }[] = [
      { label: 'without rrl', rrl: null },
      { label: 'rrl, slip-ratio 2', rrl: rrlBlock },
      { label: 'rrl, slip-ratio 0', rrl: rrlBlock.replace('slip-ratio 2', 'slip-ratio 0') },
      { label: 'forged networks and names, without rrl', rrl: null, spoof: true },
      { label: 'forged networks and names, rrl max-table-size 5000', rrl: rrlBlock.replace('slip-ratio 2', 'slip-ratio 2\n        max-table-size 5000'), spoof: true },
    ];
    console.log(
      `rrl flood: ${seconds} s per phase, attack ${qps} qps from 32 sockets in 127.1.0.0/24 (forged: ${qps / 4} qps from 256 networks, a new name each query), legitimate client ${legitQps} qps from 127.2.0.1`,
    );
    console.log('');
    console.log('| phase | attack queries | query bytes | replies to victim (TC) | reply bytes | amplification | legit answered | dropped | slipped | recycled | server CPU µs per query | RSS start → end (peak) |');
    console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
    for (const phase of phases) {
      const server = await startFloodServer(work.dir, phase.rrl);
      try {
        // A wildcard answer costs the server more than the large set: a quarter of the rate keeps it
        // below saturation, so the legitimate client's figure is about rrl, not about overload.
        const r = await flood(server.port, server.pid, { seconds, qps: phase.spoof ? qps / 4 : qps, legitQps, spoofNetworks: phase.spoof ?? false });
        const dropped = await counter(server.metricsPort, 'coredns_rrl_responses_dropped_total');
        const slipped = await counter(server.metricsPort, 'coredns_rrl_responses_slipped_total');
        const recycled = await counter(server.metricsPort, 'coredns_rrl_accounts_recycled_total');
        const row = `| ${phase.label} | ${r.queries} | ${r.queryBytes} | ${r.replies} (${r.truncated}) | ${r.replyBytes} | ${r.amplification.toFixed(2)} | ${r.legitAnswered}/${r.legitSent} (${percent(r.legitAnswered, r.legitSent)}) | ${dropped} | ${slipped} | ${recycled} | ${((1000 * r.cpuMs) / (r.queries + r.legitSent)).toFixed(1)} | ${mib(r.rssStart)} → ${mib(r.rssEnd)} (${mib(r.rssPeak)}) |`;
        rows.push(row);
        console.log(row);
      } finally {
        await server.stop();
      }
    }
  } finally {
    await work.close();
  }
  console.log('');
  console.log(`load average: ${loadStart} at the start, ${(await readFile('/proc/loadavg', 'utf8')).trim()} at the end`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
