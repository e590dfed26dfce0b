/**
 * dns64 (allow_ipv4, as the load comes over IPv4) in front of hosts, asked AAAA for a name that
 * has one: the reply passes through dns64's writer untranslated, the cost every AAAA query of an
 * IPv6 client pays. The variant without dns64 runs in the same rounds.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchScenario } from './scenario.js';

/** A hosts file with an IPv6 name and an IPv4-only one (scenario-dns64-translate.ts). */
export function dns64Hosts(): { path: string; cleanup(): Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), 'bench-dns64-'));
  const path = join(dir, 'hosts');
  writeFileSync(path, '2001:db8::1 v6.example.org\n192.0.2.1 v4.example.org\n192.0.2.2 v4.example.org\n');
  return {
    path,
    cleanup: () => {
      rmSync(dir, { recursive: true, force: true });
      return Promise.resolve();
    },
  };
}

const scenario: BenchScenario = {
  title: 'foghorn dns64 + hosts (AAAA that exists: passed on)',
  targetRatio: 0.8,
  setup: () => {
    const file = dns64Hosts();
    return Promise.resolve({
      corefile: `.:0 {\n    bind 127.0.0.1\n    dns64 {\n        allow_ipv4\n    }\n    hosts ${file.path}\n}\n`,
      variants: [{ label: 'without dns64', corefile: `.:0 {\n    bind 127.0.0.1\n    hosts ${file.path}\n}\n` }],
      queryName: 'v6.example.org',
      queryType: 'AAAA',
      cleanup: file.cleanup,
    });
  },
};
export default scenario;
