/**
 * IP addresses as bytes, Go's `net.IP` way, for plugins that must compare and print addresses
 * exactly as CoreDNS does: `parseIp` is `net.ParseIP` (no zone, no leading zeros in IPv4),
 * `to4` is `To4` (an IPv4-mapped IPv6 address is the IPv4 address), `formatIp` is `String`.
 */

/**
 * `net.ParseIP`: 4 bytes for dotted IPv4, 16 for IPv6 text (IPv4-mapped included); null otherwise.
 * No zone (`%eth0`): cut it off first where one may occur.
 */
export function parseIp(text: string): Uint8Array | null {
  if (text.includes(':')) {
    const out = new Uint8Array(16);
    return writeIpv6(text, out, 0) ? out : null;
  }
  const out = new Uint8Array(4);
  return writeIpv4(text, out, 0) ? out : null;
}

/**
 * Writes the four bytes of dotted-quad IPv4 text at `offset`; false (nothing meaningful written)
 * when `text` is not one: exactly four decimal parts of at most three digits, each at most 255,
 * no leading zeros (Go's `net.ParseIP` since Go 1.17, and `net.isIP`). A scan of the characters
 * with no regular expression or allocation: plugins that build answers from addresses by the
 * thousand (*lighthouse*) and read a client address per query (*acl*) go through here.
 */
export function writeIpv4(text: string, out: Uint8Array, offset: number): boolean {
  const length = text.length;
  if (length < 7 || length > 15) return false;
  let part = 0;
  let value = 0;
  let digits = 0;
  for (let i = 0; i <= length; i++) {
    const c = i === length ? 0x2e : text.charCodeAt(i);
    if (c === 0x2e) {
      if (digits === 0 || part > 3) return false;
      out[offset + part++] = value;
      value = 0;
      digits = 0;
      continue;
    }
    if (c < 0x30 || c > 0x39) return false;
    // A leading zero is only allowed alone ("0", not "01").
    if (digits === 1 && value === 0) return false;
    value = value * 10 + (c - 0x30);
    if (++digits > 3 || value > 255) return false;
  }
  return part === 4;
}

/**
 * Writes the 16 bytes of IPv6 text at `offset`; false when `text` is not IPv6 as Go's
 * `net.ParseIP` reads it: groups of one to four hex digits, at most one `::` standing for at
 * least one zero group, a dotted IPv4 address allowed as the last 32 bits, no zone.
 */
export function writeIpv6(text: string, out: Uint8Array, offset: number): boolean {
  const groups = parseIpv6(text);
  if (groups === null) return false;
  for (let i = 0; i < 8; i++) {
    out[offset + i * 2] = groups[i]! >> 8;
    out[offset + i * 2 + 1] = groups[i]! & 0xff;
  }
  return true;
}

/** `To4`: the 4-byte form of an IPv4 or IPv4-mapped address, else the address unchanged. */
export function to4(ip: Uint8Array): Uint8Array {
  if (ip.length !== 16) return ip;
  for (let i = 0; i < 10; i++) if (ip[i] !== 0) return ip;
  return ip[10] === 0xff && ip[11] === 0xff ? ip.subarray(12) : ip;
}

/** `IP.String`: dotted for IPv4 and IPv4-mapped, RFC 5952 text for IPv6 (`2001:db8::1`). */
export function formatIp(ip: Uint8Array): string {
  const v4 = to4(ip);
  if (v4.length === 4) return `${v4[0]}.${v4[1]}.${v4[2]}.${v4[3]}`;
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((ip[i]! << 8) | ip[i + 1]!);
  // The longest run of two or more zero groups (the first of equals) becomes `::`.
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = (from: number, to: number): string => groups.slice(from, to).map((g) => g.toString(16)).join(':');
  if (bestStart < 0) return hex(0, 8);
  return `${hex(0, bestStart)}::${hex(bestStart + bestLength, 8)}`;
}

/** A network as Go's `net.ParseCIDR` gives it: the address bytes, masked, and the prefix length. */
export interface Cidr {
  /** 4 bytes for dotted IPv4, 16 for IPv6 text (`::ffff:10.0.0.0/104` stays 16), host bits zero. */
  readonly network: Uint8Array;
  readonly bits: number;
}

/**
 * `net.ParseCIDR`: `ADDRESS/BITS`, the address as {@link parseIp} reads it and BITS decimal digits
 * (leading zeros allowed, as Go's `dtoi` reads them) no more than the address has bits. Throws
 * Go's `invalid CIDR address: TEXT`.
 */
export function parseCidr(text: string): Cidr {
  const invalid = new Error(`invalid CIDR address: ${text}`);
  const slash = text.indexOf('/');
  if (slash < 0) throw invalid;
  const network = parseIp(text.slice(0, slash));
  const bitsText = text.slice(slash + 1);
  if (network === null || !/^\d+$/.test(bitsText)) throw invalid;
  const bits = Number(bitsText);
  if (bits > network.length * 8) throw invalid;
  for (let i = 0; i < network.length; i++) {
    const left = bits - i * 8;
    network[i]! &= left >= 8 ? 0xff : left <= 0 ? 0 : (0xff << (8 - left)) & 0xff;
  }
  return { network, bits };
}

/** The eight 16-bit groups of IPv6 text, or null. */
function parseIpv6(text: string): number[] | null {
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groups = (half: string, last: boolean): number[] | null => {
    if (half === '') return [];
    const out: number[] = [];
    const parts = half.split(':');
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!;
      if (last && i === parts.length - 1 && part.includes('.')) {
        const v4 = new Uint8Array(4);
        if (!writeIpv4(part, v4, 0)) return null;
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(part)) return null;
        out.push(parseInt(part, 16));
      }
    }
    return out;
  };
  const head = groups(halves[0]!, halves.length === 1);
  const tail = halves.length === 2 ? groups(halves[1]!, true) : [];
  if (head === null || tail === null) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  return [...head, ...new Array<number>(missing).fill(0), ...tail];
}

/**
 * Whether an address as Node prints it (`127.0.0.1`, `::1`, `fe80::1%eth0`) is IPv6: IPv6 text
 * has a colon within its first five characters (a group is at most four hex digits), IPv4 none.
 * Read per query (prometheus' `family` label, log's `{remote}`), where `includes(':')` was a
 * call into V8's string search each time.
 */
export function isIpv6Text(address: string): boolean {
  const end = address.length < 5 ? address.length : 5;
  for (let i = 0; i < end; i++) if (address.charCodeAt(i) === 0x3a) return true;
  return false;
}
