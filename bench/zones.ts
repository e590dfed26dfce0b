/**
 * The zone the zone plugins' scenarios serve (file, auto, secondary): the same data, so their
 * figures differ only by the plugin, which all answer through core's `serveZone`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** 1,000 hosts besides the apex, so the lookup walks a realistic index. */
export function benchZone(): string {
  let text = '$ORIGIN example.org.\n$TTL 3600\n@ SOA ns1 hostmaster 1 7200 3600 1209600 300\n@ NS ns1\n@ NS ns2\nns1 A 192.0.2.53\nns2 A 192.0.2.54\nbench A 192.0.2.1\n';
  for (let i = 0; i < 1000; i++) text += `h${i} A 10.0.${i >> 8}.${i & 255}\n`;
  return text;
}

/** The zone written as `db.example.org` in a fresh directory. */
export function benchZoneDirectory(): { dir: string; path: string; cleanup(): Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), 'foghorn-bench-zone-'));
  const path = join(dir, 'db.example.org');
  writeFileSync(path, benchZone());
  return { dir, path, cleanup: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })) };
}
