/**
 * Hostile primaries against the real `foghorn` CLI serving a *secondary* zone: after a good
 * first transfer, a NOTIFY starts a transfer that streams up to a gigabyte (small records, huge
 * records, records outside the zone) or stalls. For each: how long until Foghorn gave up, how
 * many bytes the primary got out, the peak resident memory (VmHWM) of the Foghorn process
 * before and after, and whether the last good zone still answered. The figures go to
 * docs/reliability.md.
 *
 *   npm run xfr-abuse [-- SCENARIO...]
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import dnsPacket from 'dns-packet';
import type { Answer } from 'dns-packet';
import { OPCODE_NOTIFY } from '@foghorn/core';
import { formatRr, freeTcpPort, query, soaRecord, startPrimary, udpExchange } from '@foghorn/testkit';
import type { AxfrSession } from '@foghorn/testkit';
import { scratch, startFoghorn } from './harness.js';

const GB = 1 << 30;
const zone = 'example.org';

interface Scenario {
  readonly name: string;
  /** Extra lines of the secondary block. */
  readonly options?: string;
  /** Streams until the connection closes or `budget` bytes went out. */
  readonly axfr: (s: AxfrSession, budget: number) => Promise<void>;
}

/** Sends one pre-encoded message over and over until closed or `budget` bytes went out. */
async function repeat(s: AxfrSession, message: Buffer, budget: number, first: Answer[]): Promise<void> {
  await s.send(first);
  const frame = Buffer.allocUnsafe(message.length + 2);
  frame.writeUInt16BE(message.length, 0);
  message.copy(frame, 2);
  for (let sent = 0; sent < budget && !s.closed; sent += frame.length) {
    if (!(await s.write(frame))) return;
  }
}

function message(id: number, answers: Answer[]): Buffer {
  return dnsPacket.encode({ type: 'response', id, flags: dnsPacket.AUTHORITATIVE_ANSWER, questions: [{ name: zone, type: 'AXFR', class: 'IN' }], answers });
}

/** About 63 kB of A records in the zone (dns-packet does not compress names: 33 bytes each). */
const smallRecords = (id: number): Buffer => message(id, Array.from({ length: 1900 }, (_, i) => ({ name: `h${i}.${zone}`, type: 'A', class: 'IN', ttl: 60, data: `10.0.${i >> 8}.${i & 255}` })));
/** One TXT record of about 61 kB per message. */
const hugeRecord = (id: number): Buffer => message(id, [{ name: `big.${zone}`, type: 'TXT', class: 'IN', ttl: 60, data: Array.from({ length: 240 }, () => 'x'.repeat(254)) }]);
/** About 63 kB of A records under another zone, which a secondary drops as they come. */
const foreignRecords = (id: number): Buffer => message(id, Array.from({ length: 1900 }, (_, i) => ({ name: `h${i}.example.net`, type: 'A', class: 'IN', ttl: 60, data: `10.1.${i >> 8}.${i & 255}` })));

const scenarios: Scenario[] = [
  { name: 'small records, default limits', axfr: (s, budget) => repeat(s, smallRecords(s.id), budget, [soaRecord(zone, 2)]) },
  { name: 'huge records, default limits', axfr: (s, budget) => repeat(s, hugeRecord(s.id), budget, [soaRecord(zone, 2)]) },
  { name: 'small records, max_records 1000000', options: 'max_records 1000000', axfr: (s, budget) => repeat(s, smallRecords(s.id), budget, [soaRecord(zone, 2)]) },
  // 1 GB is 32 million of these records: the limits let them all through, so the whole gigabyte streams.
  { name: '1 GB outside the zone, max_records 40000000', options: 'max_records 40000000', axfr: (s, budget) => repeat(s, foreignRecords(s.id), budget, [soaRecord(zone, 2)]) },
  {
    name: 'stall after the query',
    axfr: async (s) => {
      while (!s.closed) await new Promise((resolve) => setTimeout(resolve, 5));
    },
  },
];

/** VmHWM and VmRSS of a process, in MB. */
function memory(pid: number): { hwm: number; rss: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
  return { hwm: kb('VmHWM') / 1024, rss: kb('VmRSS') / 1024 };
}

interface Result {
  readonly scenario: string;
  readonly gaveUpMs: number;
  readonly sentMB: number;
  readonly hwmBeforeMB: number;
  readonly hwmAfterMB: number;
  readonly kept: boolean;
  readonly logged: string;
}

async function run(scenario: Scenario): Promise<Result> {
  const work = await scratch();
  let hostile = false;
  let closedAt = 0;
  const good: Answer[] = [soaRecord(zone, 1), { name: zone, type: 'NS', class: 'IN', ttl: 60, data: `ns1.${zone}` }, { name: `www.${zone}`, type: 'A', class: 'IN', ttl: 60, data: '192.0.2.1' }];
  const primary = await startPrimary({
    serial: 1,
    axfr: async (s) => {
      if (!hostile) {
        await s.send([...good, good[0]!]);
        return;
      }
      try {
        await scenario.axfr(s, GB);
        // The double stops at the budget; Foghorn may still be reading what is in flight.
        while (!s.closed) await new Promise((resolve) => setTimeout(resolve, 5));
      } finally {
        closedAt = Date.now();
      }
    },
  });
  const port = await freeTcpPort();
  const corefile = `example.org:${port} {\n secondary {\n  transfer from ${primary.address}\n  ${scenario.options ?? ''}\n }\n}\n`;
  const foghorn = await startFoghorn(corefile, port, work.dir, { keepOutput: true });
  try {
    const www = async (): Promise<string[]> => ((await query({ port }, `www.${zone}`, 'A')).answers ?? []).map(formatRr);
    for (let i = 0; (await www()).length === 0; i++) {
      if (i > 100) throw new Error('the first transfer did not happen');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const pid = foghorn.process.pid!;
    const before = memory(pid);
    hostile = true;
    primary.options.serial = 2;
    const started = Date.now();
    const notify = dnsPacket.encode({ type: 'query', id: 1, flags: (OPCODE_NOTIFY << 11) | dnsPacket.AUTHORITATIVE_ANSWER, questions: [{ name: zone, type: 'SOA', class: 'IN' }] });
    await udpExchange({ port }, notify);
    while (closedAt === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const after = memory(pid);
    const kept = (await www()).join() === 'www.example.org. 60 IN A 192.0.2.1';
    await new Promise((resolve) => setTimeout(resolve, 100));
    const logged = foghorn.output.find((line) => line.includes('Failed to transfer')) ?? foghorn.output.find((line) => line.includes('Transferred:') && foghorn.output.indexOf(line) > 0) ?? '(nothing logged)';
    return { scenario: scenario.name, gaveUpMs: closedAt - started, sentMB: primary.sent / 1e6, hwmBeforeMB: before.hwm, hwmAfterMB: after.hwm, kept, logged: logged.replace(/^.*?: /, '') };
  } finally {
    await foghorn.stop();
    await primary.close();
    await work.close();
  }
}

async function main(): Promise<void> {
  const names = process.argv.slice(2);
  const chosen = names.length === 0 ? scenarios : scenarios.filter((s) => names.some((n) => s.name.includes(n)));
  console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log('| hostile primary | gave up after | primary sent | VmHWM before → after | last zone kept | logged |');
  console.log('|---|---|---|---|---|---|');
  for (const scenario of chosen) {
    const r = await run(scenario);
    console.log(`| ${r.scenario} | ${(r.gaveUpMs / 1000).toFixed(2)} s | ${r.sentMB.toFixed(1)} MB | ${r.hwmBeforeMB.toFixed(0)} → ${r.hwmAfterMB.toFixed(0)} MB | ${r.kept ? 'yes' : 'NO'} | ${r.logged} |`);
  }
}

await main();
