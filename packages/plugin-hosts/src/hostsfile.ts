/**
 * The hosts data (CoreDNS `plugin/hosts/hostsfile.go`, after Go's `net/hosts.go`): parsing a
 * hosts(5) text into name → addresses and address → names maps, and looking names up.
 *
 *     # comment            `#` starts a comment anywhere on a line
 *     10.0.0.1  a.example  one address, then names; lines with fewer than 2 fields are skipped
 *     ::1       localhost  IPv4-mapped IPv6 addresses count as IPv4
 *     10.0.0.9  *.apps     a leading `*.` matches exactly one more label, and gets no PTR
 */
import { isSubdomain, normalizeZone } from '@foghorn/core';
import { formatIp, parseIp, to4 } from '@foghorn/core/wire';

/** One parsed hosts text. Addresses are kept as text in Go's `IP.String` form. */
export class HostsMap {
  /** Fully qualified lower-case name → IPv4 addresses, in file order. */
  readonly name4 = new Map<string, string[]>();
  readonly name6 = new Map<string, string[]>();
  /** Wildcard owners (`*.example.org.`) → addresses. */
  readonly wild4 = new Map<string, string[]>();
  readonly wild6 = new Map<string, string[]>();
  /** Address → names, for PTR answers. */
  readonly addr = new Map<string, string[]>();

  /** CoreDNS's `Map.Len`: every address of every name plus every name of every address. */
  get size(): number {
    let n = 0;
    for (const map of [this.name4, this.name6, this.wild4, this.wild6, this.addr]) for (const list of map.values()) n += list.length;
    return n;
  }
}

/** What parsing needs: the zones names must fall under, and whether PTR data is kept. */
export interface ParseOptions {
  readonly origins: readonly string[];
  readonly autoReverse: boolean;
}

/** Parses a hosts text. Names outside `origins` are dropped; bad lines are skipped, never fatal. */
export function parseHostsFile(text: string, options: ParseOptions): HostsMap {
  const map = new HostsMap();
  for (let line of text.split('\n')) {
    const hash = line.indexOf('#');
    if (hash >= 0) line = line.slice(0, hash);
    const fields = line.split(/[ \t\r\f\v]+/).filter((f) => f !== '');
    if (fields.length < 2) continue;
    const ip = parseHostIp(fields[0]!);
    if (ip === null) continue;
    const v4 = to4(ip).length === 4;
    const address = formatIp(ip);
    for (let i = 1; i < fields.length; i++) {
      const name = normalizeZone(fields[i]!);
      if (!options.origins.some((zone) => isSubdomain(name, zone))) continue;
      if (name.startsWith('*.')) {
        append(v4 ? map.wild4 : map.wild6, name, address);
        continue;
      }
      append(v4 ? map.name4 : map.name6, name, address);
      if (options.autoReverse) append(map.addr, address, name);
    }
  }
  return map;
}

/** `net.ParseIP` after dropping an IPv6 zone (`fe80::1%lo0`). */
function parseHostIp(text: string): Uint8Array | null {
  const percent = text.indexOf('%');
  return parseIp(percent >= 0 ? text.slice(0, percent) : text);
}

function append(map: Map<string, string[]>, key: string, value: string): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** The wildcard that would cover `name`: its first label replaced by `*`; '' for the root and TLDs. */
export function wildcardOf(name: string): string {
  const dot = name.indexOf('.');
  if (dot < 0 || dot + 1 >= name.length) return '';
  return `*.${name.slice(dot + 1)}`;
}

/** Addresses of `name` in one map: the exact name, else the wildcard one label up. */
export function lookup(names: ReadonlyMap<string, string[]>, wild: ReadonlyMap<string, string[]>, name: string): readonly string[] | undefined {
  const exact = names.get(name);
  if (exact !== undefined) return exact;
  if (wild.size === 0) return undefined;
  const pattern = wildcardOf(name);
  return pattern === '' ? undefined : wild.get(pattern);
}

/**
 * The address a reverse name stands for, in `IP.String` form, or '' (CoreDNS's
 * `dnsutil.ExtractAddressFromReverse`): `1.0.0.10.in-addr.arpa.` → `10.0.0.1`, 32 nibbles under
 * `ip6.arpa.` → an IPv6 address.
 */
export function addressFromReverse(name: string): string {
  if (name.endsWith('.in-addr.arpa.')) {
    const labels = name.slice(0, -'.in-addr.arpa.'.length).split('.').reverse();
    const ip = parseIp(labels.join('.'));
    return ip === null || ip.length !== 4 ? '' : formatIp(ip);
  }
  if (name.endsWith('.ip6.arpa.')) {
    const nibbles = name.slice(0, -'.ip6.arpa.'.length).split('.').reverse().join('');
    if (nibbles.length !== 32) return '';
    const ip = parseIp(nibbles.match(/.{4}/g)!.join(':'));
    return ip === null ? '' : formatIp(ip);
  }
  return '';
}
