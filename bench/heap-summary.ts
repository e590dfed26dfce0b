/**
 * What fills a V8 heap snapshot (`.heapsnapshot`, as bench:memory and bench:growth leave with
 * BENCH_HEAP_SNAPSHOTS): the nodes' own sizes summed by type and constructor or string, largest
 * first, like the "Summary" view of Chrome DevTools' Memory tab without retained sizes.
 *
 *   node bench/dist/heap-summary.js FILE [TOP]     (TOP rows, default 30)
 *   node bench/dist/heap-summary.js BEFORE AFTER [TOP]   (what grew from BEFORE to AFTER)
 */
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

interface Group {
  count: number;
  bytes: number;
}

function summarize(file: string): Map<string, Group> {
  const data = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const fields = data.snapshot.meta.node_fields;
  const types = data.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const groups = new Map<string, Group>();
  for (let i = 0; i < data.nodes.length; i += width) {
    const type = types[data.nodes[i + typeAt]!]!;
    const name = data.strings[data.nodes[i + nameAt]!]!;
    // Strings by kind, not content; objects and closures by constructor or function name.
    const key = type === 'string' || type === 'concatenated string' || type === 'sliced string' ? `(${type})` : type === 'object' || type === 'closure' || type === 'native' ? `${type} ${name.slice(0, 60)}` : `(${type}) ${type === 'array' || type === 'hidden' || type === 'code' ? name.slice(0, 40) : ''}`;
    const group = groups.get(key) ?? { count: 0, bytes: 0 };
    group.count++;
    group.bytes += data.nodes[i + sizeAt]!;
    groups.set(key, group);
  }
  return groups;
}

const args = process.argv.slice(2);
const top = /^\d+$/.test(args.at(-1) ?? '') ? Number(args.pop()) : 30;
const kb = (bytes: number): string => Math.round(bytes / 1024).toLocaleString('en');
if (args.length === 1) {
  const groups = [...summarize(args[0]!)].sort((a, b) => b[1].bytes - a[1].bytes);
  const total = groups.reduce((sum, [, g]) => sum + g.bytes, 0);
  console.log(`total ${kb(total)} KiB in ${groups.reduce((sum, [, g]) => sum + g.count, 0).toLocaleString('en')} nodes`);
  for (const [key, g] of groups.slice(0, top)) console.log(`${kb(g.bytes).padStart(10)} KiB ${g.count.toLocaleString('en').padStart(10)}  ${key}`);
} else if (args.length === 2) {
  const before = summarize(args[0]!);
  const after = summarize(args[1]!);
  const keys = new Set([...before.keys(), ...after.keys()]);
  const grown = [...keys].map((key): [string, Group] => {
    const a = before.get(key) ?? { count: 0, bytes: 0 };
    const b = after.get(key) ?? { count: 0, bytes: 0 };
    return [key, { count: b.count - a.count, bytes: b.bytes - a.bytes }];
  });
  grown.sort((a, b) => b[1].bytes - a[1].bytes);
  for (const [key, g] of grown.slice(0, top)) console.log(`${kb(g.bytes).padStart(10)} KiB ${g.count.toLocaleString('en').padStart(10)}  ${key}`);
} else {
  console.error('usage: node bench/dist/heap-summary.js FILE [TOP] | BEFORE AFTER [TOP]');
  process.exit(2);
}
