/**
 * How sections are reordered (CoreDNS `plugin/loadbalance/loadbalance.go`, `weighted.go`,
 * `prefer.go`). The functions work on any record representation through a {@link RecordView},
 * so decoded messages and wire records share one implementation. Each returns a new array, or
 * null when the section stays as it is; the input is never reordered in place, because it may be
 * a zone's or a cache's own data.
 */
import { contains, ipKey } from './ip.js';
import type { Subnet } from './ip.js';

/** The four groups CoreDNS partitions a section into. */
export const Kind = { Cname: 0, Other: 1, Address: 2, Mx: 3 } as const;
export type Kind = (typeof Kind)[keyof typeof Kind];

/** What the policies need to know about a record. */
export interface RecordView<T> {
  kind(record: T): Kind;
  /** The address of an A or AAAA record (4-byte form for IPv4), else null. */
  ip(record: T): Uint8Array | null;
  /** The owner name, fully qualified, in the case it was written. */
  owner(record: T): string;
}

/** A random integer in [0, limit); injectable so tests can pick the outcome. */
export type RandomInt = (limit: number) => number;

export const mathRandomInt: RandomInt = (limit) => Math.floor(Math.random() * limit);

interface Groups<T> {
  cname: T[];
  other: T[];
  address: T[];
  mx: T[];
}

function partition<T>(records: readonly T[], view: RecordView<T>): Groups<T> {
  const groups: Groups<T> = { cname: [], other: [], address: [], mx: [] };
  for (const record of records) {
    switch (view.kind(record)) {
      case Kind.Cname:
        groups.cname.push(record);
        break;
      case Kind.Address:
        groups.address.push(record);
        break;
      case Kind.Mx:
        groups.mx.push(record);
        break;
      default:
        groups.other.push(record);
    }
  }
  return groups;
}

/** Fisher–Yates in place (CoreDNS walks swaps driven by random message ids; same purpose). */
function shuffle<T>(records: T[], random: RandomInt): void {
  for (let i = records.length - 1; i > 0; i--) {
    const j = random(i + 1);
    if (j !== i) {
      const swap = records[i]!;
      records[i] = records[j]!;
      records[j] = swap;
    }
  }
}

/**
 * round_robin: addresses and MX records shuffled (separately), emitted as CNAME, other,
 * address, MX. Sections of one record are left alone.
 */
export function roundRobin<T>(records: readonly T[], view: RecordView<T>, random: RandomInt): T[] | null {
  if (records.length <= 1) return null;
  // The common case, only addresses: one copy, no partition.
  let onlyAddresses = true;
  for (const record of records) {
    if (view.kind(record) !== Kind.Address) {
      onlyAddresses = false;
      break;
    }
  }
  if (onlyAddresses) {
    const out = records.slice();
    shuffle(out, random);
    return out;
  }
  const { cname, other, address, mx } = partition(records, view);
  shuffle(address, random);
  shuffle(mx, random);
  return cname.concat(other, address, mx);
}

/** Weights per owner name (as written, with a trailing dot), per address key. */
export type WeightTable = ReadonlyMap<string, ReadonlyMap<string, number>>;

/**
 * weighted: one address, drawn with probability proportional to its weight (unknown addresses
 * weigh 1), is swapped into the first address position; the rest keep their places. Emitted as
 * CNAME, other, address, MX; a section without addresses is left alone.
 */
export function weighted<T>(records: readonly T[], view: RecordView<T>, table: WeightTable, random: RandomInt): T[] | null {
  const { cname, other, address, mx } = partition(records, view);
  if (address.length === 0) return null;
  const top = topAddress(address, view, table, random);
  if (top > 0) {
    const swap = address[0]!;
    address[0] = address[top]!;
    address[top] = swap;
  }
  return cname.concat(other, address, mx);
}

/** The drawn index: candidates by descending weight (stable), then one draw below the sum. */
function topAddress<T>(address: readonly T[], view: RecordView<T>, table: WeightTable, random: RandomInt): number {
  const candidates = address.map((record, index) => {
    const ip = view.ip(record);
    const weight = ip === null ? undefined : table.get(view.owner(record))?.get(ipKey(ip));
    return { index, weight: weight ?? 1 };
  });
  let sum = 0;
  for (const candidate of candidates) sum += candidate.weight;
  candidates.sort((a, b) => b.weight - a.weight);
  const draw = random(sum);
  let running = 0;
  for (const candidate of candidates) {
    running += candidate.weight;
    if (draw < running) return candidate.index;
  }
  return 0;
}

/**
 * prefer: addresses inside the preferred subnets first, in subnet order (each keeping its
 * relative order), then the others; emitted as CNAME, address, MX, other (CoreDNS's order here,
 * which differs from round_robin's).
 */
export function preferSubnets<T>(records: readonly T[], view: RecordView<T>, subnets: readonly Subnet[]): T[] | null {
  if (records.length === 0) return null;
  const { cname, other, address, mx } = partition(records, view);
  const ips = address.map((record) => view.ip(record));
  const taken = new Array<boolean>(address.length).fill(false);
  const sorted: T[] = [];
  for (const subnet of subnets) {
    for (let i = 0; i < address.length; i++) {
      const ip = ips[i];
      if (!taken[i] && ip != null && contains(subnet, ip)) {
        sorted.push(address[i]!);
        taken[i] = true;
      }
    }
  }
  for (let i = 0; i < address.length; i++) if (!taken[i]) sorted.push(address[i]!);
  const out = cname.concat(sorted, mx, other);
  return sameOrder(records, out) ? null : out;
}

/** True when both arrays hold the same records in the same order. */
export function sameOrder<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
