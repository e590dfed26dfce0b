/**
 * `cache 30` in front of `file` serving a zone of 10,000 A records, the queries cycling over the
 * 10,000 names: every stock Corefile has `cache`, and this is its common job, where most queries
 * are hits on one of many entries (the `cache` scenario measures one entry). The records' TTL
 * is an hour, so `cache 30` stores each answer for 30 s.
 *
 * bench:dnsperf runs it next to a real CoreDNS on the same Corefile (COREDNS_BINARY), and next
 * to Foghorn's `file` without the cache and with a cache that holds every name (all hits), in
 * the same rounds. With the default capacity (9,984 entries in 256 shards of 39) the names fill
 * CoreDNS's shards and Foghorn's alike: 9,504 entries, so about one query in ten is a miss.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchScenario } from './scenario.js';

const records = Number(process.env['BENCH_CACHE_FILE_RECORDS'] ?? 10_000);

/** The zone: SOA, one NS with its address, and `records` hosts `h0` … with one address each. */
function zoneText(count: number): string {
  const lines = ['$ORIGIN example.org.', '$TTL 3600', '@ SOA ns hostmaster 1 7200 3600 1209600 3600', '@ NS ns', 'ns A 192.0.2.53'];
  for (let i = 0; i < count; i++) lines.push(`h${i} A 10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
  return lines.join('\n') + '\n';
}

/** The server block for `port` (0: Foghorn picks one) with this cache line, or none. */
const block = (zoneFile: string, port: number, cache: string): string =>
  `example.org:${port} {\n    bind 127.0.0.1\n${cache ? `    ${cache}\n` : ''}    file ${zoneFile}\n}\n`;

const scenario: BenchScenario = {
  title: `foghorn cache 30 + file (${records.toLocaleString('en')} names)`,
  targetRatio: 1.0,
  setup: () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-cache-file-'));
    const zoneFile = join(dir, 'example.org.zone');
    writeFileSync(zoneFile, zoneText(records));
    return Promise.resolve({
      corefile: block(zoneFile, 0, 'cache 30'),
      queryName: 'h4321.example.org',
      queryType: 'A',
      queries: Array.from({ length: records }, (_, i) => `h${i}.example.org A`),
      variants: [
        { label: 'file alone (no cache)', corefile: block(zoneFile, 0, '') },
        // Room for every name: each query a hit, which shows a hit's own cost.
        { label: 'cache 30, success 20000 (all hits)', corefile: block(zoneFile, 0, 'cache 30 {\n        success 20000\n    }') },
      ],
      coredns: (port: number) => block(zoneFile, port, 'cache 30'),
      cleanup: () => {
        rmSync(dir, { recursive: true, force: true });
        return Promise.resolve();
      },
    });
  },
};
export default scenario;
