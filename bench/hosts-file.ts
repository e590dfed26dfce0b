/** A hosts file for the hosts and loadbalance scenarios: `bench.example.org` with four addresses. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function benchHostsFile(): { path: string; cleanup(): Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), 'bench-hosts-'));
  const path = join(dir, 'hosts');
  writeFileSync(path, '10.0.0.1 bench.example.org\n10.0.0.2 bench.example.org\n10.0.0.3 bench.example.org\n10.0.0.4 bench.example.org\n');
  return {
    path,
    cleanup: () => {
      rmSync(dir, { recursive: true, force: true });
      return Promise.resolve();
    },
  };
}
