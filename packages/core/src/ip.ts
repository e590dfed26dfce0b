/**
 * IP addresses as bytes, Go's `net.IP` way, for plugins that must compare and print addresses
 * exactly as CoreDNS does: `parseIp` is `net.ParseIP` (no zone, no leading zeros in IPv4),
 * `to4` is `To4` (an IPv4-mapped IPv6 address is the IPv4 address), `formatIp` is `String`.
 */

/** `net.ParseIP`: 4 bytes for dotted IPv4, 16 for IPv6 text (IPv4-mapped included); null otherwise. */
export function parseIp(text: string): Uint8Array | null {
  return text.includes(':') ? parseIpv6(text) : parseIpv4(text);
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

function parseIpv4(text: string): Uint8Array | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const part = parts[i]!;
    if (!/^\d{1,3}$/.test(part) || (part.length > 1 && part[0] === '0')) return null;
    const value = Number(part);
    if (value > 255) return null;
    out[i] = value;
  }
  return out;
}

function parseIpv6(text: string): Uint8Array | null {
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groups = (half: string, last: boolean): number[] | null => {
    if (half === '') return [];
    const out: number[] = [];
    const parts = half.split(':');
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!;
      if (last && i === parts.length - 1 && part.includes('.')) {
        const v4 = parseIpv4(part);
        if (v4 === null) return null;
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
  const all = [...head, ...new Array<number>(missing).fill(0), ...tail];
  const out = new Uint8Array(16);
  for (let i = 0; i < 8; i++) {
    out[i * 2] = all[i]! >> 8;
    out[i * 2 + 1] = all[i]! & 0xff;
  }
  return out;
}
