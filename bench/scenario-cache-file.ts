/**
 * `cache 30` in front of `file` serving a zone of 10,000 A records, the queries cycling over the
 * 10,000 names: every stock Corefile has `cache`, and this is its common job, where nearly every
 * query is a hit on one of many entries (the `cache` scenario measures one entry). The records'
 * TTL is an hour, so `cache 30` stores each answer for 30 s and about one query in a few
 * thousand is a miss that goes to `file`.
 *
 * bench:dnsperf runs it next to a real CoreDNS on the same Corefile (COREDNS_BINARY) and next to
 * Foghorn's `file` without the cache, in the same rounds: a hit must cost no more than `file`'s
 * own answer.
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

/** The server block for `port` (0: Foghorn picks one), with or without the cache. */
const block = (zoneFile: string, port: number, cache: boolean): string =>
  `example.org:${port} {\n    bind 127.0.0.1\n${cache ? '    cache 30\n' : ''}    file ${zoneFile}\n}\n`;

const scenario: BenchScenario = {
  title: `foghorn cache 30 + file (${records.toLocaleString('en')} names)`,
  targetRatio: 1.0,
  setup: () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-cache-file-'));
    const zoneFile = join(dir, 'example.org.zone');
    writeFileSync(zoneFile, zoneText(records));
    return Promise.resolve({
      corefile: block(zoneFile, 0, true),
      queryName: 'h4321.example.org',
      queryType: 'A',
      queries: Array.from({ length: records }, (_, i) => `h${i}.example.org A`),
      variants: [{ label: 'file alone (no cache)', corefile: block(zoneFile, 0, false) }],
      coredns: (port: number) => block(zoneFile, port, true),
      cleanup: () => {
        rmSync(dir, { recursive: true, force: true });
        return Promise.resolve();
      },
    });
  },
};
export default scenario;
